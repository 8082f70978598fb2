#pragma once
// Helpers shared by the specifications: the message of the vcloe::Error a call throws, a fresh
// scratch directory, a file's bytes.
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "vcloe/core/error.hpp"
#include "vcloe/core/sealed_json.hpp"

namespace vcloe::test {

// The what() of the vcloe::Error thrown by f, or "" if it returns normally.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const vcloe::Error& e) {
    return e.what();
  }
  return "";
}

// An input a fuzz target found (docs/robustness.md, "Fuzzing"), kept in tests/data/fuzz/.
inline std::string fuzz_input(const std::string& name) {
  return std::string(VCLOE_SOURCE_DIR) + "/tests/data/fuzz/" + name;
}

// An empty directory <tmp>/<prefix>-<pid>/<name> (removed first if a run left it).
inline std::filesystem::path fresh_directory(const std::string& prefix, const std::string& name) {
  const std::filesystem::path d =
      std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid())) / name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

// A full disk or a quota, as the file-size limit makes it (EFBIG once past it), while it lives.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &old_);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit l = old_;
    l.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &l);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    std::signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit old_{};
  void (*old_handler_)(int) = nullptr;
};

// A file's bytes ("" if it cannot be read).
inline std::string file_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A file vcloe seals (a sidecar, a result) edited by a test to reach a check behind the seal,
// sealed again as vcloe's writer seals it: a consistent forgery, which a seal does not stop
// (docs/traces.md, "Sealed sidecars"), so every check behind it is still tested.
inline void seal_again(const std::filesystem::path& file) {
  nlohmann::json document = nlohmann::json::parse(file_text(file));
  if (document.is_object()) document.erase(kContentSealKey);
  const std::string text = sealed_json_text(std::move(document), file.string());
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

}  // namespace vcloe::test
