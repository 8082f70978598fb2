// Specification of the live rig's processes (docs/protocol.md, "Processes"): `vcloe rig run`
// records what the in-process run records, in lockstep byte for byte and in realtime within the
// camera noise; vision serves a folder of image pairs through the pose pipeline.
#include <gtest/gtest.h>
#include <zmq.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <map>
#include <random>
#include <utility>

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

}  // namespace

TEST(RigRun, LockstepRecordsTheSameTraceAsTheInProcessRun) {
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "lockstep");
  const fs::path ref = reference(d, 2);
  const auto run = cli_test::run_vcloe("run --seed 7 --reference " + ref.string() + " --out " + (d / "run.csv").string());
  ASSERT_EQ(run.status, 0) << run.out;
  const auto rig = cli_test::run_vcloe("rig run --clock lockstep --seed 7 --reference " + ref.string() + " --out " +
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

TEST(RigRun, LockstepPreCorrectedRecordsTheSameTraceAsTheInProcessRun) {
  // The pre-correction added tick by tick on the robot's side (robot serve --precorrection) as
  // `vcloe run --precorrection` adds it: the same trace, and the sidecar names the file.
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "lockstep-precorrected");
  const fs::path ref = reference(d, 2);
  const std::string p = (d / "p.csv").string();
  ASSERT_EQ(cli_test::run_vcloe("precorrect --model " + cli_test::config_dir + "truth.yaml --reference " + ref.string() +
                                " --out " + p).status, 0);
  const std::string common = " --seed 7 --reference " + ref.string() + " --precorrection " + p + " --out ";
  const auto run = cli_test::run_vcloe("run" + common + (d / "run.csv").string());
  ASSERT_EQ(run.status, 0) << run.out;
  const auto rig = cli_test::run_vcloe("rig run --clock lockstep" + common + (d / "rig.csv").string());
  ASSERT_EQ(rig.status, 0) << rig.out;
  ASSERT_EQ(cli_test::run_vcloe("run --seed 7 --reference " + ref.string() + " --out " + (d / "plain.csv").string()).status, 0);
  const std::string in_process = columns(text(d / "run.csv"), 19);
  EXPECT_EQ(columns(text(d / "rig.csv"), 19), in_process);
  EXPECT_NE(columns(text(d / "plain.csv"), 19), in_process);  // the correction moved the run
  const auto meta = nlohmann::json::parse(text(d / "rig.csv.meta.json"));
  EXPECT_EQ(meta["precorrection"]["sha256"], nlohmann::json::parse(text(d / "run.csv.meta.json"))["precorrection"]["sha256"]);
  EXPECT_EQ(meta["precorrection"]["path"], fs::absolute(p).lexically_normal().string());
  // Made for another reference: refused before anything moves, naming the file.
  const fs::path other = d / "other.yaml";
  ASSERT_EQ(cli_test::run_vcloe("trajectory random --seed 99 --duration 2 --out " + other.string()).status, 0);
  const auto refused = cli_test::run_vcloe("rig run --clock lockstep --reference " + other.string() + " --precorrection " + p +
                                           " --out " + (d / "o.csv").string());
  EXPECT_NE(refused.status, 0);
  EXPECT_NE(refused.out.find("was made for another reference"), std::string::npos) << refused.out;
  EXPECT_FALSE(fs::exists(d / "o.csv"));
}

namespace {

// The largest per-channel RMS difference and largest difference between two traces' measured
// poses, each in units of the camera's sigma on that channel.
std::pair<double, double> disagreement_over_noise(const vcloe::PoseTrace& a, const vcloe::PoseTrace& b) {
  const double noise[6] = {2e-5, 2e-5, 2e-5, 5e-5, 5e-5, 5e-5};  // the camera's sigma (m, rad)
  double rms = 0, largest = 0;
  for (int c = 0; c < 6; ++c) {
    double sum_sq = 0;
    for (std::size_t j = 0; j < a.size(); ++j) {
      const double d = std::abs(a.measured[j](c) - b.measured[j](c));
      sum_sq += d * d;
      largest = std::max(largest, d / noise[c]);
    }
    rms = std::max(rms, std::sqrt(sum_sq / static_cast<double>(a.size())) / noise[c]);
  }
  return {rms, largest};
}

}  // namespace

TEST(RigRun, RealtimeOverTcpAgreesWithTheInProcessRunWithinTheCameraNoise) {
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "realtime");
  const fs::path ref = reference(d, 2);
  ASSERT_EQ(cli_test::run_vcloe("run --reference " + ref.string() + " --out " + (d / "run.csv").string()).status, 0);
  const vcloe::PoseTrace a = vcloe::read_trace((d / "run.csv").string());
  // Within the camera noise: equal when every command is on time (as measured on a quiet
  // machine); a command that comes late moves the robot a little: per channel the RMS
  // difference stays below the camera's sigma and the largest below 10 sigma. Up to five
  // runs: on a loaded machine a role descheduled for 20 ms makes commands late (the robot's
  // summary names the frames; docs/protocol.md, "Known gaps"); each run that disagrees is printed.
  std::pair<double, double> best{1e300, 1e300};
  for (int attempt = 0; attempt < 5 && !(best.first <= 1.0 && best.second <= 10.0); ++attempt) {
    // Timeouts of 0.2 s: on a shared test machine a process may be descheduled for longer than
    // the 20 ms default, which would (rightly) stop the robot; this test is about agreement.
    const auto rig = cli_test::run_vcloe("rig run --clock realtime --endpoints tcp --pose-timeout 0.2 --heartbeat-timeout 0.2 "
                                         "--force --reference " + ref.string() + " --out " + (d / "rig.csv").string());
    ASSERT_EQ(rig.status, 0) << rig.out;
    const vcloe::PoseTrace b = vcloe::read_trace((d / "rig.csv").string());
    ASSERT_EQ(a.size(), b.size());
    const auto now = disagreement_over_noise(a, b);
    if (!(now.first <= 1.0 && now.second <= 10.0))
      std::cout << "realtime run " << attempt + 1 << ": RMS " << now.first << " sigma, largest " << now.second
                << " sigma\n" << rig.out;
    if (now.first < best.first) best = now;
  }
  EXPECT_LE(best.first, 1.0) << "RMS difference over the camera sigma, worst channel";
  EXPECT_LE(best.second, 10.0) << "largest difference over the camera sigma";
  const auto meta = nlohmann::json::parse(text(d / "rig.csv.meta.json"));
  EXPECT_EQ(meta["stream"]["sequence_gaps"], 0);
  EXPECT_EQ(meta["stream"]["missing_frames"].size(), 0u);
  EXPECT_GT(meta["stream"]["latency_ms"]["max"].get<double>(), 0.0);
}

TEST(RigRun, VisionServesAFolderOfImagePairsAtTheCameraRateThroughThePosePipeline) {
  // `vcloe render` writes three pairs (the third with most markers hidden: invalid); served from
  // the robot's start at 100 Hz they are the poses `vcloe measure` finds in the same folder.
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "images");
  ASSERT_EQ(cli_test::run_vcloe("render --out " + (d / "img").string() + " --frames 2").status, 0);
  ASSERT_EQ(cli_test::run_vcloe("render --out " + (d / "hidden").string() + " --frames 1 --occlude P1 P2 P4 P6 P7").status, 0);
  for (const char* side : {"left", "right"})
    fs::copy_file(d / "hidden" / (std::string(side) + "_0000.png"), d / "img" / (std::string(side) + "_0002.png"));
  const auto measured = cli_test::run_vcloe("measure --images " + (d / "img").string() + " --json");
  ASSERT_EQ(measured.status, 0) << measured.out;
  const auto frames = nlohmann::json::parse(measured.out.substr(measured.out.find('{')))["per_frame"];
  ASSERT_EQ(frames.size(), 3u);
  const RigStreams s(d);
  zmq::context_t ctx;
  zmq::socket_t status = publisher(ctx, s.status);
  bridge::Subscriber poses(ctx, s.poses, bridge::Subscriber::Keep::All);
  // No --camera-stream: it is the virtual camera's (refused with images).
  Process vision("vision serve --source images:" + (d / "img").string() + " --poses " + s.poses + " --status " + s.status,
                 d / "vision.log");
  Stamper stamp;
  auto send_status = [&](bridge::RobotState state) {
    bridge::StatusMessage m;
    m.state = state;
    stamp.send(status, m);
  };
  bool heard = false;
  for (const auto t0 = std::chrono::steady_clock::now(); !heard && seconds_since(t0) < 30;) {
    send_status(bridge::RobotState::Waiting);
    stamp.send(status, hello_as(bridge::Role::Robot, cli_test::config_dir + "reference.yaml"));
    heard = poses.receive(5ms).has_value();  // its hello, once it heard ours
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

namespace {

// The pid of the child of `parent` whose command line holds `role` ("vision serve"), or -1.
pid_t child_running(pid_t parent, const std::string& role) {
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat"), cmdline(e.path() / "cmdline");
    std::string line, args;
    std::getline(stat, line);
    std::getline(cmdline, args, '\0');
    for (std::string word; std::getline(cmdline, word, '\0');) args += " " + word;
    const std::size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(line.substr(close + 2));
    std::string state;
    pid_t ppid = 0;
    fields >> state >> ppid;
    if (ppid == parent && args.find(role) != std::string::npos) return static_cast<pid_t>(std::stol(name));
  }
  return -1;
}

}  // namespace

// Probe 25's class A: a role killed by a signal prints nothing, and rig run said "its message
// above" of it; now it says that the role left no message and where the rows went.
TEST(CliRig, ARoleKilledByASignalIsSaidToHaveLeftNoMessageAndTheRecordingKeptIsNamed) {
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "role-killed");
  const fs::path ref = reference(d, 20), out = d / "a.csv";
  Process rig("rig run --reference " + ref.string() + " --out " + out.string(), d / "rig.log");
  std::size_t rows = 0;
  for (const auto t0 = std::chrono::steady_clock::now(); rows < 50 && seconds_since(t0) < 60;) {
    std::this_thread::sleep_for(50ms);
    std::ifstream in(out.string() + ".partial");
    rows = static_cast<std::size_t>(std::count(std::istreambuf_iterator<char>(in), {}, '\n'));
  }
  ASSERT_GE(rows, 50u) << rig.output();
  const pid_t vision = child_running(rig.pid(), "vision serve");
  ASSERT_GT(vision, 0) << rig.output();
  ::kill(vision, SIGKILL);
  EXPECT_EQ(rig.wait(), 2) << rig.output();
  const std::string o = rig.output();
  EXPECT_NE(o.find("vcloe: error: rig run: ended with vision (killed by signal 9, Killed, with no message of its own); "
                   "robot, control stopped; the "),
            std::string::npos)
      << o;
  EXPECT_NE(o.find(" poses recorded are kept in " + out.string() + ".partial"), std::string::npos) << o;
  EXPECT_EQ(o.find("message above"), std::string::npos) << o;
  EXPECT_TRUE(fs::exists(out.string() + ".partial"));
  EXPECT_FALSE(fs::exists(out));
}
