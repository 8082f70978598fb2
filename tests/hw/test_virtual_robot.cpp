// Specification of hw/virtual_robot: the stand-in for real hardware holds a commanded pose
// with its hidden drive gains, and a run that goes wrong ends in a named safety stop instead
// of a recorded trace of a collapsed robot.
#include <gtest/gtest.h>

#include "vcloe/hw/virtual_robot.hpp"
#include "vcloe/sim/kinematics.hpp"
#include "vcloe/sim/robot.hpp"

using namespace vcloe;

namespace {
sim::RobotModel truth() { return sim::load_robot(std::string(VCLOE_SOURCE_DIR) + "/config/truth.yaml"); }

Vec6d home_command(const sim::RobotModel& m) {
  Vec6d theta;
  EXPECT_TRUE(sim::inverse_kinematics<double>(m, m.home, theta));
  return theta;
}
}  // namespace

TEST(VirtualRobot, DrivesHoldTheCommandedHomePose) {
  const sim::RobotModel m = truth();
  hw::VirtualRobotOptions o;
  o.noise_sigma.setZero();
  hw::VirtualRobot robot(m, m.home, o);
  const Vec6d U = home_command(m);
  for (int k = 0; k < 2000; ++k) ASSERT_TRUE(robot.step(U)) << robot.failure();
  // After 2 s the drives' integrators carry the weight: the pose is back near home (without
  // them it falls by decimetres, see below).
  EXPECT_LT((robot.pose() - m.home).head<3>().norm(), 5e-4);  // Coulomb friction: not exactly
  EXPECT_LT((robot.pose() - m.home).tail<3>().norm(), 2e-3);
  EXPECT_EQ(robot.measure(robot.pose()), robot.pose());  // noise off
}

TEST(VirtualRobot, CollapsingRobotTripsTheSafetyStop) {
  sim::RobotModel m = truth();
  m.lambda(sim::kGainP) = 1e-3;  // drives that cannot carry the platform
  m.lambda(sim::kGainI) = 1e-3;
  m.lambda(sim::kGainD) = 1e-3;
  hw::VirtualRobot robot(m, m.home, {});
  const Vec6d U = home_command(m);
  bool stopped = false;
  for (int k = 0; k < 5000 && !stopped; ++k) {
    stopped = !robot.step(U);
    if (!stopped) {
      ASSERT_TRUE(robot.pose().allFinite());
    }
  }
  ASSERT_TRUE(stopped) << "a platform falling under gravity must end the run; pose " << robot.pose().transpose()
                       << " closure " << robot.closure_error();
  EXPECT_NE(robot.failure().find("safety stop"), std::string::npos) << robot.failure();
}
