#pragma once
// Running the built `vcloe` binary as a user would, for the command-line specifications.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace cli_test {  // (not in namespace vcloe: the helper is called vcloe, like the binary)

struct CommandResult {
  int status;
  std::string out;  // stdout and stderr
};

inline CommandResult vcloe(const std::string& args) {
  const std::string cmd = std::string(VCLOE_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int rc = pclose(p);
  return {WEXITSTATUS(rc), out};
}

// A fresh directory for this test process (`prefix`-<pid>/<name>), emptied first.
inline std::filesystem::path fresh_dir(const std::string& prefix, const std::string& name) {
  const std::filesystem::path d =
      std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid())) / name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace cli_test
