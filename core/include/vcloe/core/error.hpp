#pragma once
// vcloe/core/error.hpp — the one exception type vcloe throws for bad input.
//
// Every error names where it came from (file, line, YAML key, CSV column) and what was
// expected, so that the command line can print it as a single line and exit non-zero.
#include <stdexcept>
#include <string>

namespace vcloe {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// "<where>: <what>" — e.g. "config/robot.yaml:12: key 'legs[2].link_length': expected a
// positive number, got -0.3".
[[noreturn]] void fail(const std::string& where, const std::string& what);

// Throws unless `path` names an existing file (not a directory, not missing): every
// reader calls it before opening, so the user reads "is a directory" rather than a library's
// stream error.
void require_input_file(const std::string& path);

}  // namespace vcloe
