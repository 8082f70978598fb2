// Specification of the command line on session 20's probe (docs/robustness.md, "Session 20's
// probe"): a pose or reference in the mirror assembly mode refused by every command before any
// motion (A), any command under a small stack limit (S) and few file descriptors (I) — one line,
// never a crash or ZeroMQ's abort.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using cli_test::expect_refused;
using cli_test::run_vcloe;

namespace test_cli_probe20 {

const std::string& config = cli_test::config_dir;

// config/reference.yaml with its offset replaced (and `duration` if given).
std::string reference_at(const fs::path& dir, const std::string& name, const std::string& offset,
                         const std::string& duration = "") {
  std::string text = cli_test::read_file(config + "reference.yaml");
  text = std::regex_replace(text, std::regex(R"(offset: \[[^\]]*\])"), "offset: [" + offset + "]");
  if (!duration.empty()) text = std::regex_replace(text, std::regex(R"(duration: 20 )"), "duration: " + duration + " ");
  const fs::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

// `vcloe args` run by the shell after `limits` (ulimit ...: setrlimit before exec).
cli_test::CommandResult run_limited(const std::string& limits, const std::string& args) {
  return cli_test::run_shell("(" + limits + " && exec " + std::string(VCLOE_BINARY) + " " + args + ") 2>&1");
}

TEST(CliProbe20, APoseOrReferenceInTheMirrorAssemblyModeIsRefusedBeforeAnyMotion) {
  // Each passed: theta = 0 "within the joint range and the singularity margins", "feasible", a run
  // recorded 16 cm under the base (kin-pose-below-base, trj-chk-offset-below-base, run-below-base, …).
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe20", "below");
  const std::string below = reference_at(d, "below.yaml", "0, 0, -0.18, 0, 0, 0");
  const std::string tilted = reference_at(d, "tilted.yaml", "0.01, -0.01, -0.17, -0.05, 0.04, 0.1");
  const std::string mode = "in another assembly mode than the home pose";
  expect_refused({
      {"kinematics --pose 0 0 -0.18 0 0 0", mode},
      {"kinematics --pose 0.01 -0.01 -0.17 -0.05 0.04 0.1", mode},
      {"run --reference " + tilted + " --out " + (d / "r.csv").string(), mode},
      {"rig run --reference " + below + " --out " + (d / "rr.csv").string(), mode},
  });
  const cli_test::CommandResult check = run_vcloe("trajectory check " + below);
  EXPECT_NE(check.status, 0) << check.out;
  EXPECT_NE(check.out.find(mode), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("t = 0"), std::string::npos) << "the time named\n" << check.out;
  for (const char* out : {"r.csv", "rr.csv"}) EXPECT_FALSE(fs::exists(d / out)) << out;
  // The working mode's pose itself is answered as before (simulate, learn, kinematics --reference:
  // the same reference check as run's, tried on the probe's cases).
  const cli_test::CommandResult up = run_vcloe("kinematics --pose 0 0 0.18 0 0 0");
  EXPECT_EQ(up.status, 0) << up.out;
  EXPECT_NE(up.out.find("within the joint range"), std::string::npos) << up.out;
}

TEST(CliProbe20, AnyStackLimitIsEnoughForTheCommands) {
  // A run on the virtual robot under ulimit -s 1024 and 128 KiB: SIGSEGV, exit 139, no word
  // (res-stack-run-1m, res-stack-run). The command runs on a thread of its own fixed stack now.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe20", "stack");
  const std::string ref = reference_at(d, "short.yaml", "0, 0, 0.18, 0, 0, 0", "0.2");
  for (const char* limit : {"ulimit -s 1024", "ulimit -s 128"}) {
    const fs::path out = d / (std::string(limit).substr(10) + ".csv");
    const cli_test::CommandResult r = run_limited(limit, "run --reference " + ref + " --out " + out.string());
    EXPECT_EQ(r.status, 0) << limit << "\n" << r.out;
    EXPECT_TRUE(fs::exists(out)) << limit;
  }
}

TEST(CliProbe20, FewFileDescriptorsAreRaisedToTheHardLimitOrRefusedInOneLine) {
  // `ulimit -n 6; rig listen`: ZeroMQ's assertion (src/epoll.cpp), abort, exit 134; `-n 8` robot
  // serve, vision serve, control: "internal error: Too many open files" (res-nofile-*).
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe20", "nofile");
  const std::string listen = "rig listen --seconds 0.2 --endpoint ipc://" + (d / "p").string();
  for (const char* limit : {"ulimit -n 6", "ulimit -n 12", "ulimit -n 40"}) {
    const cli_test::CommandResult r = run_limited(limit, listen);
    EXPECT_EQ(r.status, 2) << limit << "\n" << r.out;
    EXPECT_EQ(r.out.rfind("vcloe: error: only ", 0), 0u) << limit << "\n" << r.out;
    EXPECT_NE(r.out.find("more file descriptors can be opened"), std::string::npos) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  }
  // A soft limit below the floor, the hard one above it: raised, and the command runs.
  // (Before: `internal error: Too many open files`, exit 3.)
  const cli_test::CommandResult soft = run_limited("ulimit -Sn 8 && ulimit -Hn 4096", listen);
  EXPECT_NE(soft.out.find("vcloe: error: ipc://" + (d / "p").string() + ": no pose received in 0.2 s\n"),
            std::string::npos)
      << "it listened, and nobody published:\n" << soft.out;
  EXPECT_EQ(soft.out.find("file descriptors"), std::string::npos) << soft.out;
  EXPECT_EQ(soft.out.find("internal error"), std::string::npos) << soft.out;
}

TEST(CliProbe20, ASpreadOverOneReidentificationIsRefused) {
  // `validate --reidentify --n 1` printed "std 0.0000e+00, rel std 0.00 %" for every parameter
  // (val-reidentify-n1): the spread of one value is undefined. Refused before any run; --n 1
  // without --reidentify is no spread and stays allowed (its check is the option's range only).
  expect_refused({
      {"validate --model " + config + "robot.yaml --reidentify --n 1", "--n: expected at least 2 trajectories with --reidentify"},
      {"validate --model " + config + "robot.yaml --reidentify --n 0", "--n: expected 1 to 1000"},
  });
}

}  // namespace test_cli_probe20
