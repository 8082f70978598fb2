#pragma once
// Shared by the pose-trace specifications (test_trace*.cpp): a temporary directory, a small
// trace with every column, a file of given text.
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "../test_support.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe::test::trace {

namespace fs = std::filesystem;

inline fs::path dir() {
  const fs::path d = fs::temp_directory_path() / ("vcloe-trace-" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}
inline PoseTrace sample_trace() {
  PoseTrace t;
  for (int i = 0; i < 5; ++i) {
    t.time.push_back(0.01 * i);
    Vec6d p;
    p << 0.1 * i, -0.2, 0.18 + 1e-7 * i, 0.001, 1.0 / 3.0, -0.05;
    t.measured.push_back(p);
    t.reference.push_back(p * 1.01);
    t.command.push_back(p * 0.5);
    t.truth.push_back(p * 0.99);
  }
  t.metadata = {{"source", "test"}, {"seed", 7}};
  return t;
}
using vcloe::test::error_of;
inline std::string write_text(const std::string& name, const std::string& text) {
  const fs::path p = dir() / name;
  std::ofstream(p) << text;
  return p.string();
}
inline const std::string kHeader = "time,x,y,z,alpha,beta,gamma\n";

}  // namespace vcloe::test::trace
