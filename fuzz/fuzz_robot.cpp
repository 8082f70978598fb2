// Robot file (docs/robot-file.md): sim::parse_robot, with and without the inertia consistency
// required of truth files, and robot_to_yaml's output read back.
#include "fuzz_support.hpp"
#include "vcloe/sim/robot.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vcloe;
  const std::string text = fuzz::text_of(data, size);
  const auto robot = fuzz::read_or_refuse("robot.yaml", [&] { return sim::parse_robot(text, "robot.yaml"); });
  if (!robot) return 0;
  fuzz::read_or_refuse("robot.yaml", [&] { return sim::parse_robot(text, "robot.yaml", true); });
  fuzz::check_round_trip(
      *robot, "robot.yaml", [](const std::string& t) { return sim::parse_robot(t, "robot.yaml"); },
      [](const sim::RobotFile& r) { return sim::robot_to_yaml(r.model, r.lambda); });
  return 0;
}
