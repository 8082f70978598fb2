// Specification of the robot side's watchdog (bridge::SafetyMonitor, docs/protocol.md "Safety"):
// each rule trips exactly past its limit, says why with the values, and the first stop stays.
#include <gtest/gtest.h>

#include <vector>

#include "vcloe/bridge/safety.hpp"
#include "vcloe/core/error.hpp"

using namespace vcloe;
using bridge::SafetyLimits;
using bridge::SafetyMonitor;
using bridge::StopReason;

namespace {
SafetyLimits six_rad_per_s() {
  SafetyLimits l;
  l.max_command_speed = 6.0;
  return l;
}
SafetyMonitor started(SafetyLimits l = six_rad_per_s()) {
  SafetyMonitor m(l, 0.01, 0.001);
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

// The run's first pose may come late (a role descheduled as the run begins): until it comes the
// drives hold the start, so the longer first_pose_timeout applies; from it on, pose_timeout.
TEST(Safety, TheFirstPoseOfTheRunHasItsOwnLongerTimeout) {
  SafetyMonitor m = started();
  for (double t = 100.0; t < 100.3; t += 0.01) m.on_controller(t);
  EXPECT_FALSE(m.check(100.2));  // 200 ms without a pose since the start: within the 250 ms
  ASSERT_TRUE(m.check(100.2501));
  EXPECT_EQ(m.stop()->reason, StopReason::PoseTimeout);
  EXPECT_NE(m.stop()->detail.find("since the start (timeout for the first pose 250.000 ms)"), std::string::npos)
      << m.stop()->detail;
  SafetyMonitor n = started();
  n.on_controller(100.1);
  n.on_pose(100.1, true);  // the first pose 100 ms in: from now on 20 ms
  n.on_controller(100.12);
  EXPECT_FALSE(n.check(100.119));
  ASSERT_TRUE(n.check(100.1201));
  EXPECT_NE(n.stop()->detail.find("pose stream silent for 20.100 ms"), std::string::npos) << n.stop()->detail;
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

// The rate limit is a speed over a camera period, refilled by controller ticks of robot time
// (Tc = 1 ms, T_camera = 10 ms, 6 rad/s here: 6 mrad a tick, 60 mrad at most held): a command
// stream stepping once a camera period at up to that speed is applied untouched (as `vcloe run`
// applies it; the ramp held back a 2.46 rad/s reference, session 20's probe R), anything faster
// is ramped to at 6 mrad a tick, and over any n ticks a joint moves at most (n + 10) * 6 mrad.
TEST(Safety, ACameraRateStreamUpToTheLimitIsAppliedUntouched) {
  for (const double speed : {0.5, 2.46, 3.0, 5.9}) {
    SafetyMonitor m = started();
    Vec6d U = Vec6d::Zero();
    for (int frame = 0; frame < 30; ++frame) {
      U(0) += speed * 0.01;
      U(4) -= 0.5 * speed * 0.01;
      EXPECT_EQ(m.limit(U), U) << speed << " rad/s, frame " << frame << ": applied at its tick, to the last bit";
      for (int tick = 1; tick < 10; ++tick) m.limit(U);
    }
    EXPECT_EQ(m.limited_ticks(), 0u) << speed << " rad/s";
    EXPECT_FALSE(m.stop());
  }
}

TEST(Safety, TheCommandAppliedMovesAtMostTheRateLimitOverAnyWindowOfTicks) {
  // A controller sending a new command every tick, each 5 mrad to 40 mrad on (within reach, on
  // average far faster than 6 rad/s): ramped, never beyond 6 mrad a tick plus one reach.
  SafetyMonitor m = started();
  std::vector<double> applied{0.0};
  Vec6d U = Vec6d::Zero();
  for (int tick = 0; tick < 200; ++tick) {
    U(2) = m.applied()(2) + 0.005 + 0.035 * ((tick * 7) % 11) / 10.0;
    applied.push_back(m.limit(U)(2));
  }
  ASSERT_FALSE(m.stop());
  for (std::size_t a = 0; a < applied.size(); ++a)
    for (std::size_t b = a + 1; b < applied.size(); ++b)
      ASSERT_LE(applied[b] - applied[a], 0.006 * static_cast<double>(b - a) + 0.06 + 1e-12) << a << " to " << b;
  EXPECT_GT(m.limited_ticks(), 150u);
  EXPECT_GT(applied.back(), 0.006 * 200 - 1e-9) << "held back to the limit, not below it";
}

// Nothing a peer says moves the limit: not heartbeats for a second (the controller quiet but
// alive), not a frame number 100 frames on, not a duplicate or a time stamp. Only robot ticks do.
TEST(Safety, NoFloodOfHeartbeatsFrameJumpOrStampLetsAStepThrough) {
  for (const std::int64_t frame : {std::int64_t{1}, std::int64_t{150}, std::int64_t{1} << 40, std::int64_t{-1}}) {
    SafetyMonitor m = started();
    Vec6d U = Vec6d::Zero();
    for (int k = 0; k < 1000; ++k) m.on_controller(100.0 + k * 0.001);  // a second of heartbeats
    m.on_command(U, 0);
    EXPECT_EQ(m.limit(U), U);
    U(0) = 0.3;  // the 0.3 rad step, for frame `frame`
    m.on_command(U, frame);
    EXPECT_FALSE(m.stop()) << "in range: the command itself is fine";
    const Vec6d applied = m.limit(U);
    ASSERT_TRUE(m.stop()) << "frame " << frame;
    EXPECT_EQ(m.stop()->reason, StopReason::CommandRateLimit);
    EXPECT_EQ(applied(0), 0.0) << "the step is never applied, not even a tick of it";
    EXPECT_NE(m.stop()->detail.find("joint 1 is 0.3 rad from the 0 rad applied"), std::string::npos) << m.stop()->detail;
  }
}

TEST(Safety, ARampAtTheLimitIsFollowedAndOneFasterStops) {
  for (const double speed : {5.9, 6.1}) {
    SafetyMonitor m = started();
    Vec6d U = Vec6d::Zero();
    // A new command every camera period (10 ticks), each `speed` * 10 ms further on.
    for (int frame = 0; frame < 20 && !m.stop(); ++frame) {
      U(2) += speed * 0.01;
      for (int tick = 0; tick < 10 && !m.stop(); ++tick) m.limit(U);
    }
    EXPECT_EQ(static_cast<bool>(m.stop()), speed > 6) << speed << " rad/s";
    if (speed < 6) {
      EXPECT_EQ(m.applied(), U) << "5.9 rad/s: each command reached within its camera period";
    }
  }
}

TEST(Safety, AStepFromTheAppliedCommandNotFromTheLastMessageIsWhatCounts) {
  // Commands each within reach of the one before, but due before the one before was reached: the
  // distance counts from what the drives were given, not from the last message.
  SafetyMonitor m = started();
  Vec6d U = Vec6d::Zero();
  U(5) = 0.05;
  EXPECT_EQ(m.limit(U)(5), 0.05);  // at rest: the whole allowance (60 mrad), 10 mrad left
  U(5) = 0.1;
  m.limit(U);  // 16 mrad of the 50
  EXPECT_NEAR(m.applied()(5), 0.066, 1e-15);
  U(5) = 0.13;  // 30 mrad from the last message, 64 mrad from the 0.066 applied: beyond 60 mrad
  m.limit(U);
  ASSERT_TRUE(m.stop());
  EXPECT_EQ(m.stop()->reason, StopReason::CommandRateLimit);
  EXPECT_NEAR(m.applied()(5), 0.066, 1e-15);
}

TEST(Safety, TheFirstStopStaysAndNothingTripsBeforeTheStart) {
  SafetyMonitor m(SafetyLimits{}, 0.01, 0.001);
  EXPECT_FALSE(m.check(1e9));  // not started: the handshake may take its time
  m.start(0.0);
  m.on_malformed_command("a status message on the command stream");
  m.check(10.0);
  EXPECT_EQ(m.stop()->reason, StopReason::MalformedCommand);
}

TEST(Safety, AbsurdLimitsAreRefusedNamingTheKey) {
  SafetyLimits l;
  l.pose_timeout = 0;
  EXPECT_THROW(SafetyMonitor(l, 0.01, 0.001), Error);
  ASSERT_TRUE(l.problem());
  EXPECT_EQ(l.problem()->key, "pose_timeout");
  EXPECT_EQ(l.problem()->message, "pose_timeout: expected a time in (0, 60] s, got 0");
  l = {};
  l.max_command_speed = -1;
  ASSERT_TRUE(l.problem());
  EXPECT_EQ(l.problem()->key, "max_command_speed");
  EXPECT_FALSE(SafetyLimits{}.problem());
}
