// Specification of the rig's handshake, move to the start and end of the run through the
// processes (docs/protocol.md): a role on another file is refused by name before anything
// moves; a peer of schema version 1 is refused by its version; a robot standing off the start
// is brought there within the rate limit; the end of the run is a message after which every
// role exits 0 and the recording is kept.
#include <gtest/gtest.h>
#include <zmq.hpp>

#include <csignal>
#include <fstream>
#include <memory>
#include <thread>
#include <vector>
#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"
#include "rig_fixtures.hpp"
#include "rig_processes.hpp"
#include "vcloe/bridge/transport.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace cli_test;  // the rig fixtures (rig_fixtures.hpp)
namespace bridge = vcloe::bridge;

namespace {

// The first 12 hex digits of a file's SHA-256, as the handshake's line abbreviates it.
std::string hash12_of(const std::string& path) { return vcloe::sha256_file_now(path).substr(0, 12) + "..."; }

// The robot, vision and control on their own options (each with a short start timeout).
struct HandshakeRig {
  fs::path dir;
  RigStreams s;
  Process robot, vision, control;
  HandshakeRig(const fs::path& d, const std::string& robot_options, const std::string& control_options)
      : dir((fs::create_directories(d), d)),
        s(d),
        robot("robot serve --hold 0 --start-timeout 3 " + robot_options + s.robot(), d / "robot.log"),
        vision("vision serve --start-timeout 3" + s.vision(), d / "vision.log"),
        control("control --start-timeout 3 --out " + (d / "trace.csv").string() + " " + control_options + s.control(),
                d / "control.log") {}
};

}  // namespace

TEST(RigRun, ARobotOnAnotherReferenceOrPayloadIsRefusedByNameBeforeAnythingMoves) {
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "handshake");
  const fs::path ref = reference(d, 1);
  const fs::path edited = d / "edited.yaml";  // the same trajectory, other bytes
  std::ofstream(edited) << text(ref) << "\n# edited\n";
  {
    HandshakeRig rig(d / "ref", "--reference " + edited.string(), "--reference " + ref.string());
    EXPECT_EQ(rig.control.wait(), 2) << rig.control.output();
    const std::string c = rig.control.output();
    EXPECT_NE(c.find("handshake refused: the robot on " + rig.s.status + " runs the reference with SHA-256 " +
                     hash12_of(edited.string()) + "; this controller runs " + ref.string() + ", SHA-256 " +
                     hash12_of(ref.string()) + ": the roles of one run must read the same reference"),
              std::string::npos)
        << c;
    EXPECT_EQ(std::count(c.begin(), c.end(), '\n'), 1) << "one line";
    EXPECT_EQ(rig.robot.wait(), 2);
    EXPECT_EQ(rig.robot.output().find("moved to the start"), std::string::npos);
    EXPECT_EQ(rig.robot.output().find("finished"), std::string::npos) << "it never ran";
    EXPECT_FALSE(fs::exists(d / "ref" / "trace.csv"));
    EXPECT_FALSE(fs::exists(d / "ref" / "trace.csv.partial"));
    rig.vision.wait();
  }
  {  // `control --payload-mass` recorded a payload the robot never carried
    HandshakeRig rig(d / "payload", "--reference " + ref.string(),
                     "--reference " + ref.string() + " --payload-mass 0.5 --payload-inertia 0.001 0.001 0.001");
    EXPECT_EQ(rig.control.wait(), 2) << rig.control.output();
    EXPECT_NE(rig.control.output().find("handshake refused: the robot on " + rig.s.status +
                                        " runs with no payload; this controller runs the payload of --payload-mass/"
                                        "--payload-inertia, SHA-256 "),
              std::string::npos)
        << rig.control.output();
    rig.robot.wait();
    rig.vision.wait();
  }
}

TEST(RigRun, ARobotAndAControllerOfAnotherPreCorrectionAreRefusedByNameBeforeAnythingMoves) {
  // The robot adds the pre-correction tick by tick, control records it: a robot given P0 beside
  // a control given none recorded a pre-corrected trace as the servo alone's, exit 0; none beside
  // P0, or the learnt L beside P0, a sidecar naming a command the robot never ran (session 21's
  // probe, class H). Two rigs at once, each refused by control before it moves; the robot's own
  // check of the controller's hello as the test plays the controller (one P against another:
  // Handshake.AnotherFileOfAnyKindIsRefusedByEveryRoleThatReadsItNamingRoleFileAndBothHashes).
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "handshake-precorrection");
  const fs::path ref = reference(d, 1);
  const std::string p0 = (d / "p0.csv").string();
  ASSERT_EQ(cli_test::run_vcloe("precorrect --model " + cli_test::config_dir + "truth.yaml --reference " + ref.string() +
                                " --out " + p0).status, 0);
  const std::string r = " --reference " + ref.string(), with0 = r + " --precorrection " + p0;
  struct Expected {
    std::string robot, control, theirs, ours;
  };
  const std::vector<Expected> cases = {
      {with0, r, "the pre-correction with SHA-256 " + hash12_of(p0), "with no pre-correction"},
      {r, with0, "with no pre-correction", p0 + ", SHA-256 " + hash12_of(p0)}};
  std::vector<std::unique_ptr<HandshakeRig>> rigs;
  for (std::size_t k = 0; k < cases.size(); ++k)
    rigs.push_back(std::make_unique<HandshakeRig>(d / ("case" + std::to_string(k)), cases[k].robot, cases[k].control));
  // Meanwhile the robot's side: a controller (the test) stating P0 beside a robot adding none.
  const RigStreams s(d);
  zmq::context_t ctx;
  zmq::socket_t commands = publisher(ctx, s.commands);
  Process robot("robot serve --hold 0 --start-timeout 5" + r + s.robot(), d / "robot.log");
  Process vision("vision serve --start-timeout 5" + s.vision(), d / "vision.log");  // the robot waits for its hello too
  Stamper stamp;
  const bridge::HelloMessage hello = vcloe::rig::hello_of(
      bridge::Role::Control, {cli_test::config_dir + "experiment.yaml", ref.string(), cli_test::config_dir + "robot.yaml",
                              std::nullopt, p0},
      bridge::HelloClock::Lockstep);
  for (const auto t0 = std::chrono::steady_clock::now(); robot.wait(std::chrono::seconds(0)) < 0 && seconds_since(t0) < 10;) {
    stamp.send(commands, hello);
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(robot.wait(), 2) << robot.output();
  EXPECT_NE(robot.output().find("handshake refused: the controller on " + s.commands + " runs the pre-correction with SHA-256 " +
                                hash12_of(p0) + "; this robot runs with no pre-correction"),
            std::string::npos)
      << robot.output();
  vision.kill(SIGTERM);  // it may have missed the robot's refusal on the status stream (joined late)
  vision.wait();
  for (std::size_t k = 0; k < cases.size(); ++k) {
    HandshakeRig& rig = *rigs[k];
    EXPECT_EQ(rig.control.wait(), 2) << rig.control.output();
    rig.robot.kill(SIGTERM);  // it waits for a hello control never sends
    const std::string c = rig.control.output();
    EXPECT_NE(c.find("control: handshake refused: the robot on " + rig.s.status + " runs " + cases[k].theirs +
                     "; this controller runs " + cases[k].ours + ": the roles of one run must read the same pre-correction"),
              std::string::npos)
        << c;
    EXPECT_EQ(std::count(c.begin(), c.end(), '\n'), 1) << "one line";
    rig.robot.wait();
    rig.vision.kill(SIGTERM);
    rig.vision.wait();
    EXPECT_EQ(rig.robot.output().find("moved to the start"), std::string::npos);
    EXPECT_FALSE(fs::exists(rig.dir / "trace.csv"));
    EXPECT_FALSE(fs::exists(rig.dir / "trace.csv.partial"));
  }
}

TEST(RigRun, AVisionOnAnotherExperimentRefusesTheRobotByName) {
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "handshake-vision");
  const fs::path ref = reference(d, 1);
  const fs::path exp = d / "experiment.yaml";
  std::ofstream(exp) << text(cli_test::config_dir + "experiment.yaml") << "\n# edited\n";
  const RigStreams s(d);
  // Vision checks the robot's hello before it says its own: it refuses, naming the robot's
  // stream (status or camera, whichever it heard first), the file and both hashes.
  Process robot("robot serve --hold 0 --reference " + ref.string() + s.robot(), d / "robot.log");
  Process vision("vision serve --experiment " + exp.string() + s.vision(), d / "vision.log");
  EXPECT_EQ(vision.wait(), 2) << vision.output();
  const std::string v = vision.output();
  EXPECT_NE(v.find("vision serve: handshake refused: the robot on ipc://"), std::string::npos) << v;
  EXPECT_NE(v.find(" runs the experiment with SHA-256 " + hash12_of(cli_test::config_dir + "experiment.yaml") +
                   "; this vision runs " + exp.string() + ", SHA-256 " + hash12_of(exp.string()) +
                   ": the roles of one run must read the same experiment"),
            std::string::npos)
      << v;
  robot.kill(SIGTERM);
  robot.wait();
}

TEST(RigRun, AControllerOfSchemaVersionOneIsRefusedByItsVersionBeforeTheRun) {
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "version-1");
  const fs::path ref = reference(d, 1);
  const RigStreams s(d);
  zmq::context_t ctx;
  zmq::socket_t commands = publisher(ctx, s.commands);
  bridge::Subscriber status(ctx, s.status, bridge::Subscriber::Keep::All);
  // --hold 1: the refusal is said on the status stream for 1 s (vision and this test join late).
  Process robot("robot serve --hold 1 --reference " + ref.string() + s.robot(), d / "robot.log");
  Process vision("vision serve --start-timeout 5" + s.vision(), d / "vision.log");
  std::optional<bridge::StatusMessage> stop;
  for (const auto t0 = std::chrono::steady_clock::now(); !stop && seconds_since(t0) < 30;) {
    std::string f = bridge::encode(bridge::HeartbeatMessage{});  // what a version-1 controller sends first
    const std::uint16_t one = 1;
    std::memcpy(f.data() + 4, &one, 2);
    const std::uint32_t crc = bridge::frame_crc(f);
    std::memcpy(f.data() + 12, &crc, 4);
    commands.send(zmq::buffer(f), zmq::send_flags::none);
    if (auto m = status.receive(5ms))
      if (const auto* st = std::get_if<bridge::StatusMessage>(&*m); st && st->state == bridge::RobotState::Stopped) stop = *st;
  }
  ASSERT_TRUE(stop);
  EXPECT_EQ(stop->reason, bridge::StopReason::HandshakeRefused);
  EXPECT_EQ(robot.wait(), 2);
  EXPECT_NE(robot.output().find("the controller on " + s.commands + " speaks schema version 1; this robot speaks version 3"),
            std::string::npos)
      << robot.output();
  EXPECT_EQ(vision.wait(), 2) << vision.output();
  EXPECT_NE(vision.output().find("the robot refused the handshake"), std::string::npos) << vision.output();
}

TEST(RigRun, ARobotStandingOffTheStartIsMovedThereAndEveryRoleExitsZeroAtTheEnd) {
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "move-to-start");
  const fs::path ref = reference(d, 1);
  ASSERT_EQ(cli_test::run_vcloe("run --reference " + ref.string() + " --out " + (d / "run.csv").string()).status, 0);
  const vcloe::Vec6d start = vcloe::read_trace((d / "run.csv").string()).command.front();  // the start hold
  vcloe::Vec6d stand = start;
  stand(0) += 0.2, stand(3) -= 0.15, stand(5) += 0.05;  // 0.2 rad: twice one camera period's reach
  std::string at;
  for (int i = 0; i < 6; ++i) at += " " + vcloe::exact_number(stand(i));
  for (const char* clock : {"lockstep", "realtime"}) {
    const fs::path out = d / (std::string(clock) + ".csv");
    const auto r = cli_test::run_vcloe("rig run --clock " + std::string(clock) + " --pose-timeout 0.2 --heartbeat-timeout 0.2 "
                                       "--stand-at" + at + " --reference " + ref.string() + " --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("robot serve: moved to the start in 40"), std::string::npos) << r.out;  // 0.2 rad at 0.5 rad/s: 400 ticks
    EXPECT_NE(r.out.find("ticks held back by the rate limit 0"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("the controller said its end"), std::string::npos) << r.out;
    EXPECT_EQ(vcloe::read_trace(out.string()).size(), 100u) << "the recording is kept";
    EXPECT_FALSE(nlohmann::json::parse(text(out.string() + ".meta.json")).contains("stopped"));
  }
  // Standing at the start, nothing moves: the lockstep trace is the in-process run's, byte for byte
  // (RigRun.LockstepRecordsTheSameTraceAsTheInProcessRun); no move line.
  const auto r = cli_test::run_vcloe("rig run --reference " + ref.string() + " --out " + (d / "still.csv").string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("moved to the start"), std::string::npos) << r.out;
  // A move speed that is none is refused before any process starts.
  const auto none = cli_test::run_vcloe("rig run --move-speed 0 --reference " + ref.string() + " --out " +
                                        (d / "none.csv").string());
  EXPECT_EQ(none.status, 2) << none.out;
  EXPECT_NE(none.out.find("--move-speed: expected a positive speed (rad/s)"), std::string::npos) << none.out;
}
