#pragma once
// vcloe/core/report.hpp — what a library workflow hands back to the command line: its result
// as JSON and as the text a person reads, and the fixed-point formatter the texts use.
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace vcloe {

// Printed as `json.dump(2)` with --json, else as `text` (each line ending in '\n').
struct Report {
  nlohmann::json json = nlohmann::json::object();
  std::string text;
  std::string print(bool as_json) const { return as_json ? json.dump(2) + "\n" : text; }
};

// v with a fixed number of digits after the point.
inline std::string fixed(double v, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << v;
  return o.str();
}

}  // namespace vcloe
