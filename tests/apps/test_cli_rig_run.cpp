// Specification of the live rig's processes (docs/protocol.md, "Processes"): `vcloe rig run`
// records what the in-process run records; a process that dies brings the robot to a controlled
// stop within two camera periods of the timeout, with the trace up to there on disk; malformed
// frames on the sockets are counted and dropped while the run goes on.
#include <gtest/gtest.h>
#include <zmq.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <random>

#include "cli_fixtures.hpp"
#include "rig_processes.hpp"
#include "vcloe/bridge/transport.hpp"
#include "vcloe/core/trace.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using cli_test::Process;
using cli_test::RigStreams;
namespace bridge = vcloe::bridge;

namespace {

std::string text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The first `columns` comma-separated columns of every line.
std::string columns(const std::string& csv, int n) {
  std::stringstream in(csv), out;
  for (std::string line; std::getline(in, line);) {
    std::size_t at = 0;
    for (int c = 0; c < n && at != std::string::npos; ++c) at = line.find(',', at + (c ? 1 : 0));
    out << line.substr(0, at) << "\n";
  }
  return out.str();
}

fs::path reference(const fs::path& dir, int seconds) {
  const fs::path ref = dir / "reference.yaml";
  EXPECT_EQ(cli_test::vcloe("trajectory random --seed 4 --duration " + std::to_string(seconds) + " --out " + ref.string())
                .status,
            0);
  return ref;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST(RigRun, LockstepRecordsTheSameTraceAsTheInProcessRun) {
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "lockstep");
  const fs::path ref = reference(d, 2);
  const auto run = cli_test::vcloe("run --seed 7 --reference " + ref.string() + " --out " + (d / "run.csv").string());
  ASSERT_EQ(run.status, 0) << run.out;
  const auto rig = cli_test::vcloe("rig run --clock lockstep --seed 7 --reference " + ref.string() + " --out " +
                                   (d / "rig.csv").string());
  ASSERT_EQ(rig.status, 0) << rig.out;
  // time, reference, measured and command columns: byte for byte (the in-process run also has truth).
  const std::string in_process = columns(text(d / "run.csv"), 19);
  EXPECT_EQ(columns(text(d / "rig.csv"), 19), in_process);
  EXPECT_EQ(std::count(in_process.begin(), in_process.end(), '\n'), 201);
  const auto meta = nlohmann::json::parse(text(d / "rig.csv.meta.json"));
  EXPECT_EQ(meta["source"], "rig");
  EXPECT_EQ(meta["stream"]["sequence_gaps"], 0);
  EXPECT_EQ(meta["stream"]["missing_frames"].size(), 0u);
  EXPECT_EQ(meta["stream"]["publish_to_receive_ms"].size(), 200u);
  EXPECT_FALSE(meta.contains("stopped"));
  EXPECT_FALSE(fs::exists(d / "rig.csv.partial"));
}

TEST(RigRun, RealtimeOverTcpAgreesWithTheInProcessRunWithinTheCameraNoise) {
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "realtime");
  const fs::path ref = reference(d, 2);
  ASSERT_EQ(cli_test::vcloe("run --reference " + ref.string() + " --out " + (d / "run.csv").string()).status, 0);
  // Timeouts of 0.2 s: on a shared test machine a process may be descheduled for longer than
  // the 20 ms default, which would (rightly) stop the robot; this test is about agreement.
  const auto rig = cli_test::vcloe("rig run --clock realtime --endpoints tcp --pose-timeout 0.2 --heartbeat-timeout 0.2 "
                                   "--reference " + ref.string() + " --out " + (d / "rig.csv").string());
  ASSERT_EQ(rig.status, 0) << rig.out;
  const vcloe::PoseTrace a = vcloe::read_trace((d / "run.csv").string()), b = vcloe::read_trace((d / "rig.csv").string());
  ASSERT_EQ(a.size(), b.size());
  // Within the camera noise: equal when every command is on time (as measured on a quiet
  // machine); a command that comes late on a loaded one moves the robot a little: per channel
  // the RMS difference stays below the camera's sigma and the largest below 10 sigma.
  const double noise[6] = {2e-5, 2e-5, 2e-5, 5e-5, 5e-5, 5e-5};  // the camera's sigma (m, rad)
  for (int c = 0; c < 6; ++c) {
    double sum_sq = 0, largest = 0;
    for (std::size_t j = 0; j < a.size(); ++j) {
      const double d = std::abs(a.measured[j](c) - b.measured[j](c));
      sum_sq += d * d;
      largest = std::max(largest, d);
    }
    EXPECT_LE(std::sqrt(sum_sq / static_cast<double>(a.size())), noise[c]) << "channel " << c;
    EXPECT_LE(largest, 10 * noise[c]) << "channel " << c;
  }
  const auto meta = nlohmann::json::parse(text(d / "rig.csv.meta.json"));
  EXPECT_EQ(meta["stream"]["sequence_gaps"], 0);
  EXPECT_EQ(meta["stream"]["missing_frames"].size(), 0u);
  EXPECT_GT(meta["stream"]["latency_ms"]["max"].get<double>(), 0.0);
}

namespace {

// Random and mutated frames: random bytes, a flipped byte, truncated, extended (all malformed).
struct Garbage {
  std::mt19937_64 rng{11};
  int sent = 0;
  void send(zmq::socket_t& socket, int n, const std::string& good) {
    for (int i = 0; i < n; ++i, ++sent) {
      std::string f = good;
      switch (rng() % 4) {
        case 0: f = std::string(rng() % 200, '\0'); for (char& c : f) c = static_cast<char>(rng()); break;
        case 1: f[rng() % f.size()] ^= static_cast<char>(1 + rng() % 255); break;
        case 2: f.resize(rng() % f.size()); break;
        default: f += std::string(1 + rng() % 16, 'x'); break;
      }
      socket.send(zmq::buffer(f), zmq::send_flags::none);
    }
  }
};

// A PUB socket that keeps everything it is given (a test flooding a subscriber).
zmq::socket_t publisher(zmq::context_t& ctx, const std::string& endpoint) {
  zmq::socket_t s(ctx, zmq::socket_type::pub);
  s.set(zmq::sockopt::sndhwm, 1000000);
  s.bind(endpoint);
  return s;
}

// Stamps and sends a well-formed message (one sequence per type, as a Publisher does).
struct Stamper {
  std::map<bridge::MessageType, std::uint64_t> next;
  void send(zmq::socket_t& socket, bridge::Message m) {
    std::visit([&](auto& v) { v.header.sequence = next[bridge::type_of(m)]++, v.header.publish_ns = bridge::steady_now_ns(); }, m);
    socket.send(zmq::buffer(bridge::encode(m)), zmq::send_flags::none);
  }
};

// What a test listening beside the rig sees of the robot's stop.
struct StopSeen {
  double last_event = -1;  // s since start: the last pose (or command) before the stop
  double stopped = -1;     // s since start: the first status saying stopped
  bridge::StopReason reason = bridge::StopReason::None;
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
      if (!std::holds_alternative<bridge::HeartbeatMessage>(*m) && seen.stopped < 0) {
        seen.last_event = seconds_since(t0);
        if (++count == kill_after) kill();
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

}  // namespace

TEST(RigRun, KillingTheVisionProcessStopsTheRobotWithinTwoCameraPeriodsOfThePoseTimeout) {
  const RealtimeRig rig("kill-vision");
  const RigStreams& s = rig.streams;
  Process &robot = rig.robot, &vision = rig.vision, &control = rig.control;
  const fs::path& out = rig.out;
  const StopSeen seen = watch_until_stopped(s, s.poses, 150, [&] { vision.kill(SIGKILL); });
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
  const RealtimeRig rig("kill-control");
  const RigStreams& s = rig.streams;
  Process &robot = rig.robot, &vision = rig.vision, &control = rig.control;
  const fs::path& out = rig.out;
  const StopSeen seen = watch_until_stopped(s, s.commands, 150, [&] { control.kill(SIGKILL); });
  ASSERT_TRUE(stopped_in_time(seen, bridge::StopReason::HeartbeatLost)) << robot.output();
  EXPECT_EQ(robot.wait(), 2);
  EXPECT_NE(robot.output().find("nothing from the controller"), std::string::npos) << robot.output();
  EXPECT_EQ(vision.wait(), 0) << vision.output();  // it ends when the robot has stopped
  // The controller had no chance to write its trace; every row it had final is on disk.
  const vcloe::PoseTrace partial = vcloe::read_trace(out.string() + ".partial");
  EXPECT_GE(partial.size(), 140u);
  for (std::size_t j = 0; j < partial.size(); ++j) ASSERT_NEAR(partial.time[j], 0.01 * static_cast<double>(j), 1e-12);
}

TEST(RigRun, TenThousandMalformedFramesOnThePoseStreamAreCountedAndTheRunGoesOn) {
  // The test is the vision process: it relays the robot's true poses as measured and, between
  // them, sends 10,000 random and mutated frames to the robot's and the controller's sockets.
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "malformed");
  const fs::path ref = reference(d, 2);
  const RigStreams s(d);
  const fs::path out = d / "trace.csv";
  zmq::context_t ctx;
  zmq::socket_t poses = publisher(ctx, s.poses);
  bridge::Subscriber camera(ctx, s.camera, bridge::Subscriber::Keep::All);
  bridge::Subscriber status(ctx, s.status, bridge::Subscriber::Keep::All);
  Process robot("robot serve --reference " + ref.string() + s.robot(), d / "robot.log");
  Process control("control --reference " + ref.string() + " --out " + out.string() + s.control(), d / "control.log");
  Stamper stamp;
  auto send_message = [&](bridge::Message m) { stamp.send(poses, std::move(m)); };
  Garbage garbage;
  auto send_garbage = [&](int n, const std::string& good) { garbage.send(poses, n, good); };
  bool running = false, stopped = false, heard_camera = false;
  const auto t0 = std::chrono::steady_clock::now();
  while (!stopped && seconds_since(t0) < 60) {
    bridge::Subscriber::wait_any({&camera, &status}, 2ms);
    while (auto m = status.receive(0ms))
      if (const auto* st = std::get_if<bridge::StatusMessage>(&*m)) {
        running = running || st->state == bridge::RobotState::Running;
        stopped = st->state == bridge::RobotState::Stopped;
      }
    // The start handshake as vision serve does it: heartbeats once the camera stream is heard,
    // so the first truth pose is never lost to ZeroMQ's slow joiner (it was, now and then: the
    // robot then waited 2 s for pose 0 and stopped).
    if (!running && heard_camera) send_message(bridge::HeartbeatMessage{});
    while (auto m = camera.receive(0ms))
      if (heard_camera = true; const auto* truth = std::get_if<bridge::PoseMessage>(&*m)) {
        send_message(*truth);
        send_garbage(50, bridge::encode(*truth));
      }
  }
  EXPECT_EQ(garbage.sent, 10000);
  ASSERT_EQ(robot.wait(), 0) << robot.output();
  ASSERT_EQ(control.wait(), 0) << control.output();
  // The robot may finish before the last pose and its garbage arrive: 50 malformed per pose it read.
  const std::string r = robot.output();
  const auto at = r.find("malformed frames: commands 0, poses ");
  ASSERT_NE(at, std::string::npos) << r;
  int malformed = 0, read = 0;
  ASSERT_EQ(std::sscanf(r.c_str() + at, "malformed frames: commands 0, poses %d; poses %d", &malformed, &read), 2) << r;
  EXPECT_EQ(malformed, 50 * read) << r;
  EXPECT_GE(read, 199) << r;
  const auto meta = nlohmann::json::parse(text(out.string() + ".meta.json"));
  EXPECT_EQ(meta["stream"]["malformed"], 10000);
  EXPECT_EQ(meta["stream"]["sequence_gaps"], 0);
  EXPECT_EQ(vcloe::read_trace(out.string()).size(), 200u);
}

namespace {

// The test as the controller, beside a real robot and vision: one command per pose that reaches
// the controller in the 2 s run (frames 0..198), made by `command(frame, hold)` from the start
// hold; `after(command_socket, sent)` may send more after each. Returns the robot's final status.
template <typename Command, typename After>
bridge::StatusMessage run_as_controller(const std::string& name, const std::string& robot_options, Command command,
                                        After after, std::string& robot_output, int& vision_status) {
  const fs::path d = cli_test::fresh_dir("vcloe-rig", name);
  const fs::path ref = reference(d, 2);
  const RigStreams s(d);
  zmq::context_t ctx;
  zmq::socket_t commands = publisher(ctx, s.commands);
  bridge::Subscriber poses(ctx, s.poses, bridge::Subscriber::Keep::All);
  bridge::Subscriber status(ctx, s.status, bridge::Subscriber::Keep::All);
  Process robot("robot serve " + robot_options + " --reference " + ref.string() + s.robot(), d / "robot.log");
  Process vision("vision serve" + s.vision(), d / "vision.log");
  Stamper stamp;
  std::optional<vcloe::Vec6d> hold;
  std::optional<bridge::StatusMessage> stop;
  bool heard_poses = false, running = false;
  for (const auto t0 = std::chrono::steady_clock::now(); !stop && seconds_since(t0) < 60;) {
    bridge::Subscriber::wait_any({&poses, &status}, 2ms);
    while (auto m = status.receive(0ms))
      if (const auto* st = std::get_if<bridge::StatusMessage>(&*m)) {
        if (!hold) hold = st->theta;  // the start hold: the robot stands there
        running = running || st->state == bridge::RobotState::Running;
        if (st->state == bridge::RobotState::Stopped) stop = *st;
      }
    while (auto m = poses.receive(0ms)) {
      heard_poses = true;
      const auto* p = std::get_if<bridge::PoseMessage>(&*m);
      if (!p || !hold || p->frame >= 199) continue;
      const bridge::CommandMessage c = command(p->frame, *hold);
      stamp.send(commands, c);
      after(commands, c);
    }
    if (!running && heard_poses && hold) stamp.send(commands, bridge::HeartbeatMessage{});
  }
  robot.wait();
  robot_output = robot.output();
  vision_status = vision.wait();
  EXPECT_TRUE(stop) << robot_output;
  return stop.value_or(bridge::StatusMessage{});
}

bridge::CommandMessage hold_command(std::int64_t frame, const vcloe::Vec6d& hold) {
  bridge::CommandMessage c;
  c.frame = frame;
  c.theta = hold;
  return c;
}

}  // namespace

TEST(RigRun, TenThousandMalformedFramesOnTheCommandStreamAreCountedAndTheRunGoesOn) {
  // The test is the controller: it holds the start angles and sends 10,000 random and mutated
  // frames to the robot's command socket between its commands.
  Garbage garbage;
  std::string robot;
  int vision = -1;
  const bridge::StatusMessage end = run_as_controller(
      "malformed-commands", "", hold_command,
      [&](zmq::socket_t& socket, const bridge::CommandMessage& c) {
        garbage.send(socket, std::min(51, 10000 - garbage.sent), bridge::encode(c));
      },
      robot, vision);
  EXPECT_EQ(garbage.sent, 10000);
  EXPECT_EQ(end.reason, bridge::StopReason::Finished) << robot;
  EXPECT_EQ(vision, 0);
  EXPECT_NE(robot.find("malformed frames: commands 10000, poses 0"), std::string::npos) << robot;
}

TEST(RigRun, TenThousandMalformedFramesOnTheCameraAndStatusStreamsAreCountedAndTheRunGoesOn) {
  // The test is the robot: a perfect one (its pose is the reference at each exposure), with
  // 50 random and mutated frames on its camera and its status stream per frame.
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "malformed-status");
  const fs::path ref = reference(d, 2);
  ASSERT_EQ(cli_test::vcloe("run --reference " + ref.string() + " --out " + (d / "run.csv").string()).status, 0);
  const vcloe::PoseTrace run = vcloe::read_trace((d / "run.csv").string());
  const RigStreams s(d);
  const fs::path out = d / "trace.csv";
  zmq::context_t ctx;
  zmq::socket_t camera = publisher(ctx, s.camera), status = publisher(ctx, s.status);
  bridge::Subscriber commands(ctx, s.commands, bridge::Subscriber::Keep::All);
  Process vision("vision serve" + s.vision(), d / "vision.log");
  Process control("control --reference " + ref.string() + " --out " + out.string() + s.control(), d / "control.log");
  Stamper stamp_camera, stamp_status;
  Garbage garbage_camera, garbage_status;
  auto send_status = [&](bridge::RobotState state, bridge::StopReason reason) {
    bridge::StatusMessage m;
    m.state = state;
    m.reason = reason;
    stamp_status.send(status, m);
  };
  const auto t0 = std::chrono::steady_clock::now();
  bool controller = false;
  while (!controller && seconds_since(t0) < 30) {  // the robot's side of the start handshake
    send_status(bridge::RobotState::Waiting, bridge::StopReason::None);
    stamp_camera.send(camera, bridge::HeartbeatMessage{});
    controller = commands.receive(5ms).has_value();
  }
  ASSERT_TRUE(controller);
  for (std::int64_t j = 0; j < 200; ++j) {
    bridge::PoseMessage truth;
    truth.frame = j;
    truth.pose = run.reference[static_cast<std::size_t>(j)];
    truth.valid = true;
    stamp_camera.send(camera, truth);
    send_status(bridge::RobotState::Running, bridge::StopReason::None);
    garbage_camera.send(camera, 50, bridge::encode(truth));
    garbage_status.send(status, 50, bridge::encode(bridge::StatusMessage{}));
    for (auto m = commands.receive(5s); j < 199 && m; m = commands.receive(5s))  // lockstep: its command
      if (const auto* c = std::get_if<bridge::CommandMessage>(&*m); c && c->frame == j) break;
  }
  for (int k = 0; k < 3; ++k) send_status(bridge::RobotState::Stopped, bridge::StopReason::Finished);
  ASSERT_EQ(control.wait(), 0) << control.output();
  ASSERT_EQ(vision.wait(), 0) << vision.output();
  EXPECT_NE(vision.output().find("malformed frames: camera 10000, status 10000"), std::string::npos) << vision.output();
  const auto meta = nlohmann::json::parse(text(out.string() + ".meta.json"));
  EXPECT_EQ(meta["stream"]["status_malformed"], 10000);
  EXPECT_EQ(vcloe::read_trace(out.string()).size(), 200u);
}

TEST(RigRun, VisionServesAFolderOfImagePairsAtTheCameraRateThroughThePosePipeline) {
  // `vcloe render` writes three pairs (the third with most markers hidden: invalid); served from
  // the robot's start at 100 Hz they are the poses `vcloe measure` finds in the same folder.
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "images");
  ASSERT_EQ(cli_test::vcloe("render --out " + (d / "img").string() + " --frames 2").status, 0);
  ASSERT_EQ(cli_test::vcloe("render --out " + (d / "hidden").string() + " --frames 1 --occlude P1 P2 P4 P6 P7").status, 0);
  for (const char* side : {"left", "right"})
    fs::copy_file(d / "hidden" / (std::string(side) + "_0000.png"), d / "img" / (std::string(side) + "_0002.png"));
  const auto measured = cli_test::vcloe("measure --images " + (d / "img").string() + " --json");
  ASSERT_EQ(measured.status, 0) << measured.out;
  const auto frames = nlohmann::json::parse(measured.out.substr(measured.out.find('{')))["per_frame"];
  ASSERT_EQ(frames.size(), 3u);
  const RigStreams s(d);
  zmq::context_t ctx;
  zmq::socket_t status = publisher(ctx, s.status);
  bridge::Subscriber poses(ctx, s.poses, bridge::Subscriber::Keep::All);
  Process vision("vision serve --source images:" + (d / "img").string() + s.vision(), d / "vision.log");
  Stamper stamp;
  auto send_status = [&](bridge::RobotState state) {
    bridge::StatusMessage m;
    m.state = state;
    stamp.send(status, m);
  };
  bool heard = false;
  for (const auto t0 = std::chrono::steady_clock::now(); !heard && seconds_since(t0) < 30;) {
    send_status(bridge::RobotState::Waiting);
    heard = poses.receive(5ms).has_value();  // its handshake heartbeats
  }
  ASSERT_TRUE(heard) << vision.output();
  send_status(bridge::RobotState::Running);
  std::vector<bridge::PoseMessage> got;
  for (const auto t0 = std::chrono::steady_clock::now(); got.size() < 3 && seconds_since(t0) < 30;) {
    send_status(bridge::RobotState::Running);
    if (auto m = poses.receive(5ms); m && std::holds_alternative<bridge::PoseMessage>(*m))
      got.push_back(std::get<bridge::PoseMessage>(*m));
  }
  EXPECT_EQ(vision.wait(), 0) << vision.output();
  ASSERT_EQ(got.size(), 3u) << vision.output();
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(got[k].frame, static_cast<std::int64_t>(k));
    EXPECT_EQ(got[k].valid, frames[k]["valid"].get<bool>()) << k;
    EXPECT_EQ(got[k].markers_used, frames[k]["markers_used"].size()) << k;
    if (got[k].valid) {
      for (int c = 0; c < 6; ++c) EXPECT_NEAR(got[k].pose(c), frames[k]["pose"][c].get<double>(), 1e-12) << k;
    }
  }
  EXPECT_FALSE(got[2].valid);
  EXPECT_NEAR((got[1].header.exposure_ns - got[0].header.exposure_ns) * 1e-9, 0.01, 1e-6);  // the camera rate
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
