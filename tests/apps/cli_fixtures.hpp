#pragma once
// Running the built `vcloe` binary as a user would, for the command-line specifications.
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace cli_test {  // (not in namespace vcloe: the helper is called vcloe, like the binary)

struct CommandResult {
  int status;
  std::string out;  // stdout and stderr
};

// A shell command line's status and output (what it sends to the pipe). Under scripts/test-sanitize
// the binary is instrumented too: its sanitizer reports fail the calling test whatever status that
// test expects (a leak found at exit after a correct refusal, say, or UBSan's exit status 1 where
// any non-zero status is expected).
inline CommandResult run_shell(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int rc = pclose(p);
  for (const char* report : {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", ": runtime error: "})
    if (out.find(report) != std::string::npos) ADD_FAILURE() << "sanitizer report from `" << cmd << "`:\n" << out;
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc), out};
}

inline CommandResult run_vcloe(const std::string& args) { return run_shell(std::string(VCLOE_BINARY) + " " + args + " 2>&1"); }

// A fresh directory for this test process (`prefix`-<pid>/<name>), emptied first.
inline std::filesystem::path fresh_dir(const std::string& prefix, const std::string& name) {
  const std::filesystem::path d =
      std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid())) / name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

// The source tree's config/ directory, with a trailing slash.
// The whole text of a file ("" if it cannot be read).
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline const std::string config_dir = std::string(VCLOE_SOURCE_DIR) + "/config/";

// The default rig scaled down 16 times (256x188 px images): a render of many frames in a
// fraction of a second, PNGs of a few kB (under 5 kB with --noise-dn 0).
inline void write_small_rig(const std::filesystem::path& to) {
  std::string rig = read_file(config_dir + "rig.yaml");
  for (const auto& [from, with] : std::vector<std::pair<std::string, std::string>>{
           {"image_size: [4096, 3000]", "image_size: [256, 188]"}, {"image_size: [4096, 3000]", "image_size: [256, 188]"},
           {"focal_px: [4640, 4641.5]", "focal_px: [290, 290.1]"},
           {"principal_point_px: [2051.3, 1494.8]", "principal_point_px: [128.2, 93.4]"},
           {"focal_px: [4636.2, 4637]", "focal_px: [289.8, 289.8]"},
           {"principal_point_px: [2041.7, 1503.1]", "principal_point_px: [127.6, 93.9]"}}) {
    EXPECT_NE(rig.find(from), std::string::npos) << from;
    if (rig.find(from) != std::string::npos) rig.replace(rig.find(from), from.size(), with);
  }
  std::ofstream(to) << rig;
}

// A command that must be refused: a one-line `vcloe: error: …` containing `expected`, exit
// status 2, within `seconds` (refused before any long work).
struct Refusal {
  std::string args, expected;
};
inline void expect_refused(const std::vector<Refusal>& cases, double seconds = 10.0) {
  for (const Refusal& c : cases) {
    const auto t0 = std::chrono::steady_clock::now();
    const CommandResult r = run_vcloe(c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.out;
    EXPECT_EQ(r.out.rfind("vcloe: error: ", 0), 0u) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.expected), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), seconds) << c.args;
  }
}

}  // namespace cli_test
