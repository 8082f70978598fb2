// Trajectory file (docs/trajectory-file.md): excitation::parse_trajectory, and
// trajectory_to_yaml's output read back.
#include "fuzz_support.hpp"
#include "vcloe/excitation/fourier.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vcloe;
  const std::string text = fuzz::text_of(data, size);
  const auto read = [](const std::string& t) { return excitation::parse_trajectory(t, "trajectory.yaml"); };
  const auto trajectory = fuzz::read_or_refuse("trajectory.yaml", [&] { return read(text); });
  if (trajectory) fuzz::check_round_trip(*trajectory, "trajectory.yaml", read, excitation::trajectory_to_yaml);
  return 0;
}
