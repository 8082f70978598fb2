#pragma once
// core/src/trace_columns.hpp (internal) — the column names of the trace CSV (docs/traces.md),
// shared by its writer (trace.cpp) and its reader (trace_csv.cpp).
#include <string>
#include <vector>

namespace vcloe::trace_columns {

// x, y, z, alpha, beta, gamma with a prefix: "" measured, "ref_", "true_".
inline std::vector<std::string> pose(const std::string& prefix) {
  std::vector<std::string> c;
  for (const char* p : {"x", "y", "z", "alpha", "beta", "gamma"}) c.push_back(prefix + p);
  return c;
}

// cmd_theta1 … cmd_theta6: the joint commands of a live run.
inline std::vector<std::string> command() {
  std::vector<std::string> c;
  for (int i = 1; i <= 6; ++i) c.push_back("cmd_theta" + std::to_string(i));
  return c;
}

}  // namespace vcloe::trace_columns
