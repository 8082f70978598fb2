// Specification of what the live rig's roles say of a peer that handshakes correctly and then
// misbehaves (docs/robustness.md, "Input classes of session 18's probe", P and Q): the role names
// the peer and the message it did not get, and a pose stream no robot of the robot file can
// have is never servoed on.
#include <gtest/gtest.h>
#include <zmq.hpp>

#include <csignal>
#include <cmath>
#include <functional>

#include "cli_fixtures.hpp"
#include "rig_fixtures.hpp"
#include "rig_processes.hpp"
#include "vcloe/bridge/transport.hpp"
#include "vcloe/core/trace.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace cli_test;  // the rig fixtures (rig_fixtures.hpp)
namespace bridge = vcloe::bridge;

namespace test_cli_rig_peers {

// The test as the pose source: the robot's true pose at each exposure (its camera stream)
// passed on as `edit` makes it, after vision's hello, for the frames `keep` keeps; until the
// robot's end, `done()` or 30 s.
template <typename Edit, typename Done, typename Keep>
void relay_as_vision(const RigStreams& s, Edit edit, Done done, Keep keep) {
  zmq::context_t ctx;
  zmq::socket_t poses = publisher(ctx, s.poses);
  bridge::Subscriber camera(ctx, s.camera, bridge::Subscriber::Keep::All);
  Stamper stamp;
  const bridge::HelloMessage hello = vcloe::rig::hello_of(bridge::Role::Vision, {config_dir + "experiment.yaml", "", "", std::nullopt, ""});
  // As vision serve: its hello once the robot's came on the camera stream (so no pose of the
  // run can be missed), until the run's first pose.
  bool robot_heard = false, relaying = false;
  for (const auto t0 = std::chrono::steady_clock::now(); seconds_since(t0) < 30 && !done();) {
    if (robot_heard && !relaying) stamp.send(poses, hello);
    if (!bridge::Subscriber::wait_any({&camera}, 5ms)) continue;
    bool ended = false;
    while (auto m = camera.receive(0ms)) {
      robot_heard = robot_heard || std::holds_alternative<bridge::HelloMessage>(*m);
      if (auto* p = std::get_if<bridge::PoseMessage>(&*m); p && keep(p->frame)) {
        relaying = true;
        p->pose = edit(p->frame, p->pose);
        stamp.send(poses, *p);
      }
      ended = ended || std::holds_alternative<bridge::EndMessage>(*m);
    }
    if (ended) return;
  }
}

template <typename Edit, typename Done>
void relay_as_vision(const RigStreams& s, Edit edit, Done done) {
  relay_as_vision(s, edit, done, [](std::int64_t) { return true; });
}

}  // namespace test_cli_rig_peers

TEST(RigRun, APoseStreamNoRobotOfTheRobotFileCanHaveIsNeverServoedOn) {
  // A pose source in mm, in degrees from frame 20, or 50 mm off from frame 20: control commanded
  // joints up to 7865 rad and wrote the trace, exit 0, no word (the jump: stopped only when its
  // command left the joint range, 160 frames later). Now the first such pose is not acted on and
  // the run stops, said: out of the robot's reach, or farther than its drives can have moved.
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "peers-pose");
  const fs::path ref = reference(d, 1);
  using Edit = std::function<vcloe::Vec6d(std::int64_t, vcloe::Vec6d)>;
  struct Case {
    const char* name;
    Edit edit;
    const char* why;
  };
  const Case cases[] = {
      {"mm", [](std::int64_t, vcloe::Vec6d x) { return (x.head<3>() *= 1000, x); }, "out of the robot's reach"},
      {"degrees", [](std::int64_t j, vcloe::Vec6d x) { return (j >= 20 ? (x.tail<3>() *= 180 / M_PI, x) : x); },
       "out of the robot's reach"},
      {"jump", [](std::int64_t j, vcloe::Vec6d x) { return (j >= 20 ? (x(0) += 0.05, x) : x); },
       "would have moved"},
      // Probe 23, D: finite, valid and absurd — it ended at the trace writer's "row 21 … absurd".
      {"far", [](std::int64_t j, vcloe::Vec6d x) { return (j == 20 ? (x(0) = 2e6, x) : x); }, "which no trace holds"},
      {"huge", [](std::int64_t j, vcloe::Vec6d x) { return (j == 20 ? (x(2) = 1e300, x) : x); }, "which no trace holds"},
  };
  for (const auto& [name, edit, why] : cases) {
    const fs::path sub = d / name;
    fs::create_directories(sub);
    const RigStreams s(sub);
    Process robot("robot serve --hold 0 --start-timeout 5 --reference " + ref.string() + s.robot(),
                  sub / "robot.log");
    Process control("control --start-timeout 5 --reference " + ref.string() + " --out " + (sub / "o.csv").string() +
                        s.control(),
                    sub / "control.log");
    test_cli_rig_peers::relay_as_vision(s, edit, [&] { return control.wait(std::chrono::seconds(0)) >= 0; });
    EXPECT_EQ(control.wait(), 2) << name << "\n" << control.output();
    EXPECT_NE(control.output().find(" is none " + config_dir + "robot.yaml can have reached: "), std::string::npos)
        << name << "\n" << control.output();
    EXPECT_NE(control.output().find(why), std::string::npos) << name << "\n" << control.output();
    if (std::string(name) != "mm") {
      EXPECT_NE(control.output().find("the pose of frame 20 "), std::string::npos) << name << ": its first frame";
      EXPECT_NE(control.output().find("vcloe: error: control: the run ended early at frame 20: "), std::string::npos)
          << name << ": the controlled end\n" << control.output();
      EXPECT_NE(control.output().find("(the trace up to there is " + (sub / "o.csv").string() + ")"), std::string::npos)
          << name << "\n" << control.output();
      EXPECT_EQ(vcloe::read_trace((sub / "o.csv").string()).size(), 20u) << name << ": frames 0 to 19";
    }
    robot.kill(SIGTERM);  // it waits for the command never sent (its pose timeout, 2 s in lockstep)
    robot.wait();
  }
}

TEST(RigRun, APoseThatStopsFollowingTheCommandsIsSaidAsSuchNotAsAPoseTheRobotCannotHave) {
  // Probe 35, D: a source whose pose stayed put while the commands moved on wound the outer loop
  // up until its command left the joint range, and control called the pose, reachable, "none the
  // robot can have ... poses in m and rad?". Now the command is the outer loop's, the pose one
  // that did not follow.
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "peers-still");
  const fs::path ref = reference(d, 3);
  const RigStreams s(d);
  Process robot("robot serve --hold 0 --start-timeout 5 --reference " + ref.string() + s.robot(), d / "robot.log");
  Process control("control --start-timeout 5 --reference " + ref.string() + " --out " + (d / "o.csv").string() + s.control(),
                  d / "control.log");
  vcloe::Vec6d still = vcloe::Vec6d::Zero();
  test_cli_rig_peers::relay_as_vision(
      s, [&](std::int64_t j, vcloe::Vec6d x) { return j <= 20 ? (still = x) : still; },
      [&] { return control.wait(std::chrono::seconds(0)) >= 0; });
  EXPECT_EQ(control.wait(), 2) << control.output();
  EXPECT_NE(control.output().find("the outer loop's command for frame "), std::string::npos) << control.output();
  EXPECT_NE(control.output().find("the pose itself is within the joint range"), std::string::npos) << control.output();
  EXPECT_NE(control.output().find("the measured pose did not follow the commands"), std::string::npos) << control.output();
  EXPECT_EQ(control.output().find("poses in m and rad?"), std::string::npos) << control.output();
  robot.kill(SIGTERM);
  robot.wait();
}

TEST(RigRun, APoseSourceThatSkipsAFrameIsNamedNotTheController) {
  // Probe 36, R06 and R13: in lockstep, vision skipping frames 20 to 22 left the robot waiting for
  // a command the controller never had a pose to answer; the robot blamed the controller
  // ("controller heartbeat lost: no command for frame 20"). The pose stream is named now.
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "peers-skip");
  const fs::path ref = reference(d, 1);
  const RigStreams s(d);
  Process robot("robot serve --hold 0 --pose-timeout 0.3 --start-timeout 5 --reference " + ref.string() + s.robot(),
                d / "robot.log");
  Process control("control --start-timeout 5 --reference " + ref.string() + " --out " + (d / "o.csv").string() + s.control(),
                  d / "control.log");
  test_cli_rig_peers::relay_as_vision(
      s, [](std::int64_t, vcloe::Vec6d x) { return x; }, [&] { return control.wait(std::chrono::seconds(0)) >= 0; },
      [](std::int64_t j) { return j < 20 || j > 22; });
  EXPECT_EQ(control.wait(), 2) << control.output();
  EXPECT_EQ(robot.wait(), 2) << robot.output();
  EXPECT_NE(robot.output().find("(pose stream silent longer than the timeout): no pose of frame 20 on ipc://"),
            std::string::npos)
      << robot.output();
  EXPECT_EQ(robot.output().find("no command for frame"), std::string::npos) << robot.output();
  EXPECT_EQ(robot.output().find("controller lost"), std::string::npos) << robot.output();
}

TEST(RigRun, AControllerThatOnlyHeartbeatsIsNamedNotThePoseStream) {
  // From frame 50 the controller heartbeats and commands nothing: the lockstep robot waits for
  // the command and vision for the robot, so the robot said "pose stream silent".
  std::string robot;
  int vision = -1;
  const bridge::StatusMessage stop = run_as_controller(
      "heartbeat-only", "--hold 0.05 --pose-timeout 0.3",
      [](std::int64_t frame, const vcloe::Vec6d& hold) {
        return frame < 50 ? std::optional<bridge::CommandMessage>(hold_command(frame, hold)) : std::nullopt;
      },
      [](zmq::socket_t&, const bridge::CommandMessage&) {}, robot, vision);
  EXPECT_EQ(stop.reason, bridge::StopReason::HeartbeatLost) << robot;
  EXPECT_NE(robot.find("no command for frame 50 from the controller on ipc://"), std::string::npos) << robot;
  EXPECT_EQ(robot.find("(pose stream silent longer"), std::string::npos) << robot;
}

TEST(RigRun, ACommandForAFrameNotYetExposedIsRefusedNotTakenOverTheHonestNext) {
  // Frame 150's command sent at frame 50: taken, then frame 51's refused as "after frame 150".
  std::string robot;
  int vision = -1;
  const bridge::StatusMessage stop = run_as_controller(
      "future-frame", "--hold 0.05",
      [](std::int64_t frame, const vcloe::Vec6d& hold) { return hold_command(frame == 50 ? 150 : frame, hold); },
      [](zmq::socket_t&, const bridge::CommandMessage&) {}, robot, vision);
  EXPECT_EQ(stop.reason, bridge::StopReason::MalformedCommand) << robot;
  EXPECT_NE(robot.find("command for frame 150 before its pose: the newest frame exposed is 5"), std::string::npos)
      << robot;
  EXPECT_EQ(robot.find("after frame 150"), std::string::npos) << robot;
}

TEST(RigRun, AControllerWhosePoseSourceNeverSaysHelloNamesIt) {
  // The robot's hello heard, the pose source silent: control said "the robot did not start".
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "peers-silent-vision");
  const fs::path ref = reference(d, 1);
  const RigStreams s(d);
  Process robot("robot serve --hold 0 --start-timeout 1.5 --reference " + ref.string() + s.robot(), d / "robot.log");
  Process control("control --start-timeout 1 --reference " + ref.string() + " --out " + (d / "o.csv").string() + s.control(),
                  d / "control.log");
  EXPECT_EQ(control.wait(), 2) << control.output();
  EXPECT_NE(control.output().find("control: no hello from the pose source on " + s.poses + " (the robot's was heard) within 1 s"),
            std::string::npos)
      << control.output();
  robot.wait();
}
