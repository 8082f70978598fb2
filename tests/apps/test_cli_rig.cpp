// Specification of `vcloe rig listen` (docs/protocol.md): pointed at a live pose stream it
// reports the stream's rate, latency, gaps and invalid poses as a tracker check would; pointed
// at nothing, it says so and fails.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>
#include <zmq.hpp>

#include "cli_fixtures.hpp"
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
  const auto r = cli_test::vcloe("rig listen --endpoint " + endpoint + " --frames 200 --seconds 8 --json");
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
  const auto r = cli_test::vcloe("rig listen --endpoint ipc:///tmp/vcloe-nobody-" + std::to_string(::getpid()) +
                                 " --seconds 0.5");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("no pose received in"), std::string::npos) << r.out;
}

TEST(CliRig, ServeAndControlRefuseBadArgumentsNamingThem) {
  auto r = cli_test::vcloe("vision serve --source camera:/dev/vcloe-no-such-camera,/dev/vcloe-no-such-camera-2");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("camera '/dev/vcloe-no-such-camera' does not exist"), std::string::npos) << r.out;
  r = cli_test::vcloe("vision serve --source camera:57,58");  // Video4Linux indices with no device
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("cannot open camera '57'"), std::string::npos) << r.out;
  r = cli_test::vcloe("vision serve --source camera:0");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("camera:LEFT,RIGHT needs two devices"), std::string::npos) << r.out;
  r = cli_test::vcloe("vision serve --source webcam");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("expected virtual, images:DIR or camera:LEFT,RIGHT"), std::string::npos) << r.out;
  r = cli_test::vcloe("robot serve --reference " + std::string(VCLOE_SOURCE_DIR) + "/config/reference.yaml --pose-timeout -1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--pose-timeout"), std::string::npos) << r.out;
  r = cli_test::vcloe("robot serve --reference " + std::string(VCLOE_SOURCE_DIR) +
                      "/config/reference.yaml --start-timeout 0.2 --status ipc:///tmp/vcloe-alone-" +
                      std::to_string(::getpid()) + " --camera-stream ipc:///tmp/vcloe-alone-camera-" +
                      std::to_string(::getpid()));
  EXPECT_EQ(r.status, 2) << r.out;  // nobody connects: it says who is missing, it never hangs
  EXPECT_NE(r.out.find("no controller on"), std::string::npos) << r.out;
  r = cli_test::vcloe("control --reference " + std::string(VCLOE_SOURCE_DIR) + "/config/reference.yaml --out " +
                      std::string(VCLOE_SOURCE_DIR) + "/config/reference.yaml --force");
  EXPECT_EQ(r.status, 2) << r.out;  // never its own input
}
