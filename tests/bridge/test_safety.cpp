// Specification of the robot side's watchdog (bridge::SafetyMonitor, docs/protocol.md "Safety"):
// each rule trips exactly past its limit, says why with the values, and the first stop stays.
#include <gtest/gtest.h>

#include "vcloe/bridge/safety.hpp"
#include "vcloe/core/error.hpp"

using namespace vcloe;
using bridge::SafetyLimits;
using bridge::SafetyMonitor;
using bridge::StopReason;

namespace {
SafetyMonitor started(SafetyLimits l = {}) {
  SafetyMonitor m(l, 0.01);
  m.start(100.0);
  return m;
}
}  // namespace

TEST(Safety, APoseStreamSilentPastTheTimeoutStops) {
  SafetyMonitor m = started();
  m.on_controller(100.019);
  m.on_pose(100.01, true);
  EXPECT_FALSE(m.check(100.029));  // 19 ms after the last pose: within the 20 ms
  m.on_controller(100.03);
  const auto& stop = m.check(100.0301);
  ASSERT_TRUE(stop);
  EXPECT_EQ(stop->reason, StopReason::PoseTimeout);
  EXPECT_NE(stop->detail.find("20.100 ms (timeout 20.000 ms)"), std::string::npos) << stop->detail;
}

TEST(Safety, AQuietControllerPastTheHeartbeatTimeoutStops) {
  SafetyMonitor m = started();
  for (double t = 100.0; t < 100.06; t += 0.01) m.on_pose(t, true);
  m.on_controller(100.0);
  EXPECT_FALSE(m.check(100.049));
  ASSERT_TRUE(m.check(100.051));
  EXPECT_EQ(m.stop()->reason, StopReason::HeartbeatLost);
}

TEST(Safety, InvalidPosesInARowStopOnlyAtTheLimit) {
  SafetyMonitor m = started();
  for (int k = 0; k < 4; ++k) m.on_pose(100.0, false);
  m.on_pose(100.0, true);  // a valid pose resets the count
  for (int k = 0; k < 4; ++k) m.on_pose(100.0, false);
  EXPECT_FALSE(m.stop());
  m.on_pose(100.0, false);
  ASSERT_TRUE(m.stop());
  EXPECT_EQ(m.stop()->reason, StopReason::InvalidPoses);
}

TEST(Safety, ACommandOutsideTheJointRangeStopsNamingTheJoint) {
  SafetyMonitor m = started();
  Vec6d U = Vec6d::Zero();
  U(3) = 0.9949;  // the default limit is 0.9948 rad
  m.on_command(U, 7);
  ASSERT_TRUE(m.stop());
  EXPECT_EQ(m.stop()->reason, StopReason::CommandOutOfRange);
  EXPECT_NE(m.stop()->detail.find("joint 4"), std::string::npos) << m.stop()->detail;
  SafetyMonitor n = started();
  U(3) = std::nan("");
  n.on_command(U, 7);
  EXPECT_TRUE(n.stop());
}

TEST(Safety, ACommandStepFasterThanTheRateLimitStops) {
  SafetyMonitor m = started();
  Vec6d U = Vec6d::Zero();
  m.on_command(U, -1);
  U(0) = 0.059;  // 5.9 rad/s over one camera period: allowed
  m.on_command(U, 0);
  U(0) = 0.059 + 0.11;  // 0.11 rad over the two periods since frame 0: 5.5 rad/s, allowed
  m.on_command(U, 2);
  EXPECT_FALSE(m.stop());
  U(0) += 0.061;  // 6.1 rad/s
  m.on_command(U, 3);
  ASSERT_TRUE(m.stop());
  EXPECT_EQ(m.stop()->reason, StopReason::CommandRateLimit);
}

TEST(Safety, TheFirstStopStaysAndNothingTripsBeforeTheStart) {
  SafetyMonitor m(SafetyLimits{}, 0.01);
  EXPECT_FALSE(m.check(1e9));  // not started: the handshake may take its time
  m.start(0.0);
  m.on_malformed_command("a status message on the command stream");
  m.check(10.0);
  EXPECT_EQ(m.stop()->reason, StopReason::MalformedCommand);
}

TEST(Safety, AbsurdLimitsAreRefusedNamingTheKey) {
  SafetyLimits l;
  l.pose_timeout = 0;
  EXPECT_THROW(SafetyMonitor(l, 0.01), Error);
  ASSERT_TRUE(l.problem());
  EXPECT_EQ(l.problem()->key, "pose_timeout");
  EXPECT_EQ(l.problem()->message, "pose_timeout: expected a time in (0, 60] s");
  l = {};
  l.max_command_speed = -1;
  ASSERT_TRUE(l.problem());
  EXPECT_EQ(l.problem()->key, "max_command_speed");
  EXPECT_FALSE(SafetyLimits{}.problem());
}
