// Specification of `vcloe rig listen` (docs/protocol.md): pointed at a live pose stream it
// reports the stream's rate, latency, gaps and invalid poses as a tracker check would; pointed
// at nothing, it says so and fails.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>
#include <nlohmann/json.hpp>
#include <thread>
#include <zmq.hpp>

#include "cli_fixtures.hpp"
#include "rig_processes.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/bridge/transport.hpp"

using namespace std::chrono_literals;

TEST(CliRig, ListenReportsRateLatencyGapsAndInvalidPosesOfALiveStream) {
  const std::string endpoint = "ipc:///tmp/vcloe-listen-" + std::to_string(::getpid());
  zmq::context_t ctx;
  vcloe::bridge::Publisher pub(ctx, endpoint);
  std::atomic<bool> stop{false};
  std::thread tracker([&] {  // 100 Hz, every 10th pose occluded, frames 55, 155, 255, ... never sent
    const auto t0 = std::chrono::steady_clock::now();
    for (std::int64_t j = 0; j < 1000 && !stop; ++j) {
      std::this_thread::sleep_until(t0 + j * 10ms);
      vcloe::bridge::PoseMessage p;
      p.frame = j;
      p.header.exposure_ns = vcloe::bridge::steady_now_ns();
      p.pose << 0, 0, 0.18, 0, 0, 0;
      p.valid = j % 10 != 0;
      p.markers_used = p.valid ? 7 : 2;
      if (j % 100 != 55) pub.publish(p);
    }
  });
  const auto r = cli_test::run_vcloe("rig listen --endpoint " + endpoint + " --frames 200 --seconds 8 --json");
  stop = true;
  tracker.join();
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  EXPECT_EQ(j["poses"], 200);
  EXPECT_NEAR(j["rate_hz"].get<double>(), 100.0, 10.0);
  EXPECT_GE(j["invalid_poses"].get<int>(), 19) << j.dump();
  EXPECT_LE(j["invalid_poses"].get<int>(), 21);
  EXPECT_EQ(j["malformed"], 0);
  EXPECT_EQ(j["sequence_gaps"], 0);  // nothing lost in transport
  EXPECT_GE(j["frame_gaps"].get<int>(), 1);  // but the tracker skipped a frame in every 100:
  EXPECT_LE(j["frame_gaps"].get<int>(), 3);  // 200 received span 2 or 3 of them
  EXPECT_LT(j["latency_ms"]["p99"].get<double>(), 50.0);
  EXPECT_GE(j["latency_ms"]["p50"].get<double>(), 0.0);
}

TEST(CliRig, ListenToNothingSaysSoAndFails) {
  const auto r = cli_test::run_vcloe("rig listen --endpoint ipc:///tmp/vcloe-nobody-" + std::to_string(::getpid()) +
                                 " --seconds 0.5");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("no pose received in"), std::string::npos) << r.out;
}

TEST(CliRig, ServeAndControlRefuseBadArgumentsNamingThem) {
  auto r = cli_test::run_vcloe("vision serve --source camera:/dev/vcloe-no-such-camera,/dev/vcloe-no-such-camera-2");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("camera '/dev/vcloe-no-such-camera' does not exist"), std::string::npos) << r.out;
  r = cli_test::run_vcloe("vision serve --source camera:57,58");  // Video4Linux indices with no device
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("camera '57' does not exist (/dev/video57)"), std::string::npos) << r.out;  // before OpenCV
  r = cli_test::run_vcloe("vision serve --source camera:0");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("camera:LEFT,RIGHT needs two devices"), std::string::npos) << r.out;
  r = cli_test::run_vcloe("vision serve --source webcam");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("expected virtual, images:DIR or camera:LEFT,RIGHT"), std::string::npos) << r.out;
  r = cli_test::run_vcloe("robot serve --reference " + std::string(VCLOE_SOURCE_DIR) + "/config/reference.yaml --pose-timeout -1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--pose-timeout"), std::string::npos) << r.out;
  r = cli_test::run_vcloe("robot serve --reference " + std::string(VCLOE_SOURCE_DIR) +
                      "/config/reference.yaml --start-timeout 0.2 --status ipc:///tmp/vcloe-alone-" +
                      std::to_string(::getpid()) + " --camera-stream ipc:///tmp/vcloe-alone-camera-" +
                      std::to_string(::getpid()));
  EXPECT_EQ(r.status, 2) << r.out;  // nobody connects: it says who is missing, it never hangs
  EXPECT_NE(r.out.find("no hello from the controller on"), std::string::npos) << r.out;
  r = cli_test::run_vcloe("control --reference " + std::string(VCLOE_SOURCE_DIR) + "/config/reference.yaml --out " +
                      std::string(VCLOE_SOURCE_DIR) + "/config/reference.yaml --force");
  EXPECT_EQ(r.status, 2) << r.out;  // never its own input
}

namespace {

// The processes whose command line mentions `text`.
std::vector<pid_t> processes_mentioning(const std::string& text) {
  std::vector<pid_t> found;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "cmdline");
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    if (cmd.find(text) != std::string::npos) found.push_back(std::stoi(name));
  }
  return found;
}

// The state letter and parent of a process ('\0' if it is gone).
std::pair<char, pid_t> state_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto paren = all.rfind(')');
  if (paren == std::string::npos) return {'\0', 0};
  std::istringstream rest(all.substr(paren + 2));
  char state = '\0';
  pid_t parent = 0;
  rest >> state >> parent;
  return {state, parent};
}

// The live (not zombie) children of `parent`.
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> found;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto [state, p] = state_of(std::stoi(name));
    if (p == parent && state != 'Z' && state != '\0') found.push_back(std::stoi(name));
  }
  return found;
}

std::size_t lines_of(const std::filesystem::path& p) {
  std::ifstream in(p);
  return static_cast<std::size_t>(std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n'));
}

}  // namespace

TEST(CliRig, InterruptingRigRunStopsEveryProcessAndKeepsTheRecordingUnderItsPartialName) {
  // SIGINT or SIGTERM ended `rig run` alone (exit 130/143, TRACE.partial left) while its robot,
  // vision and control ran on to the end and control wrote TRACE after the parent had failed.
  for (const int sig : {SIGINT, SIGTERM}) {
    const std::string name = sig == SIGINT ? "SIGINT" : "SIGTERM";
    const std::filesystem::path d = cli_test::fresh_dir("vcloe-cli-rig", name);
    const std::string ref = (d / "long.yaml").string(), out = (d / "o.csv").string();
    ASSERT_EQ(cli_test::run_vcloe("trajectory random --seed 4 --duration 60 --out " + ref).status, 0);
    cli_test::Process rig("rig run --reference " + ref + " --out " + out, d / "rig.log");
    for (int i = 0; i < 6000 && lines_of(out + ".partial") < 50; ++i) std::this_thread::sleep_for(10ms);
    ASSERT_GE(lines_of(out + ".partial"), 50u) << rig.output();
    const std::vector<pid_t> rig_pid = processes_mentioning("rig run --reference " + ref);
    ASSERT_EQ(rig_pid.size(), 1u);
    const std::vector<pid_t> children = children_of(rig_pid[0]);
    EXPECT_EQ(children.size(), 3u);  // robot, vision, control
    rig.kill(sig);
    const int status = rig.wait(std::chrono::seconds(60));
    std::vector<pid_t> left;
    for (const pid_t pid : children) {
      const char state = state_of(pid).first;
      if (state != '\0' && state != 'Z') left.push_back(pid);
    }
    for (const pid_t pid : left) ::kill(pid, SIGKILL);  // (the unfixed rig's orphans)
    EXPECT_EQ(status, 128 + sig) << rig.output();
    EXPECT_TRUE(left.empty()) << left.size() << " of the rig's processes still running after it ended";
    const std::string log = rig.output();
    const std::string last = log.substr(log.rfind('\n', log.size() - 2) + 1);
    EXPECT_EQ(last.rfind("vcloe: error: rig run: interrupted by " + name, 0), 0u) << log;
    EXPECT_NE(last.find("kept in " + out + ".partial"), std::string::npos) << log;
    EXPECT_NE(log.find("robot serve: controlled stop"), std::string::npos) << log;
    // (was "control: : the N poses…" when the robot's stop ended control's loop before the signal)
    EXPECT_NE(log.find("control: interrupted by " + name + ": the "), std::string::npos) << log;
    std::this_thread::sleep_for(500ms);  // nobody goes on to write the final name
    EXPECT_FALSE(std::filesystem::exists(out)) << log;
    EXPECT_FALSE(std::filesystem::exists(out + ".meta.json"));
    ASSERT_TRUE(std::filesystem::exists(out + ".partial"));
    EXPECT_GE(vcloe::read_trace(out + ".partial").size(), 49u);
  }
}

TEST(CliRig, KillingRigRunLeavesNoChildAndNoTraceUnderItsFinalName) {
  // SIGKILL cannot be caught: the children asked the kernel for SIGTERM when their parent ends
  // (PR_SET_PDEATHSIG). They ran on to the end before, and control wrote TRACE.
  const std::filesystem::path d = cli_test::fresh_dir("vcloe-cli-rig", "SIGKILL");
  const std::string ref = (d / "long.yaml").string(), out = (d / "o.csv").string();
  ASSERT_EQ(cli_test::run_vcloe("trajectory random --seed 4 --duration 60 --out " + ref).status, 0);
  cli_test::Process rig("rig run --hold 0.05 --reference " + ref + " --out " + out, d / "rig.log");
  for (int i = 0; i < 6000 && lines_of(out + ".partial") < 50; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_GE(lines_of(out + ".partial"), 50u) << rig.output();
  const std::vector<pid_t> rig_pid = processes_mentioning("rig run --hold 0.05 --reference " + ref);
  ASSERT_EQ(rig_pid.size(), 1u);
  const std::vector<pid_t> children = children_of(rig_pid[0]);
  EXPECT_EQ(children.size(), 3u);  // robot, vision, control
  rig.kill(SIGKILL);
  EXPECT_EQ(rig.wait(std::chrono::seconds(10)), 128 + SIGKILL);
  std::vector<pid_t> left = children;
  for (int i = 0; i < 1000 && !left.empty(); ++i) {  // their controlled stops: well within 10 s
    std::this_thread::sleep_for(10ms);
    left.erase(std::remove_if(left.begin(), left.end(), [](pid_t pid) {
                 const char state = state_of(pid).first;
                 return state == '\0' || state == 'Z';
               }),
               left.end());
  }
  for (const pid_t pid : left) ::kill(pid, SIGKILL);  // (the unfixed rig's orphans)
  EXPECT_TRUE(left.empty()) << left.size() << " of the rig's processes still running 10 s after it was killed";
  EXPECT_FALSE(std::filesystem::exists(out)) << rig.output();
  EXPECT_FALSE(std::filesystem::exists(out + ".meta.json"));
  EXPECT_TRUE(std::filesystem::exists(out + ".partial"));
}

TEST(CliRig, RigRunPrintsItsEndpointsAndTakesThoseGiven) {
  const std::filesystem::path d = cli_test::fresh_dir("vcloe-cli-rig", "endpoints");
  const std::string ref = (d / "r.yaml").string(), out = (d / "o.csv").string();
  ASSERT_EQ(cli_test::run_vcloe("trajectory random --seed 4 --duration 1 --out " + ref).status, 0);
  const std::string poses = "ipc://" + (d / "my-poses").string(), status = "ipc://" + (d / "my-status").string();
  const auto r = cli_test::run_vcloe("rig run --reference " + ref + " --out " + out + " --poses " + poses +
                                     " --status " + status + " --robot-timeout 0.5 --vision-robot-timeout 1 --start-timeout 20");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("rig run: endpoints --camera-stream ipc://"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" --poses " + poses + " --commands ipc://"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" --status " + status + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; payload none\n"), std::string::npos) << "the robot states what it carries: " << r.out;
  // Every timeout is an option of rig run, refused there as the processes would.
  for (const std::string bad : {"--robot-timeout 0.001", "--vision-robot-timeout 0", "--start-timeout 0.001", "--hold -1"}) {
    const auto b = cli_test::run_vcloe("rig run --reference " + ref + " --out " + (d / "b.csv").string() + " " + bad);
    EXPECT_EQ(b.status, 2) << bad << ": " << b.out;
    EXPECT_NE(b.out.find(bad.substr(0, bad.find(' ')) + ":"), std::string::npos) << b.out;
  }
}
