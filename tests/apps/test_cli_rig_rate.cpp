// Specification of the robot's rate limit against a hostile controller (docs/protocol.md,
// "Safety"): the limit is per controller tick of robot time, from the command applied at the tick
// before. No heartbeat flood, frame-number jump, duplicate frame or time stamp lets a step through:
// a step beyond one camera period's reach stops the robot before any of it is applied, and one
// within reach is applied as far as the allowance ticks have refilled (at rest: at once).
#include <gtest/gtest.h>
#include <zmq.hpp>

#include <limits>

#include "cli_fixtures.hpp"
#include "rig_fixtures.hpp"
#include "rig_processes.hpp"
#include "vcloe/bridge/transport.hpp"

using namespace cli_test;  // the rig fixtures (rig_fixtures.hpp)
namespace bridge = vcloe::bridge;

namespace {

constexpr double kStep = 0.3;  // rad: the quoted bypass, 30 times what one tick allows at 10 rad/s

// The robot's final status when the test-controller holds the start until frame 49, then sends
// what `attack(frame, hold)` makes of each later pose (none: a heartbeat).
template <typename Attack>
bridge::StatusMessage attacked(const std::string& name, const std::string& robot_options, Attack attack,
                               std::string& robot, vcloe::Vec6d& hold) {
  int vision = -1;
  return run_as_controller(
      name, robot_options,
      [&](std::int64_t frame, const vcloe::Vec6d& h) -> std::optional<bridge::CommandMessage> {
        hold = h;
        if (frame < 50) return hold_command(frame, h);
        return attack(frame, h);
      },
      [](zmq::socket_t&, const bridge::CommandMessage&) {}, robot, vision);
}

::testing::AssertionResult stopped_where_it_stood(const bridge::StatusMessage& stop, const vcloe::Vec6d& hold) {
  for (int i = 0; i < 6; ++i)
    if (std::abs(stop.theta(i) - hold(i)) > 1e-3)
      return ::testing::AssertionFailure() << "joint " << i + 1 << " moved " << stop.theta(i) - hold(i) << " rad";
  return ::testing::AssertionSuccess();
}

bridge::CommandMessage stepped(std::int64_t frame, const vcloe::Vec6d& hold, double step) {
  bridge::CommandMessage c = hold_command(frame, hold);
  c.theta(0) += step;
  return c;
}

}  // namespace

// Lockstep: after frame 49, the next command names frame 150 (a second of frames on) with the
// step. Dividing by the frame gap allowed it (0.3 rad/s); per tick it is 50 ticks' worth. Such a
// command answers no pose yet exposed: refused as that now (RobotSchedule::frame_problem), before
// the rate limit sees it; either way the robot stops where it stood.
TEST(RigRun, AFrameNumberJumpDoesNotLetAStepThroughTheRateLimit) {
  std::string robot;
  vcloe::Vec6d hold;
  bool sent = false;
  const bridge::StatusMessage stop = attacked(
      "rate-frame-jump", "--hold 0.05",
      [&](std::int64_t, const vcloe::Vec6d& h) -> std::optional<bridge::CommandMessage> {
        if (sent) return std::nullopt;
        sent = true;
        return stepped(150, h, kStep);
      },
      robot, hold);
  EXPECT_EQ(stop.reason, bridge::StopReason::MalformedCommand) << robot;
  EXPECT_NE(robot.find("command for frame 150 before its pose"), std::string::npos) << robot;
  EXPECT_TRUE(stopped_where_it_stood(stop, hold)) << robot;
}

// Realtime: frames 50 to 149 get heartbeats only (the controller quiet but alive for a second),
// then frame 150's command steps.
TEST(RigRun, AHeartbeatFloodDoesNotLetAStepThroughTheRateLimit) {
  std::string robot;
  vcloe::Vec6d hold;
  const bridge::StatusMessage stop = attacked(
      "rate-heartbeats", "--clock realtime --pose-timeout 0.1 --heartbeat-timeout 0.1 --hold 0.05",
      [&](std::int64_t frame, const vcloe::Vec6d& h) -> std::optional<bridge::CommandMessage> {
        if (frame < 150) return std::nullopt;
        return stepped(frame, h, kStep);
      },
      robot, hold);
  EXPECT_EQ(stop.reason, bridge::StopReason::CommandRateLimit) << robot;
  EXPECT_TRUE(stopped_where_it_stood(stop, hold)) << robot;
}

// Lockstep: frame 50's command twice, the second with the step: refused as out of order, never applied.
TEST(RigRun, ADuplicateFrameWithAnotherCommandIsRefusedAndNeverApplied) {
  std::string robot;
  vcloe::Vec6d hold;
  int vision = -1;
  const bridge::StatusMessage stop = run_as_controller(
      "rate-duplicate", "--hold 0.05",
      [&](std::int64_t frame, const vcloe::Vec6d& h) {
        hold = h;
        return hold_command(frame, h);
      },
      [&](zmq::socket_t& socket, const bridge::CommandMessage& sent) {
        if (sent.frame != 50) return;
        Stamper again;
        again.next[bridge::MessageType::Command] = 51;
        again.send(socket, stepped(50, hold, kStep));
      },
      robot, vision);
  EXPECT_EQ(stop.reason, bridge::StopReason::MalformedCommand) << robot;
  EXPECT_NE(robot.find("command for frame 50 after frame 50"), std::string::npos) << robot;
  EXPECT_TRUE(stopped_where_it_stood(stop, hold)) << robot;
}

// Lockstep, at 6 rad/s: a step within reach (0.05 rad of the 0.06 rad one camera period allows), its
// exposure stamped 11 days ahead and then in the past: the stamps change nothing; the robot, at
// rest before it, applies it at its tick (a speed over a camera period: docs/protocol.md, "The
// rate limit"; no tick held back) and the run finishes.
TEST(RigRun, AStepWithinReachIsAppliedWhateverItsStamps) {
  std::string robot;
  vcloe::Vec6d hold;
  const bridge::StatusMessage end = attacked(
      "rate-ramp", "--hold 0.05 --max-command-speed 6",
      [&](std::int64_t frame, const vcloe::Vec6d& h) -> std::optional<bridge::CommandMessage> {
        bridge::CommandMessage c = stepped(frame, h, 0.05);
        c.header.exposure_ns = frame % 2 ? bridge::steady_now_ns() + 11LL * 86400 * 1000000000
                                         : std::numeric_limits<std::int64_t>::min();
        return c;
      },
      robot, hold);
  EXPECT_EQ(end.reason, bridge::StopReason::Finished) << robot;
  EXPECT_NE(robot.find("ticks held back by the rate limit 0)"), std::string::npos) << robot;
  EXPECT_NEAR(end.theta(0), hold(0) + 0.05, 2e-3) << "the platform followed the command";
}
