#pragma once
// Helpers shared by the specifications: the message of the vcloe::Error a call throws.
#include <functional>
#include <string>

#include "vcloe/core/error.hpp"

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

}  // namespace vcloe::test
