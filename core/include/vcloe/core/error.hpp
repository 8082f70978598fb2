#pragma once
// vcloe/core/error.hpp — the one exception type vcloe throws for bad input.
//
// Every error names where it came from (file, line, YAML key, CSV column) and what was
// expected, so that the command line can print it as a single line and exit non-zero.
#include <stdexcept>
#include <string>

namespace vcloe {

// The message is one line by construction: line breaks and other control characters (from a
// quoted value of the input, a library's text) are written as escapes (\n, \r, \t, \xNN).
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
};

// "<where>: <what>" — e.g. "config/robot.yaml:12: key 'legs[2].link_length': expected a
// positive number, got -0.3".
[[noreturn]] void fail(const std::string& where, const std::string& what);

// Shortest text that reads back to exactly x ("0.1", not "0.10000000000000001"; "1e-09", not
// std::to_string's "0.000000"): how messages quote a number.
std::string exact_number(double x);

// Throws unless `path` names an existing file (not a directory, not missing): every
// reader calls it before opening, so the user reads "is a directory" rather than a library's
// stream error.
void require_input_file(const std::string& path);
// Every file is read whole by read_input_file (input_file.hpp), bounded by its kind.

}  // namespace vcloe
