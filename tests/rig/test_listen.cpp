// `rig listen` (rig/serve.hpp): a pose stream of another schema version is said by its version,
// as the roles say it (docs/protocol.md, "Versions"), not as "no pose received" alone (session
// 26's probe, k7-oldversion).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <zmq.hpp>

#include "../test_support.hpp"
#include "vcloe/bridge/messages.hpp"
#include "vcloe/bridge/transport.hpp"
#include "vcloe/rig/serve.hpp"

namespace vcloe {
namespace {

TEST(RigListen, AStreamOfAnotherSchemaVersionIsSaidByItsVersion) {
  const std::string endpoint = "ipc://" + (std::filesystem::temp_directory_path() /
                                           ("vcloe-listen-" + std::to_string(::getpid()))).string();
  zmq::context_t context;
  zmq::socket_t pub(context, zmq::socket_type::pub);
  pub.bind(endpoint);
  std::atomic<bool> done{false};
  std::thread publisher([&] {  // version-2 pose frames, their CRC right: a peer speaking version 2
    for (std::int64_t j = 0; !done; ++j) {
      bridge::PoseMessage p;
      p.frame = j;
      p.valid = true;
      std::string f = bridge::encode(p);
      const std::uint16_t two = 2;
      std::memcpy(f.data() + 4, &two, 2);
      const std::uint32_t crc = bridge::frame_crc(f);
      std::memcpy(f.data() + 12, &crc, 4);
      pub.send(zmq::buffer(f), zmq::send_flags::none);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  rig::ListenOptions o;
  o.endpoint = endpoint;
  o.seconds = 0.5;
  o.json = true;
  const std::string error = test::error_of([&] { rig::listen(o); });
  done = true;
  publisher.join();
  EXPECT_EQ(error, endpoint + ": no pose received in 0.5 s: the pose source on " + endpoint +
                       " speaks schema version 2; this listener speaks version 3");
}

TEST(RigListen, FramesThatCameAndCouldNotBeUsedAreSaidNotNoPoseAlone) {
  // Probe 35: NaN poses, status or command frames on the pose stream, junk: each ended in "no pose
  // received in 2.5 s" with no reason. The count and the latest reason are said (rig::dropped_meanwhile).
  const bridge::PoseMessage nan_pose = [] {
    bridge::PoseMessage p;
    p.valid = true;
    p.pose(2) = std::numeric_limits<double>::quiet_NaN();
    return p;
  }();
  const std::pair<std::string, std::string> streams[] = {
      {bridge::encode(bridge::StatusMessage{}), "a message of a type this stream does not carry"},
      {bridge::encode(bridge::CommandMessage{}), "a message of a type this stream does not carry"},
      {bridge::encode(nan_pose), "non-finite pose or angle"}, {std::string(80, '\0'), "not a vcloe frame"}};
  int n = 0;
  for (const auto& [frame, why] : streams) {
    const std::string endpoint = "ipc://" + (std::filesystem::temp_directory_path() /
                                             ("vcloe-listen-dropped-" + std::to_string(::getpid()) + "-" + std::to_string(n++))).string();
    zmq::context_t context;
    zmq::socket_t pub(context, zmq::socket_type::pub);
    pub.bind(endpoint);
    std::atomic<bool> done{false};
    std::thread publisher([&, f = frame] {
      while (!done) {
        pub.send(zmq::buffer(f), zmq::send_flags::none);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    });
    rig::ListenOptions o;
    o.endpoint = endpoint;
    o.seconds = 0.4;
    o.json = true;
    std::ostringstream out;
    std::streambuf* const was = std::cout.rdbuf(out.rdbuf());
    const std::string error = test::error_of([&] { rig::listen(o); });
    std::cout.rdbuf(was);
    done = true;
    publisher.join();
    EXPECT_EQ(error.rfind(endpoint + ": no pose received in 0.4 s; ", 0), 0u) << error;
    EXPECT_NE(error.find(" malformed frame(s) were dropped on it meanwhile (the latest: " + why), std::string::npos) << error;
  }
}

// `rig listen --json` on a stream of 100 Hz exposures published at now + `publish_offset_ns` (or,
// `stale_exposures`, exposures of -2^63): its summary.
nlohmann::json listened(std::int64_t publish_offset_ns, bool stale_exposures) {
  const std::string endpoint = "ipc://" + (std::filesystem::temp_directory_path() /
                                           ("vcloe-listen-rate-" + std::to_string(::getpid()))).string();
  zmq::context_t context;
  zmq::socket_t pub(context, zmq::socket_type::pub);
  pub.bind(endpoint);
  std::atomic<bool> done{false};
  std::thread publisher([&] {
    const std::int64_t start = bridge::steady_now_ns() - 10000000000LL;  // exposures from 10 s ago, 10 ms apart
    for (std::int64_t j = 0; !done; ++j) {
      bridge::PoseMessage p;
      p.frame = j;
      p.valid = true;
      p.header.exposure_ns = stale_exposures ? std::numeric_limits<std::int64_t>::min() : start + j * 10000000;
      p.header.publish_ns = bridge::steady_now_ns() + publish_offset_ns;
      pub.send(zmq::buffer(bridge::encode(p)), zmq::send_flags::none);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  rig::ListenOptions o;
  o.endpoint = endpoint;
  o.seconds = 0.4;
  o.json = true;
  std::ostringstream out;
  std::streambuf* const was = std::cout.rdbuf(out.rdbuf());
  const std::string error = test::error_of([&] { rig::listen(o); });
  std::cout.rdbuf(was);
  done = true;
  publisher.join();
  EXPECT_EQ(error, "");
  return nlohmann::json::parse(out.str());
}

TEST(RigListen, TheRateIsTheExposuresWhateverThePublishStampsAndNoneWhenNoneIsPlausible) {
  // Session 28's probe, F: publish stamps 11 days ahead of clean 100 Hz exposures, and stamps of
  // -2^63, both printed "rate_hz": 0.0 — as if nothing had come.
  const std::int64_t eleven_days = 11LL * 86400 * 1000000000;
  const nlohmann::json ahead = listened(eleven_days, false);
  ASSERT_GT(ahead["poses"].get<int>(), 10) << ahead;
  EXPECT_NEAR(ahead["rate_hz"].get<double>(), 100.0, 1e-3) << ahead;  // the exposures' own spacing
  EXPECT_TRUE(ahead["latency_ms"]["p50"].is_null()) << ahead;          // no latency from a stamp ahead
  const nlohmann::json stale = listened(0, true);
  ASSERT_GT(stale["poses"].get<int>(), 10) << stale;
  EXPECT_TRUE(stale["rate_hz"].is_null()) << stale;  // not measured, not 0 Hz
}

}  // namespace
}  // namespace vcloe
