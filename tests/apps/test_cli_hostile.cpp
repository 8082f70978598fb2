// Specification of the command line under the abuse a hostile user tries beyond the cases of
// issue #16 (docs/robustness.md, "Probed beyond the issue"): every one a one-line
// `vcloe: error: …` with exit status 2, refused before any long work — never a library's
// message, a hang, or a silent result.
#include <gtest/gtest.h>

#include <algorithm>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using cli_test::expect_refused;
using cli_test::run_vcloe;

// This file's helpers and specifications in its own namespace: the test program is compiled as
// one translation unit (tests/CMakeLists.txt).
namespace test_cli_hostile {

namespace {
const std::string& config = cli_test::config_dir;
}  // namespace

TEST(CliHostile, AMalformedCommandLineIsAOneLineErrorWithStatusTwo) {
  // CLI11's own exit codes (104-106) and its two-line text said nothing to a script testing 2.
  expect_refused({
      {"simulate", "vcloe: error: --reference is required (see --help)"},
      {"excite --out x.yaml --seed nan", "vcloe: error: --seed: expected a whole number in decimal digits, got 'nan'"},
      {"run --reference x --out y --seed 99999999999999999999", "got '99999999999999999999'"},  // was stored as 2^64 - 1
      {"run --backend mujoco --reference x --out y", "--backend: expected one of virtual, got 'mujoco'"},
      {"validate --model x --seed -5", "--seed: expected a whole number of 0 or more, got '-5'"},  // every UINT option
      {"run --reference x --out y --rate-hz 5", "unknown option '--rate-hz' for `vcloe run`"},  // the word, not CLI11's list
  });
  EXPECT_EQ(run_vcloe("--help").status, 0);
  EXPECT_EQ(run_vcloe("simulate --help").status, 0);
  EXPECT_EQ(run_vcloe("--version").status, 0);
}

TEST(CliHostile, NumbersOutOfAnyUsefulRangeAreRefusedBeforeWork) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-hostile", "numbers");
  const std::string out = " --out " + (d / "x.csv").string();
  const std::string ref = " --reference " + config + "reference.yaml";
  std::ofstream(d / "late.yaml") << "timing:\n  latency: 30\n";
  std::string truth = cli_test::read_file(config + "truth.yaml");
  truth.replace(truth.find("  lp: 280"), 9, "  lp: 1.0e5");  // drives that tear the legs apart at once
  std::ofstream(d / "stiff.yaml") << truth;
  expect_refused({
      // The latency is the experiment file's, the run's length the reference's: both named.
      {"simulate" + ref + out + " --experiment " + (d / "late.yaml").string(),
       "late.yaml:2: key 'timing.latency': 30 s is not shorter than the 20 s run of "},
      {"validate --model " + config + "truth.yaml --n 100000000", "--n: expected 1 to 1000 trajectories"},
      {"demo --n 100000000 --dir " + (d / "demo").string(), "--n: expected 1 to 1000 validation trajectories"},
      {"run" + ref + out + " --noise-position 1e300", "--noise-position: expected a camera noise sigma in [0, 0.01] m"},
      {"run" + ref + out + " --noise-angle inf", "--noise-angle: expected a finite number, got 'inf'"},  // every real option
      {"run" + ref + out + " --payload-mass 1e-300 --payload-inertia 0 0 0",
       "expected a payload mass in [0.001, 10000] kg"},
      {"run" + ref + out + " --camera stereo --centroid-noise-px 1e9", "--centroid-noise-px: expected a centroid noise"},
      {"trajectory random --f0 1e-300 --out " + (d / "r.yaml").string(),
       "f0: expected a fundamental frequency of at least one cycle a day"},
      {"trajectory check " + config + "reference.yaml --max-joint-velocity nan",
       "--max-joint-velocity: expected a finite number, got 'nan'"},  // a NaN limit passed everything
      {"calibrate stereo --images " + d.string() + " --board 99999999999x6 --square 0.025 --out " +
           (d / "s.yaml").string(),
       "--board: expected COLSxROWS inner corners"},  // was std::stoi's exception, exit 3
      {"calibrate stereo --images " + d.string() + " --board 9x6 --square 0.025 --max-view-rms nan --out " +
           (d / "s.yaml").string(),
       "--max-view-rms: expected a finite number, got 'nan'"},
      // The value as given, not to six decimals (probe 33, cs04: "(0, 1], got 1.000000").
      {"calibrate stereo --images " + d.string() + " --board 9x6 --square 1.0000001 --out " + (d / "s.yaml").string(),
       "--square: expected the square size in m (0, 1], got 1.0000001"},
      // Said of the truth's drives, which ran, not robot.yaml's (probe 33, x14).
      {"run" + ref + out + " --truth " + (d / "stiff.yaml").string(),
       ") and the drives of " + (d / "stiff.yaml").string() + " (drive_pid), along "},
  });
  EXPECT_FALSE(fs::exists(d / "x.csv"));
  EXPECT_FALSE(fs::exists(d / "demo"));
}

TEST(CliHostile, OutputsAreCheckedBeforeTheWorkAndNeverOverwriteAnInput) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-hostile", "outputs");
  fs::copy_file(config + "robot.yaml", d / "robot.yaml");
  fs::copy_file(config + "rig.yaml", d / "rig.yaml");
  const std::string robot = (d / "robot.yaml").string(), rig = (d / "rig.yaml").string();
  const std::string ref = (d / "short.yaml").string(), trace = (d / "t.csv").string();
  ASSERT_EQ(run_vcloe("trajectory random --seed 4 --duration 2 --out " + ref).status, 0);
  ASSERT_EQ(run_vcloe("simulate --reference " + ref + " --out " + trace).status, 0);
  expect_refused({
      // An input trace's sidecar is an input too.
      {"identify --measured " + trace + " --out " + trace + ".meta.json --force", "is also an input of this command"},
      {"filter " + trace + " --cutoff 10 --out " + trace + ".meta.json --force", "is also an input of this command"},
      // excite wrote over its own robot file with --force, and found a missing directory only
      // after the optimisation (minutes).
      {"excite --robot " + robot + " --out " + robot + " --force", "is also an input of this command"},
      {"excite --out " + (d / "missing" / "e.yaml").string(), "its directory " + (d / "missing").string() + " does not exist"},
      {"excite --out " + (d / "e.yaml").string() + " --plot " + (d / "missing" / "e.png").string(), "does not exist"},
      // A file on the output's way is said as a file, not as a missing directory (probe 27, class A).
      {"excite --out " + robot + "/e.yaml", robot + "/e.yaml: " + robot + " is a file, not a directory"},
      {"filter " + trace + " --cutoff 10 --out " + trace + "/ --force", trace + "/: " + trace + " is a file, not a directory"},
      {"simulate --reference " + ref + " --out " + ref + "/.. --force", ref + " is a file, not a directory"},
      {"identify --measured " + trace + " --out " + trace + "/sub/o.yaml", trace + " is a file, not a directory"},
      {"trajectory random --robot " + robot + " --out " + robot + " --force", "is also an input of this command"},
      {"calibrate base --rig " + rig + " --out " + rig + " --force", "is also an input of this command"},
      {"compare " + config + "reference.yaml x.csv --plot " + (d / "missing" / "p.png").string(), "does not exist"},
      {"measure --images /dev/null", "/dev/null: expected a directory of images or a list file, got a device or pipe"},
  });
  std::ifstream a(robot), b(config + "robot.yaml");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(a), {}), std::string(std::istreambuf_iterator<char>(b), {}));
}

TEST(CliHostile, AFileOfNestedYamlAliasesIsRefusedByEveryReader) {
  // Every YAML reader walked the 2^60 expanded nodes (killed at 30 s).
  const fs::path d = cli_test::fresh_dir("vcloe-cli-hostile", "bomb");
  {
    std::ofstream f(d / "bomb.yaml");
    f << "x0: &a0 [1]\n";
    for (int i = 1; i < 60; ++i) f << "x" << i << ": &a" << i << " [*a" << i - 1 << ", *a" << i - 1 << "]\n";
  }
  const std::string bomb = (d / "bomb.yaml").string(), out = " --out " + (d / "x.csv").string();
  const std::string expected = bomb + ": more than 100000 YAML nodes with aliases expanded";
  expect_refused({
      {"simulate --reference " + bomb + out, expected},
      {"simulate --model " + bomb + " --reference " + config + "reference.yaml" + out, expected},
      {"simulate --experiment " + bomb + " --reference " + config + "reference.yaml" + out, expected},
      {"excite --config " + bomb + " --out " + (d / "e.yaml").string(), expected},
      {"measure --images " + d.string() + " --rig " + bomb, expected},
  });
}

TEST(CliHostile, ARigRunWhoseRobotRefusesItsOptionsStopsEveryProcessCleanly) {
  // The robot process refused its input (the rig checks options before any process starts,
  // not the files each process reads); control, stopped by the rig's SIGTERM, ended as an
  // internal error ("Interrupted system call", exit 3), or waited out its 30 s start timeout,
  // and left a TRACE.partial that refused the next run.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-hostile", "rig");
  const std::string out = (d / "t.csv").string();
  const auto t0 = std::chrono::steady_clock::now();
  const cli_test::CommandResult r =
      run_vcloe("rig run --reference " + config + "reference.yaml --out " + out + " --truth " + (d / "gone.yaml").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("gone.yaml: file not found"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("internal error"), std::string::npos) << r.out;
  // Refused before any process starts now (the roles' own first steps, session 20's probe, M):
  // one line, no role's "interrupted" line.
  EXPECT_EQ(r.out.find("interrupted"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
  EXPECT_FALSE(fs::exists(out + ".partial"));
}

TEST(CliHostile, AnOptionTheChosenModeDoesNotUseIsRefusedNotIgnored) {
  // Each was accepted and silently ignored (a rig file with NaN focal lengths never read), or,
  // in `rig run`, refused only inside a child process after the others had started (3 lines).
  const fs::path d = cli_test::fresh_dir("vcloe-cli-hostile", "unused");
  const std::string run = "run --reference " + config + "reference.yaml --out " + (d / "x.csv").string();
  const std::string rig = "rig run --reference " + config + "reference.yaml --out " + (d / "r.csv").string();
  std::ofstream(d / "st.csv") << "x\n";
  const std::string kin = "calibrate kinematics --poses " + (d / "st.csv").string() + " --out " + (d / "c.yaml").string();
  expect_refused({
      {run + " --camera-rig /nonexistent.yaml", "--camera-rig: applies to --camera stereo only"},
      {run + " --centroid-noise-px 5", "--centroid-noise-px: applies to --camera stereo only"},
      {"vision serve --source images:" + d.string() + " --seed 5", "--seed: does not apply to --source images:"},
      {"vision serve --rig x.yaml", "--rig: does not apply to --source virtual"},
      {"vision serve --source images:" + d.string() + " --camera-stream ipc://" + (d / "c").string(),
       "--camera-stream: does not apply to --source images:"},  // help "virtual camera: …" (it was ignored)
      {"truth random --seed 1 --out " + (d / "t.yaml").string() + " --tolerance 0.001", "--tolerance requires --unmodelled"},
      {rig + " --pose-timeout nan", "--pose-timeout: expected a finite number, got 'nan'"},
      {rig + " --heartbeat-timeout inf", "--heartbeat-timeout: expected a finite number, got 'inf'"},
      {rig + " --noise-angle -1", "--noise-angle: expected a camera noise sigma in [0, 0.1] rad, got -1"},
      // With --poses nothing is measured: calibrate kinematics' measuring options (--measure wrote nothing, exit 0).
      {kin + " --truth " + config + "truth.yaml --measure " + (d / "m.csv").string(),
       "--measure: does not apply to --poses (it is for measuring on the virtual robot"},
      {kin + " --measure " + (d / "m.csv").string(), "--measure requires --truth"},  // its help: "with --truth: …"
      {kin + " --count 20", "--count: does not apply to --poses"},
      {kin + " --seed 3", "--seed: does not apply to --poses"},
      {kin + " --camera-residual 0 0 0 0 0 0", "--camera-residual: does not apply to --poses"},  // was ignored
      {kin + " --candidates 99", "--candidates: does not apply to --poses"},
  });
  EXPECT_FALSE(fs::exists(d / "x.csv"));
  EXPECT_FALSE(fs::exists(d / "r.csv"));
  EXPECT_FALSE(fs::exists(d / "m.csv"));
}

TEST(CliHostile, StudyReadsEveryInputBeforeItCreatesItsDirectory) {
  // A trace given as --reference and priors with a negative gain failed only inside a step
  // ("see sd/truth-1/run.err"), after the study's directory had been made.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-hostile", "study");
  std::ofstream(d / "not-a-trajectory.csv") << "time,x\n0,0\n";
  std::ifstream in(config + "robot.yaml");
  std::string robot((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  robot.replace(robot.find("lp: 360.0"), 9, "lp: -1");
  std::ofstream(d / "bad-priors.yaml") << robot;
  const std::string study = "study --truths 1 --dir " + (d / "sd").string();
  expect_refused({
      {study + " --reference " + (d / "not-a-trajectory.csv").string(), "not-a-trajectory.csv:"},
      {study + " --priors " + (d / "bad-priors.yaml").string(), "bad-priors.yaml:"},
  });
  EXPECT_FALSE(fs::exists(d / "sd"));
}

TEST(CliHostile, AnImpossibleEndpointIsRefusedAndAShrunkAmplitudeIsSaid) {
  // `rig listen` on tcp://256.1.1.1:99999 waited and said "no pose received"; a 10 m amplitude
  // was shrunk to 47 mm and reported only as "feasible".
  expect_refused({
      {"rig listen --seconds 1 --endpoint tcp://256.1.1.1:99999", "--endpoint: port '99999' of tcp://256.1.1.1:99999"},
      {"rig listen --seconds 1 --endpoint tcp://256.1.1.1:5", "address '256.1.1.1' of tcp://256.1.1.1:5: expected four"},
      {"rig listen --seconds 1 --endpoint udp://x", "expected ipc://PATH or tcp://HOST:PORT"},
      {"robot serve --reference " + config + "reference.yaml --status tcp://127.0.0.1:0", "port '0'"},
  });
  const fs::path d = cli_test::fresh_dir("vcloe-cli-hostile", "amplitude");
  const auto r = run_vcloe("trajectory random --position-amplitude 10 --out " + (d / "t.yaml").string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("amplitudes shrunk to fit the limits: largest excursion 0.0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(requested 10 m, 0.06 rad)"), std::string::npos) << r.out;
}

TEST(CliHostile, AnIpcEndpointOnAFileThatIsNotASocketIsRefusedAndTheFileKept) {
  // ZeroMQ's ipc bind unlinks whatever is at its path: `vision serve --poses ipc://keep.txt`
  // turned keep.txt into a socket; control and robot serve destroyed their own input files.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-hostile", "ipc-file");
  std::ofstream(d / "keep.txt") << "precious\n";
  fs::copy_file(config + "robot.yaml", d / "r.yaml");
  fs::copy_file(config + "reference.yaml", d / "t.yaml");
  fs::create_directory(d / "dir");
  const std::string ipc = "ipc://" + d.string() + "/";
  const std::string rest = " --start-timeout 1 --camera-stream " + ipc + "cam --status " + ipc + "st";
  expect_refused({
      {"vision serve --poses " + ipc + "keep.txt" + rest,
       "vcloe: error: --poses: " + ipc + "keep.txt: the path exists and is not a socket; ZeroMQ would delete it"},
      {"control --robot " + d.string() + "/r.yaml --reference " + d.string() + "/t.yaml --out " + d.string() +
           "/o.csv --commands " + ipc + "r.yaml --start-timeout 1",
       "--commands: " + ipc + "r.yaml: the path exists and is not a socket"},
      {"robot serve --reference " + d.string() + "/t.yaml --camera-stream " + ipc + "t.yaml --start-timeout 1",
       "--camera-stream: " + ipc + "t.yaml: the path exists and is not a socket"},
      {"vision serve --poses " + ipc + "dir" + rest, "--poses: " + ipc + "dir: the path exists and is not a socket"},
  });
  EXPECT_EQ(cli_test::read_file(d / "keep.txt"), "precious\n");
  EXPECT_EQ(cli_test::read_file(d / "r.yaml"), cli_test::read_file(config + "robot.yaml"));
  EXPECT_EQ(cli_test::read_file(d / "t.yaml"), cli_test::read_file(config + "reference.yaml"));
  EXPECT_TRUE(fs::is_directory(d / "dir"));
  EXPECT_FALSE(fs::exists(d / "o.csv.partial"));
  // A socket left by a process killed mid-run (bound, never unlinked) is reused: vision binds
  // it again and waits for the robot.
  const fs::path stale = d / "stale";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof a.sun_path, "%s", stale.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ::close(fd);
  ASSERT_TRUE(fs::is_socket(stale));
  const auto again = run_vcloe("vision serve --poses " + ipc + "stale --start-timeout 0.2 --camera-stream " + ipc +
                           "cam --status " + ipc + "st");
  EXPECT_EQ(again.status, 2) << again.out;
  EXPECT_NE(again.out.find("no hello from the robot on " + ipc + "st within 0.2 s"), std::string::npos) << again.out;
}

TEST(CliHostile, TwoStreamsOfOneProcessOnOneEndpointAreRefused) {
  // `vision serve --poses X --status X` waited out its start timeout: one endpoint cannot carry
  // two streams of one process (ipc paths compared as files, tcp by host and port).
  const fs::path d = cli_test::fresh_dir("vcloe-cli-hostile", "same-endpoint");
  const std::string ipc = "ipc://" + d.string() + "/";
  const std::string ref = " --reference " + config + "reference.yaml";
  expect_refused({
      {"vision serve --start-timeout 1 --poses " + ipc + "st --status " + ipc + "st",
       "vcloe: error: --status: the same endpoint as --poses (" + ipc + "st); each stream needs its own"},
      {"vision serve --start-timeout 1 --camera-stream " + ipc + "a --status " + ipc + "./a",
       "--status: the same endpoint as --camera-stream"},
      {"robot serve --start-timeout 1" + ref + " --commands tcp://127.0.0.1:5999 --poses tcp://localhost:5999",
       "--commands: the same endpoint as --poses"},
      {"control --start-timeout 1" + ref + " --out " + d.string() + "/o.csv --commands " + ipc + "c --status " + ipc +
           "c",
       "--status: the same endpoint as --commands"},
  });
  EXPECT_FALSE(fs::exists(d / "st"));
  EXPECT_FALSE(fs::exists(d / "o.csv.partial"));
}

TEST(CliHostile, ATimeoutShorterThanOneCameraPeriodIsRefusedBeforeAnyProcessStarts) {
  // `rig run --pose-timeout 1e-9` started three processes, then three error lines and a trace
  // of one pose: no stream can keep a timeout shorter than the period it is sent at.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-hostile", "short-timeout");
  const std::string ref = " --reference " + config + "reference.yaml";
  const std::string rig = "rig run" + ref + " --out " + (d / "o.csv").string();
  const std::string period = "one camera period (0.01 s at 100 Hz in ";
  expect_refused({
      {rig + " --pose-timeout 1e-9", "vcloe: error: --pose-timeout: 1e-09 s is shorter than " + period},
      {rig + " --heartbeat-timeout 0.005", "--heartbeat-timeout: 0.005 s is shorter than " + period},
      {"robot serve" + ref + " --pose-timeout 1e-9", "--pose-timeout: 1e-09 s is shorter than " + period},
      {"control" + ref + " --out " + (d / "c.csv").string() + " --robot-timeout 1e-9",
       "--robot-timeout: 1e-09 s is shorter than " + period},
      {"vision serve --robot-timeout 0.001", "--robot-timeout: 0.001 s is shorter than " + period},
      {"vision serve --start-timeout 1e-9", "--start-timeout: 1e-09 s is shorter than the handshake and the run's first status"},
  });
  EXPECT_FALSE(fs::exists(d / "o.csv"));
  EXPECT_FALSE(fs::exists(d / "o.csv.partial"));
}

TEST(CliHostile, AStartTimeoutNoRunCanKeepIsRefusedBeforeAnyProcessStarts) {
  // rig::rig_times_problem: the handshake's three hellos and the run's first status, plus the move.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-hostile", "start-timeout");
  const std::string ref = " --reference " + config + "reference.yaml";
  const std::string rig = "rig run" + ref + " --out " + (d / "o.csv").string();
  expect_refused({
      // Probe 19's rig-start-timeout-short: every role then ended "no hello … within 0.011 s".
      {rig + " --start-timeout 0.011", "--start-timeout: 0.011 s is shorter than the handshake and the run's first status (3 "
                                       "handshake periods of 0.005 s, robot -> vision -> control each answering the one before, "
                                       "and one camera period (0.01 s at 100 Hz in "},
      {"control" + ref + " --out " + (d / "c.csv").string() + " --start-timeout 0.02", "[0.025, 3600] s"},
      {"robot serve" + ref + " --start-timeout 0.024", "--start-timeout: 0.024 s is shorter than"},
      // The move to the start (0.5 rad at rig run's --move-speed) is waited through by control and vision.
      {rig + " --stand-at 0.5 0 0 0 0 0 --move-speed 0.5 --start-timeout 0.5",
       "and the move to the start at --move-speed, "},
      // Session 28's probe, H (rr-01): a move longer than any start timeout is the speed's fault,
      // not an empty range of --start-timeout.
      {rig + " --stand-at 0.3 0.3 0.3 0.3 0.3 0.3 --move-speed 1e-6", "--move-speed: the move to the start would take "},
  });
  EXPECT_FALSE(fs::exists(d / "o.csv"));
}

}  // namespace test_cli_hostile
