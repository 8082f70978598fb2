// Specification of the command line on the classes session 20's probe left open (docs/robustness.md,
// "Session 20's probe"): every option's problem said under the option typed (V), rig run's
// refusals in one line (M), the defaults of the installation (ENV), and rig run's leftovers.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using cli_test::run_vcloe;

namespace test_cli_probe20_open {

const std::string& config = cli_test::config_dir;

// A refusal in one line: exit status 2, the single line `vcloe: error: <head>…`, containing `has`
// and none of `internal` (a settings struct's own name for what the user typed).
void expect_one_line(const std::string& args, const std::string& head, const std::string& has,
                     const std::vector<std::string>& internal = {}) {
  const cli_test::CommandResult r = run_vcloe(args);
  EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
  EXPECT_EQ(r.out.rfind("vcloe: error: " + head, 0), 0u) << args << "\n" << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << args << "\n" << r.out;
  EXPECT_NE(r.out.find(has), std::string::npos) << args << "\n" << r.out;
  for (const std::string& word : internal) EXPECT_EQ(r.out.find(word), std::string::npos) << word << ": " << r.out;
}

TEST(CliProbe20Open, EveryOptionOfASettingIsReportedUnderTheOptionTyped) {
  // Was: `robot serve: max_invalid_in_row: …`, `trajectory random options: amplitudes: …`,
  // `random trajectory: duration: …`, `--f0 1e308` unbounded, `--source images:` as ": no such
  // directory" (rs-max-invalid0, trj-rand-pos-amp0, vm-duration0, trj-rand-f0-huge, …). The
  // settings' problems reach the user through one place (main.cpp: said_with_options), which
  // says each under the option the user typed for its key.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe20-open", "options");
  const std::string ipc = "ipc://" + d.string();
  const std::string robot = "robot serve --reference " + config + "reference.yaml --poses " + ipc + "/p --commands " +
                            ipc + "/m --status " + ipc + "/s --camera-stream " + ipc + "/c --start-timeout 1 ";
  expect_one_line(robot + "--max-invalid 0", "--max-invalid: expected 1 to 1000000, got 0", "got 0",
                  {"max_invalid_in_row", "robot serve:"});
  expect_one_line(robot + "--max-command-speed 0", "--max-command-speed: expected a positive speed", "got 0",
                  {"max_command_speed"});
  expect_one_line(robot + "--pose-timeout 100", "--pose-timeout", "100", {"pose_timeout"});
  expect_one_line("vision serve --source images: --poses " + ipc + "/vp --status " + ipc + "/vs --start-timeout 1",
                  "--source: images:DIR needs the folder", "'images:'");
  expect_one_line("vision serve --source images:" + (d / "none").string() + " --poses " + ipc + "/vp --status " + ipc +
                      "/vs --start-timeout 1",
                  "--source: " + (d / "none").string() + ": no such directory", "list file");
}

TEST(CliProbe20Open, EveryOptionOfARandomTrajectoryIsReportedUnderTheOptionTyped) {
  // The second half of the class (two tests, each within the suite's time per test).
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe20-open", "random");
  const std::string random = "trajectory random --duration 2 --out " + (d / "t.yaml").string() + " ";
  expect_one_line(random + "--position-amplitude 0", "--position-amplitude: ", "got 0", {"amplitudes"});
  expect_one_line(random + "--angle-amplitude 4", "--angle-amplitude: ", "got 4", {"amplitudes"});
  expect_one_line(random + "--f0 1e308", "--f0: expected at most ", "got 1e+308", {"inf Hz"});
  expect_one_line(random + "--harmonics 0", "--harmonics: ", "got 0");
  expect_one_line("validate-model --duration 0", "--duration: ", "got 0", {"random trajectory:"});
  expect_one_line("truth random --seed 1 --platform-spread 7 --out " + (d / "truth.yaml").string(), "--platform-spread",
                  "7", {"platform:"});
  EXPECT_FALSE(fs::exists(d / "t.yaml"));
  EXPECT_FALSE(fs::exists(d / "truth.yaml"));
}

TEST(CliProbe20Open, AFileKeyCoupledToADefaultIsBlamedWhereTheFileGivesIt) {
  // An excitation file's `duration: 1` left the default regressor_period 10 samples: refused at
  // "document root: option 'regressor_period'" (xc-duration-short-period). Now at the key the
  // file gives.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe20-open", "coupled");
  std::string text = cli_test::read_file(config + "excitation.yaml");
  text = std::regex_replace(text, std::regex(R"(\nduration: [0-9.]+)"), "\nduration: 1");
  std::ofstream(d / "x.yaml") << text;
  expect_one_line("excite --config " + (d / "x.yaml").string() + " --out " + (d / "e.yaml").string(),
                  (d / "x.yaml").string() + ":", "key 'duration': regressor_period: expected 11 to 10^4",
                  {"document root"});
}

TEST(CliProbe20Open, ACameraTooSlowForTheRateLimitIsTheExperimentsKeyInOneLine) {
  // rig-camera-1hz: `rig run` with `camera_hz: 1` said "--max-command-speed: expected at most
  // 0.9948 rad/s, got 10" (an option rig run does not have, nobody gave), then three more lines.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe20-open", "camera1hz");
  std::ofstream(d / "e.yaml") << "timing:\n  camera_hz: 1\n  latency: 0.01\n";
  const std::string e = (d / "e.yaml").string();
  expect_one_line("rig run --reference " + config + "reference.yaml --experiment " + e + " --out " +
                      (d / "o.csv").string() + " --start-timeout 10",
                  e + ": key 'timing.camera_hz': expected at least ", "got 1", {"max_command_speed"});
  // Given on robot serve, the speed is the option's: said under it.
  const std::string ipc = "ipc://" + d.string();
  expect_one_line("robot serve --reference " + config + "reference.yaml --experiment " + e +
                      " --max-command-speed 5 --start-timeout 10 --poses " + ipc + "/p --commands " + ipc +
                      "/m --status " + ipc + "/s --camera-stream " + ipc + "/c",
                  "--max-command-speed: expected at most ", "timing.camera_hz of " + e);
  EXPECT_FALSE(fs::exists(d / "o.csv"));
}

TEST(CliProbe20Open, RigRunRefusesEveryFileARoleReadsInOneLineBeforeAnyStarts) {
  // The truth, the stereo camera's rig and marker files were read by the roles once started: the
  // role's line, then the others' "interrupted" lines and rig run's summary (rrs-truth-bad-key,
  // rrs-camera-rig-bad-key, rrs-camera-markers-missing, rr-camera-stereo-rig-file-missing). rig
  // run now calls each role's own first step (check_robot_serve, …) before any starts.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe20-open", "roles");
  std::ofstream(d / "t.yaml") << cli_test::read_file(config + "truth.yaml") << "bogus: 1\n";
  std::ofstream(d / "r.yaml") << cli_test::read_file(config + "rig.yaml") << "bogus: 1\n";
  const std::string run = "rig run --reference " + config + "reference.yaml --out " + (d / "o.csv").string() + " ";
  expect_one_line(run + "--truth " + (d / "t.yaml").string(), (d / "t.yaml").string() + ":", "key 'bogus': unknown key");
  expect_one_line(run + "--truth " + config + "robot.yaml", config + "robot.yaml:", "inconsistent inertia");
  expect_one_line(run + "--camera stereo --camera-rig " + (d / "r.yaml").string(), (d / "r.yaml").string() + ":",
                  "key 'bogus': unknown key");
  expect_one_line(run + "--camera stereo --camera-markers " + (d / "missing.yaml").string(),
                  (d / "missing.yaml").string() + ":", "not found");
  EXPECT_FALSE(fs::exists(d / "o.csv"));
  EXPECT_FALSE(fs::exists(d / "o.csv.partial"));
}

TEST(CliProbe20Open, ARoleFailingAtRunTimeIsSaidOnceThenOneSummaryLine) {
  // tcp-port-in-use: vision's bind error, then after the start timeout control's and the
  // robot's errors and the summary. The others are stopped at once now and their lines (its
  // consequences) not printed: the role's error, then one line of rig run naming the role.
  // The start timeout is 60 s so that "at once" (half of it) holds on an instrumented build
  // (stop 38's CI: 5.1 s against a 5 s timeout under ASan) and waiting for it still fails.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe20-open", "port");
  const int held = socket(AF_INET, SOCK_STREAM, 0);  // a port another program holds: this test's
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof a;
  ASSERT_EQ(bind(held, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(held, 1), 0);
  ASSERT_EQ(getsockname(held, reinterpret_cast<sockaddr*>(&a), &size), 0);
  const std::string port = std::to_string(ntohs(a.sin_port));
  const auto t0 = std::chrono::steady_clock::now();
  const cli_test::CommandResult r = run_vcloe("rig run --reference " + config + "reference.yaml --out " +
                                              (d / "o.csv").string() + " --endpoints tcp --poses tcp://127.0.0.1:" +
                                              port + " --start-timeout 60");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  close(held);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(r.out.find("interrupted"), std::string::npos) << r.out;
  std::size_t errors = 0;
  for (std::size_t at = r.out.find("vcloe: error: "); at != std::string::npos; at = r.out.find("vcloe: error: ", at + 1))
    ++errors;
  EXPECT_EQ(errors, 2u) << "vision's error, then rig run's line:\n" << r.out;
  EXPECT_NE(r.out.find("vcloe: error: tcp://127.0.0.1:" + port + ": cannot bind"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vcloe: error: rig run: ended with vision (exit status 2), its message above; "),
            std::string::npos)
      << r.out;
  EXPECT_LT(seconds, 30.0) << "the others stopped at once, not at their 60 s start timeout:\n" << r.out;
}

// The binary and a config directory laid out as `cmake --install` lays them out under `prefix`.
fs::path installed(const fs::path& prefix) {
  fs::create_directories(prefix / "bin");
  fs::create_directories(prefix / "share/vcloe");
  fs::copy(cli_test::config_dir, prefix / "share/vcloe/config", fs::copy_options::recursive);
  std::error_code ec;
  fs::create_hard_link(VCLOE_BINARY, prefix / "bin/vcloe", ec);
  if (ec) fs::copy_file(VCLOE_BINARY, prefix / "bin/vcloe");
  return prefix / "bin/vcloe";
}

TEST(CliProbe20Open, TheDefaultsAreTheInstallationsAndABadOneSaysItIsTheDefault) {
  // env-defaults-excite: the defaults were files of the source tree the binary was built from,
  // which moved on; the installed binary finds share/vcloe/config beside its bin/ instead.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe20-open", "install");
  const fs::path vcloe = installed(d / "prefix");
  const std::string share = (d / "prefix/share/vcloe/config").string();
  const cli_test::CommandResult help = cli_test::run_shell(vcloe.string() + " excite --help 2>&1");
  EXPECT_NE(help.out.find(share + "/excitation.yaml"), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find(config + "excitation.yaml"), std::string::npos) << help.out;
  // A default that does not read says it is the default, and which option replaces it.
  std::ofstream(share + "/excitation.yaml", std::ios::app) << "bogus: 1\n";
  const cli_test::CommandResult bad =
      cli_test::run_shell(vcloe.string() + " excite --out " + (d / "e.yaml").string() + " 2>&1");
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_EQ(std::count(bad.out.begin(), bad.out.end(), '\n'), 1) << bad.out;
  EXPECT_NE(bad.out.find("key 'bogus'"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("is the default of --config, from the installation"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("give --config FILE for another"), std::string::npos) << bad.out;
  // The build tree's binary keeps the source tree's files.
  const cli_test::CommandResult built = run_vcloe("excite --help");
  EXPECT_NE(built.out.find(config + "excitation.yaml"), std::string::npos) << built.out;
}

TEST(CliProbe20Open, RigRunRemovesTheDirectoriesOfRigRunsThatNoLongerRun) {
  // A SIGKILLed rig run leaves /tmp/vcloe-rig-XXXXXX; nothing removed them (~1360 on the probe's
  // machine). Each now names its rig run in `pid`; the next rig run removes those whose process
  // is gone, and keeps a running one's and one without the file.
  const fs::path tmp = fs::temp_directory_path();
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  const fs::path dead = tmp / ("vcloe-rig-test" + std::to_string(getpid()) + "a");
  const fs::path alive = tmp / ("vcloe-rig-test" + std::to_string(getpid()) + "b");
  const fs::path unnamed = tmp / ("vcloe-rig-test" + std::to_string(getpid()) + "c");
  for (const fs::path& p : {dead, alive, unnamed}) fs::create_directories(p);
  std::ofstream(dead / "pid") << gone << "\n";
  std::ofstream(alive / "pid") << getpid() << "\n";
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe20-open", "leftovers");
  std::ofstream(d / "t.yaml") << cli_test::read_file(config + "truth.yaml") << "bogus: 1\n";
  // A rig run refused at its roles' check: its own directory was made, and is removed too.
  const cli_test::CommandResult r = run_vcloe("rig run --reference " + config + "reference.yaml --truth " +
                                              (d / "t.yaml").string() + " --out " + (d / "o.csv").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(alive));
  EXPECT_TRUE(fs::exists(unnamed));
  for (const fs::path& p : {dead, alive, unnamed}) fs::remove_all(p);
}

}  // namespace test_cli_probe20_open
