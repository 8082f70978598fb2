// Specification of hw/virtual_robot: the stand-in for real hardware holds a commanded pose
// with its hidden drive gains, and a run that goes wrong ends in a named safety stop instead
// of a recorded trace of a collapsed robot.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "vcloe/hw/virtual_robot.hpp"
#include "vcloe/sim/kinematics.hpp"
#include "vcloe/sim/robot.hpp"

using namespace vcloe;

namespace {
sim::RobotFile truth() { return sim::load_robot(std::string(VCLOE_SOURCE_DIR) + "/config/truth.yaml"); }

Vec6d home_command(const sim::RobotModel& m) {
  Vec6d theta;
  EXPECT_TRUE(sim::inverse_kinematics<double>(m, m.home, theta));
  return theta;
}
}  // namespace

TEST(VirtualRobot, StartsStandingWithItsDrivesHoldingThePose) {
  // A robot is switched on and standing before an experiment starts: from the first tick its
  // drives' integrators carry the weight (the truth's holding torques), so holding the start
  // command keeps the pose. Left at zero they let the 26 kg platform sag before the
  // integrators caught up (0.75 mm, 2.6 mrad at the start of config/reference.yaml, docs/loop.md).
  const sim::RobotFile t = truth();
  const sim::RobotModel& m = t.model;
  hw::VirtualRobot robot(m, t.lambda, m.home, {});
  const Vec6d U = home_command(m);
  double worst_mm = 0, worst_mrad = 0;
  for (int k = 0; k < 1000; ++k) {
    ASSERT_TRUE(robot.step(U)) << robot.failure();
    worst_mm = std::max(worst_mm, (robot.pose() - m.home).head<3>().norm() * 1e3);
    worst_mrad = std::max(worst_mrad, (robot.pose() - m.home).tail<3>().norm() * 1e3);
  }
  std::printf("virtual robot holding home for 1 s: max %.2e mm, %.2e mrad from home\n", worst_mm, worst_mrad);
  EXPECT_LT(worst_mm, 1e-4);   // what remains is the engines' difference (2 nm measured)
  EXPECT_LT(worst_mrad, 1e-3);
}

TEST(VirtualRobot, UnstableDrivesTripTheSafetyStop) {
  sim::RobotFile t = truth();
  const sim::RobotModel& m = t.model;
  t.lambda(sim::kGainD) = 400;  // kd / Tc far beyond what 1 kHz sampling keeps stable
  hw::VirtualRobot robot(m, t.lambda, m.home, {});
  const Vec6d U = home_command(m);
  bool stopped = false;
  for (int k = 0; k < 5000 && !stopped; ++k) {
    stopped = !robot.step(U);
    if (!stopped) {
      ASSERT_TRUE(robot.pose().allFinite());
    }
  }
  ASSERT_TRUE(stopped) << "a robot shaking itself apart must end the run; pose " << robot.pose().transpose()
                       << " closure " << robot.closure_error();
  EXPECT_NE(robot.failure().find("safety stop"), std::string::npos) << robot.failure();
}
