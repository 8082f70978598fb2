// Specification of the command line on the input classes of session 18's probe
// (docs/robustness.md): an option the chosen mode does not use (H2), encoder readings beyond the
// joint range by whole turns (O), what `rig run`'s roles would refuse only after they started
// (S), one camera device given as both cameras (R), a --dir that is a file (N). Each a one-line
// `vcloe: error: …` before any work, or (O) the warning the robot's own check gives.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using cli_test::expect_refused;
using cli_test::run_vcloe;

namespace test_cli_refusals {

const std::string& config = cli_test::config_dir;

TEST(CliRefusal, AnOptionWhoseHelpNamesAModeIsRefusedWithoutIt) {
  // Each was ignored without a word (`study --wait` without --slurm ran a whole local study):
  // the mode an option's help names ("with --slurm: …") is now the mode it needs, for every
  // option of every command (tie_options_to_their_modes, apps/cli_options.hpp).
  const fs::path d = cli_test::fresh_dir("vcloe-cli-refusals", "modes");
  fs::create_directories(d / "img");
  expect_refused({
      {"kinematics --pose 0 0 0.2 0 0 0 --experiment " + config + "experiment.yaml", "--experiment requires --reference"},
      {"calibrate base --images " + (d / "img").string() + " --frames 7", "excludes"},
      {"calibrate base --images " + (d / "img").string() + " --seed 3", "--seed"},
      {"study --wait --truths 1 --dir " + (d / "s").string(), "--wait requires --slurm"},
      {"study --slurm-option partition=x --dir " + (d / "s").string(), "--slurm-option requires --slurm"},
      {"study --calibration-poses 10 --dir " + (d / "s").string(), "--calibration-poses requires --realistic"},
      {"validate --model " + config + "robot.yaml --config " + config + "identify.yaml",
       "--config requires --reidentify"},
      {"truth random --seed 1 --out " + (d / "t.yaml").string() + " --far-low 2", "--far-low requires --far"},
  });
  EXPECT_FALSE(fs::exists(d / "s"));
}

TEST(CliRefusal, EncoderReadingsAWholeTurnBeyondTheRangeAreOutsideIt) {
  // 6.383 rad (0.1 + 2 pi) was "within the joint range" (forward kinematics is periodic; the
  // range was checked on the angle it found), while 1.2 rad was outside.
  for (const std::string first : {"6.383185307", "-6.183185307", "12.666370614", "1.2"}) {
    const cli_test::CommandResult r = run_vcloe("kinematics --theta " + first + " 0.1 0.1 0.1 0.1 0.1");
    EXPECT_EQ(r.status, 0) << first << "\n" << r.out;
    EXPECT_NE(r.out.find("WARNING: joint 1 at " + first.substr(0, 4)), std::string::npos) << first << "\n" << r.out;
    EXPECT_EQ(r.out.find("within the joint range"), std::string::npos) << first << "\n" << r.out;
  }
  const cli_test::CommandResult ok = run_vcloe("kinematics --theta 0.1 0.1 0.1 0.1 0.1 0.1");
  EXPECT_NE(ok.out.find("within the joint range"), std::string::npos) << ok.out;
}

TEST(CliRefusal, JointAnglesFarBeyondTheRangeAreRefusedAsOutsideItNamingTheOption) {
  // Probe 19: `kinematics --theta 1e10 …` (an encoder count or micro-radians typed as rad) said
  // "forward kinematics did not converge"; the range is the reason, in sim::joint_range_problem.
  for (const auto& [theta, joint] : std::vector<std::pair<std::string, std::string>>{
           {"1e10 0 0 0 0 0", "joint 1 at 1e+10 rad"},
           {"0 0 0 -1e12 0 0 --json", "joint 4 at -1e+12 rad"},
           {"0 0 0 0 1e308 0", "joint 5 at 1e+308 rad"},
           {"0 20 0 0 0 0", "joint 2 at 20 rad"}}) {
    const cli_test::CommandResult r = run_vcloe("kinematics --theta " + theta);
    EXPECT_EQ(r.status, 2) << theta << "\n" << r.out;
    EXPECT_NE(r.out.find("--theta: " + joint + " is outside the joint range +-"), std::string::npos) << theta << "\n" << r.out;
    EXPECT_EQ(r.out.find("forward kinematics"), std::string::npos) << theta << "\n" << r.out;
  }
}

TEST(CliRefusal, AMissedTargetOfValidateModelExitsOneWithItsTableAndNoErrorLine) {
  // Probe 19's X: a missed target ended in CLI11's "Runtime error (see --help)", exit 2. Gravity
  // ten times the earth's at a 1 ms step: both engines part and MuJoCo's loops open (0.18 CPU-s).
  const fs::path d = cli_test::fresh_dir("vcloe-cli-refusals", "validate-model-fail");
  std::ifstream in(config + "robot.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("gravity: [0, 0, -9.81]"), 22, "gravity: [0, 0, -100]");
  std::ofstream((d / "g.yaml").string()) << text;
  const std::string cmd = "validate-model --robot " + (d / "g.yaml").string() + " --duration 0.5 --timestep 0.001";
  const cli_test::CommandResult r = run_vcloe(cmd);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("FAIL: a target was missed"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("vcloe: error"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Runtime error"), std::string::npos) << r.out;
  const cli_test::CommandResult j = run_vcloe(cmd + " --json");
  EXPECT_EQ(j.status, 1) << j.out;
  ASSERT_NE(j.out.find('{'), std::string::npos) << j.out;
  EXPECT_FALSE(nlohmann::json::parse(j.out.substr(j.out.find('{')))["pass"].get<bool>()) << j.out;
}

TEST(CliRefusal, LearnNamesTheTruthWhoseVirtualRobotStopped) {
  // Probe 19's Y: "the virtual robot of  under …": learn passed no truth file name.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-refusals", "learn-truth-name");
  std::ifstream in(config + "truth.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("gravity: [0, 0, -9.81]"), 22, "gravity: [0, 0, -100]");  // it stops at 0.8 s
  std::ofstream((d / "tt.yaml").string()) << text;
  const cli_test::CommandResult r = run_vcloe("learn --truth " + (d / "tt.yaml").string() + " --reference " + config +
                                              "reference.yaml --out " + (d / "l.csv").string() + " --trials 1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("the virtual robot of " + (d / "tt.yaml").string() + " under the controller of"), std::string::npos)
      << r.out;
}

TEST(CliRefusal, RigRunRefusesWhatItsRolesWouldBeforeAnyStarts) {
  // Each passed rig run's checks, then three processes started and 4 to 6 lines followed, often
  // ZeroMQ's errno text without the option ("Invalid argument", "No such device").
  const fs::path d = cli_test::fresh_dir("vcloe-cli-refusals", "rig-run");
  const std::string rig = "rig run --reference " + config + "reference.yaml --out " + (d / "o.csv").string();
  fs::create_directories(d / "empty");
  ASSERT_EQ(run_vcloe("rig keys --dir " + (d / "open").string()).status, 0);
  for (const char* role : {"robot", "vision", "control"}) fs::permissions(d / "open" / (std::string(role) + ".key"), fs::perms::others_read, fs::perm_options::add);
  const std::string ipc = "ipc://" + d.string() + "/";
  for (const char* set : {"shared", "world"}) ASSERT_EQ(run_vcloe("rig keys --dir " + (d / set).string()).status, 0);
  for (const char* role : {"vision", "control"})  // the robot's pair copied to every role
    for (const char* ext : {".key", ".pub"})
      fs::copy_file(d / "shared" / (std::string("robot") + ext), d / "shared" / (std::string(role) + ext),
                    fs::copy_options::overwrite_existing);
  fs::permissions(d / "world", fs::perms::all);
  expect_refused(
      {
          {rig + " --poses " + ipc + std::string(150, 'p'), "--poses: " + ipc + std::string(150, 'p') + ": a socket path of"},
          {rig + " --poses tcp://*:47111", "--poses: host '*' of tcp://*:47111: every interface"},
          {rig + " --poses tcp://[::1]:47112", "--poses: address '[::1]' of tcp://[::1]:47112: an IPv6 address"},
          // Probe 31, L015: a name that does not resolve was listened on in silence ("no pose received").
          {"rig listen --seconds 1 --endpoint tcp://no-such-host.invalid:5555",
           "--endpoint: host 'no-such-host.invalid' of tcp://no-such-host.invalid:5555: no IPv4 address for this name"},
          // Probe 32, h13, h14: a host name bound ("cannot bind: No such device" after the roles started).
          {rig + " --poses tcp://localhost:47114", "--poses: host 'localhost' of tcp://localhost:47114: a host name, which a socket cannot be bound to"},
          {"vision serve --poses tcp://localhost:47115", "--poses: host 'localhost' of tcp://localhost:47115: a host name"},
          {rig + " --poses " + ipc + "d/", "--poses: " + ipc + "d/: ends in '/'"},
          {rig + " --status " + ipc + "d/s", "--status: " + ipc + "d/s: directory " + d.string() + "/d does not exist"},
          {rig + " --keys " + (d / "empty").string(), "--keys: " + (d / "empty").string() + "/robot.key: not found"},
          {rig + " --keys " + (d / "open").string(), "--keys: " + (d / "open").string() + "/robot.key: others may read"},
          {"control --reference " + config + "reference.yaml --out " + (d / "c.csv").string() + " --poses tcp://0.0.0.0:47113",
           "--poses: host '0.0.0.0' of tcp://0.0.0.0:47113: every interface"},
          // Probe 19's S, H2 and Q: the roles' keys-for-other-hosts rule, the move to start, an
          // option with no effect, a key set others may write.
          {rig + " --poses tcp://192.0.2.1:47120", "--poses: tcp://192.0.2.1:47120: a tcp endpoint other hosts can reach, without keys"},
          {rig + " --endpoints tcp --status tcp://192.0.2.1:47121", "--status: tcp://192.0.2.1:47121: a tcp endpoint other hosts"},
          {rig + " --plain-tcp", "--plain-tcp: no endpoint bound here is a tcp endpoint other hosts reach"},
          {rig + " --endpoints tcp --plain-tcp", "--plain-tcp: no endpoint bound here"},
          {rig + " --stand-at 0.1 0 0 0 0 0 --move-speed 1e-300", "--move-speed: from --stand-at to the start of"},
          {rig + " --keys " + (d / "shared").string(), "--keys: " + (d / "shared").string() + "/robot.pub: holds the same public key as control.pub"},
          {rig + " --keys " + (d / "world").string(), "--keys: " + (d / "world").string() + ": others may write this directory"},
      },
      5.0);
  EXPECT_FALSE(fs::exists(d / "o.csv.partial"));
}

TEST(CliRefusal, OneDeviceAsBothCamerasIsRefusedAndOpenCVsOwnLinesStayQuiet) {
  expect_refused({{"vision serve --start-timeout 1 --source camera:/dev/null,/dev/null",
                   "--source: '/dev/null' and '/dev/null' are one device (/dev/null); expected the left and the right camera"}});
  if (!fs::exists("/dev/video0"))
    expect_refused({{"vision serve --start-timeout 1 --source camera:0,1", "--source: camera '0' does not exist (/dev/video0)"}});
  // A device V4L2 cannot open: vcloe's line alone (OpenCV printed "[ WARN:0@0.014] … cap_v4l.cpp" above it).
  const cli_test::CommandResult r = run_vcloe("vision serve --start-timeout 1 --source camera:/dev/null,/dev/zero");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(r.out.rfind("vcloe: error: --source: cannot open camera '/dev/null'", 0), 0u) << r.out;
  EXPECT_EQ(r.out.find("WARN"), std::string::npos) << r.out;
}

TEST(CliRefusal, ADirThatIsAFileIsSaidAsSuchNotAsExisting) {
  // "d: exists; pass --force to overwrite the demo files in it", and with --force "is a file".
  const fs::path d = cli_test::fresh_dir("vcloe-cli-refusals", "dir-file");
  std::ofstream(d / "f") << "x";
  expect_refused({{"demo --dir " + (d / "f").string(), (d / "f").string() + ": is a file; --dir names a directory"},
                  {"study --dir " + (d / "f").string(), (d / "f").string() + ": is a file; --dir names a directory"}});
}

}  // namespace test_cli_refusals
