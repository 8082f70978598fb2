// Specification of the live rig's controlled stops (docs/protocol.md, "Processes"): a process
// that dies brings the robot to a controlled stop within two camera periods of the timeout, with
// the trace up to there on disk; a command outside the joint range stops it naming the joint.
#include <gtest/gtest.h>
#include <zmq.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <random>

#include "cli_fixtures.hpp"
#include "rig_fixtures.hpp"
#include "rig_processes.hpp"
#include "vcloe/bridge/transport.hpp"
#include "vcloe/core/trace.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace cli_test;  // the rig fixtures (rig_fixtures.hpp)
namespace bridge = vcloe::bridge;

namespace {

// What a test listening beside the rig sees of the robot's stop.
struct StopSeen {
  double last_event = -1;  // s since start: the last pose (or command) before the stop
  double stopped = -1;     // s since start: the first status saying stopped
  bridge::StopReason reason = bridge::StopReason::None;
  bool killed = false;     // the kill came before the stop (else the run tested nothing)
};

// Listens to the status and to `watched` (the pose or the command stream) until the robot
// reports a stop; calls `kill()` once `kill_after` messages of the watched stream were seen.
template <typename Kill>
StopSeen watch_until_stopped(const RigStreams& s, const std::string& watched, int kill_after, Kill kill) {
  zmq::context_t ctx;
  bridge::Subscriber status(ctx, s.status, bridge::Subscriber::Keep::All);
  bridge::Subscriber stream(ctx, watched, bridge::Subscriber::Keep::All, 100000);
  StopSeen seen;
  const auto t0 = std::chrono::steady_clock::now();
  int count = 0;
  while (seen.stopped < 0 && seconds_since(t0) < 60) {
    bridge::Subscriber::wait_any({&status, &stream}, 1ms);
    while (auto m = stream.receive(0ms))
      if ((std::holds_alternative<bridge::PoseMessage>(*m) || std::holds_alternative<bridge::CommandMessage>(*m)) &&
          seen.stopped < 0) {
        seen.last_event = seconds_since(t0);
        if (++count == kill_after) {
          kill();
          seen.killed = true;
        }
      }
    while (auto m = status.receive(0ms))
      if (const auto* st = std::get_if<bridge::StatusMessage>(&*m); st && st->state == bridge::RobotState::Stopped) {
        seen.stopped = seconds_since(t0);
        seen.reason = st->reason;
      }
  }
  return seen;
}

// The three processes in realtime on an 8 s reference, started one by one. Both timeouts
// 0.1 s: longer than a process on a shared test machine is descheduled, so only the kill stops.
constexpr double kTimeout = 0.1, kCameraPeriod = 0.01;
struct RealtimeRig {
  fs::path dir, ref, out;
  RigStreams streams;
  mutable Process robot, vision, control;
  explicit RealtimeRig(const std::string& name)
      : dir(cli_test::fresh_dir("vcloe-rig", name)),
        ref(reference(dir, 8)),
        out(dir / "trace.csv"),
        streams(dir),
        robot("robot serve --clock realtime --pose-timeout " + std::to_string(kTimeout) + " --heartbeat-timeout " +
                  std::to_string(kTimeout) + " --reference " + ref.string() + streams.robot(),
              dir / "robot.log"),
        vision("vision serve" + streams.vision(), dir / "vision.log"),
        control("control --clock realtime --robot-timeout 0.5 --reference " + ref.string() + " --out " + out.string() +
                    streams.control(),
                dir / "control.log") {}
};

// The robot reported the stop for `reason` within 2 camera periods of the timeout.
::testing::AssertionResult stopped_in_time(const StopSeen& seen, bridge::StopReason reason) {
  if (seen.stopped <= 0) return ::testing::AssertionFailure() << "the robot never reported a stop";
  if (seen.reason != reason) return ::testing::AssertionFailure() << "stop reason " << static_cast<int>(seen.reason);
  const double delay = seen.stopped - seen.last_event;
  std::printf("stopped %.1f ms after the last message (timeout %.0f ms)\n", delay * 1e3, kTimeout * 1e3);
  if (delay > kTimeout + 2 * kCameraPeriod) return ::testing::AssertionFailure() << "stopped " << delay << " s after";
  return ::testing::AssertionSuccess();
}

// Starts the rig and kills one role (`kill_role(rig)`) after 150 messages of `watched` (a member
// of RigStreams): up to three runs, for a run in which the robot stopped before the kill tested
// nothing — under the sanitizers on a loaded machine the first pose of a run can come later than
// the 0.1 s timeout (seen in CI: stopped 0.7 s into the run, no pose seen). Said, not hidden.
template <typename KillRole>
std::pair<std::unique_ptr<RealtimeRig>, StopSeen> run_and_kill(const std::string& name, std::string RigStreams::*watched,
                                                               KillRole kill_role) {
  for (int attempt = 1;; ++attempt) {
    auto rig = std::make_unique<RealtimeRig>(name + "-" + std::to_string(attempt));
    const StopSeen seen = watch_until_stopped(rig->streams, rig->streams.*watched, 150, [&] { kill_role(*rig); });
    if (seen.killed || attempt == 3) return {std::move(rig), seen};
    std::printf("run %d: the robot stopped (reason %d) %.3f s in, before the kill; again\n", attempt,
                static_cast<int>(seen.reason), seen.stopped);
  }
}

}  // namespace

TEST(RigRun, KillingTheVisionProcessStopsTheRobotWithinTwoCameraPeriodsOfThePoseTimeout) {
  const auto [rig, seen] = run_and_kill("kill-vision", &RigStreams::poses, [](RealtimeRig& r) { r.vision.kill(SIGKILL); });
  Process &robot = rig->robot, &control = rig->control;
  const fs::path& out = rig->out;
  ASSERT_TRUE(seen.killed) << "the robot stopped before the kill in three runs";
  ASSERT_TRUE(stopped_in_time(seen, bridge::StopReason::PoseTimeout)) << robot.output();
  EXPECT_EQ(robot.wait(), 2);
  EXPECT_NE(robot.output().find("controlled stop at t = "), std::string::npos) << robot.output();
  EXPECT_EQ(control.wait(), 2);
  EXPECT_NE(control.output().find("the run ended early at frame"), std::string::npos) << control.output();
  // The trace up to the stop: every pose the controller received, on the exposure grid.
  const vcloe::PoseTrace t = vcloe::read_trace(out.string());
  EXPECT_GE(t.size(), 140u);  // the last poses vision sent may die with it
  EXPECT_LT(t.size(), 800u);
  for (std::size_t j = 0; j < t.size(); ++j) ASSERT_NEAR(t.time[j], 0.01 * static_cast<double>(j), 1e-12);
  const auto meta = nlohmann::json::parse(text(out.string() + ".meta.json"));
  EXPECT_EQ(meta["stopped"]["frames"], t.size());
  EXPECT_NE(meta["stopped"]["reason"].get<std::string>().find("pose stream silent"), std::string::npos);
  EXPECT_FALSE(fs::exists(out.string() + ".partial"));
}

TEST(RigRun, KillingTheControllerStopsTheRobotWithinTwoCameraPeriodsOfTheHeartbeatTimeout) {
  const auto [rig, seen] =
      run_and_kill("kill-control", &RigStreams::commands, [](RealtimeRig& r) { r.control.kill(SIGKILL); });
  Process &robot = rig->robot, &vision = rig->vision;
  const fs::path& out = rig->out;
  ASSERT_TRUE(seen.killed) << "the robot stopped before the kill in three runs";
  ASSERT_TRUE(stopped_in_time(seen, bridge::StopReason::HeartbeatLost)) << robot.output();
  EXPECT_EQ(robot.wait(), 2);
  EXPECT_NE(robot.output().find("nothing from the controller"), std::string::npos) << robot.output();
  EXPECT_EQ(vision.wait(), 0) << vision.output();  // it ends when the robot has stopped
  // The controller had no chance to write its trace; every row it had final is on disk.
  const vcloe::PoseTrace partial = vcloe::read_trace(out.string() + ".partial");
  EXPECT_GE(partial.size(), 140u);
  for (std::size_t j = 0; j < partial.size(); ++j) ASSERT_NEAR(partial.time[j], 0.01 * static_cast<double>(j), 1e-12);
}

TEST(RigRun, ACommandOutsideTheJointRangeBringsTheRobotToAControlledStopNamingTheJoint) {
  // The test is the controller: it holds the start angles, then at frame 50 commands joint 5
  // past the robot file's limit (0.9948 rad).
  std::string robot;
  int vision = -1;
  vcloe::Vec6d hold = vcloe::Vec6d::Zero();
  const bridge::StatusMessage stop = run_as_controller(
      "out-of-range", "--hold 0.1",
      [&](std::int64_t frame, const vcloe::Vec6d& h) {
        hold = h;
        bridge::CommandMessage c = hold_command(frame, h);
        if (frame == 50) c.theta(4) = 1.0;
        return c;
      },
      [](zmq::socket_t&, const bridge::CommandMessage&) {}, robot, vision);
  EXPECT_EQ(stop.reason, bridge::StopReason::CommandOutOfRange);
  EXPECT_EQ(stop.last_command, 49u) << "the last command applied is frame 49's; frame 50's never is";
  EXPECT_NE(robot.find("command for frame 50: joint 5 at 1 rad, outside +-0.9948 rad"), std::string::npos) << robot;
  EXPECT_EQ(vision, 0);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(stop.theta(i), hold(i), 1e-3) << "it held where it stood";
}

TEST(RigRun, EachRoleTakesSIGHUPAsAStopSignalNotItsDefaultAction) {
  // A role started by hand whose terminal or ssh session closed died by SIGHUP's default action
  // (exit 129): no controlled stop, no line, the rows left without a word. Each now takes it as it
  // takes SIGINT and SIGTERM (core/subprocess.hpp, kStopSignals).
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "sighup");
  const std::string ref = config_dir + "reference.yaml";
  struct Role {
    const char* name;
    std::string args;
    const char* bound;  // the stream it binds: there once its handlers are installed
    const char* said;
  };
  const RigStreams s(d);
  const Role roles[] = {
      {"robot", "robot serve --hold 0 --start-timeout 30 --reference " + ref + s.robot(), "status",
       "robot serve: interrupted by SIGHUP before the run began"},
      {"vision", "vision serve --start-timeout 30" + s.vision(), "poses", "vision serve: interrupted by SIGHUP"},
      {"control", "control --start-timeout 30 --reference " + ref + " --out " + (d / "o.csv").string() + s.control(),
       "commands", "control: interrupted by SIGHUP before the run began"},
  };
  for (const Role& r : roles) {
    fs::remove(d / r.bound);
    Process p(r.args, d / (std::string(r.name) + ".log"));
    for (int i = 0; i < 2000 && !fs::exists(d / r.bound); ++i) std::this_thread::sleep_for(10ms);
    ASSERT_TRUE(fs::exists(d / r.bound)) << r.name << "\n" << p.output();
    p.kill(SIGHUP);
    EXPECT_EQ(p.wait(std::chrono::seconds(20)), 2) << r.name << "\n" << p.output();
    EXPECT_NE(p.output().find(r.said), std::string::npos) << r.name << "\n" << p.output();
  }
  EXPECT_FALSE(fs::exists(d / "o.csv.partial"));
}
