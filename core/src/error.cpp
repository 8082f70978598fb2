#include "vcloe/core/error.hpp"

#include <filesystem>

namespace vcloe {

void fail(const std::string& where, const std::string& what) {
  throw Error(where.empty() ? what : where + ": " + what);
}

void require_input_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (path.empty()) fail("(empty path)", "expected a file name");
  if (!fs::exists(st)) fail(path, "file not found");
  if (fs::is_directory(st)) fail(path, "is a directory, expected a file");
}

}  // namespace vcloe
