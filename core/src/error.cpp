#include "vcloe/core/error.hpp"

#include <charconv>
#include <filesystem>

namespace vcloe {

namespace {
std::string one_line(const std::string& message) {
  std::string out;
  out.reserve(message.size());
  for (const char ch : message) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      static const char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 0xf];
    } else {
      out += ch;
    }
  }
  return out;
}
}  // namespace

Error::Error(const std::string& message) : std::runtime_error(one_line(message)) {}

void fail(const std::string& where, const std::string& what) {
  throw Error(where.empty() ? what : where + ": " + what);
}

void require_input_file(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) fail("(empty path)", "expected a file name");
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) fail(path, "cannot be read: " + ec.message());
  if (!fs::exists(st)) fail(path, "file not found");
  if (fs::is_directory(st)) fail(path, "is a directory, expected a file");
  // A pipe or device would block or never end (a FIFO nobody writes to hung every reader).
  if (!fs::is_regular_file(st)) fail(path, "is a device, pipe or socket, expected a regular file");
}

std::string exact_number(double x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

}  // namespace vcloe
