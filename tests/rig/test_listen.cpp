// `rig listen` (rig/serve.hpp): a pose stream of another schema version is said by its version,
// as the roles say it (docs/protocol.md, "Versions"), not as "no pose received" alone (session
// 26's probe, k7-oldversion).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
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

// `rig listen --json` for `seconds` on an ipc stream whose publisher sends frame(j), j = 0, 1, …,
// every `period`: its refusal ("" if none) and what it printed.
struct Listened {
  std::string error, out;
};
Listened listen_beside(const std::string& name, double seconds, std::chrono::milliseconds period,
                       const std::function<std::string(std::int64_t)>& frame) {
  const std::string endpoint = "ipc://" + (std::filesystem::temp_directory_path() /
                                           ("vcloe-listen-" + name + "-" + std::to_string(::getpid()))).string();
  zmq::context_t context;
  zmq::socket_t pub(context, zmq::socket_type::pub);
  pub.bind(endpoint);
  std::atomic<bool> done{false};
  std::thread publisher([&] {
    for (std::int64_t j = 0; !done; ++j) {
      pub.send(zmq::buffer(frame(j)), zmq::send_flags::none);
      std::this_thread::sleep_for(period);
    }
  });
  rig::ListenOptions o;
  o.endpoint = endpoint;
  o.seconds = seconds;
  o.json = true;
  std::ostringstream out;
  std::streambuf* const was = std::cout.rdbuf(out.rdbuf());
  Listened l{test::error_of([&] { rig::listen(o); }), ""};
  std::cout.rdbuf(was);
  done = true;
  publisher.join();
  l.out = out.str();
  return l;
}

std::string endpoint_of(const std::string& error) { return error.substr(0, error.find(": ")); }

TEST(RigListen, AStreamOfAnotherSchemaVersionIsSaidByItsVersion) {
  // Version-2 pose frames, their CRC right: a peer speaking version 2.
  const Listened l = listen_beside("version", 0.5, std::chrono::milliseconds(10), [](std::int64_t j) {
    bridge::PoseMessage p;
    p.frame = j;
    p.valid = true;
    std::string f = bridge::encode(p);
    const std::uint16_t two = 2;
    std::memcpy(f.data() + 4, &two, 2);
    const std::uint32_t crc = bridge::frame_crc(f);
    std::memcpy(f.data() + 12, &crc, 4);
    return f;
  });
  const std::string endpoint = endpoint_of(l.error);
  EXPECT_EQ(l.error, endpoint + ": no pose received in 0.5 s: the pose source on " + endpoint +
                         " speaks schema version 2; this listener speaks version 3");
}

TEST(RigListen, FramesThatCameAndCouldNotBeUsedAreSaidNotNoPoseAlone) {
  // Probe 35: NaN poses, status or command frames on the pose stream, junk: each ended in "no pose
  // received in 2.5 s" with no reason. The count and the latest reason are said (rig::dropped_meanwhile).
  bridge::PoseMessage nan_pose;
  nan_pose.valid = true;
  nan_pose.pose(2) = std::numeric_limits<double>::quiet_NaN();
  const std::pair<std::string, std::string> streams[] = {
      {bridge::encode(bridge::StatusMessage{}), "a message of a type this stream does not carry"},
      {bridge::encode(bridge::CommandMessage{}), "a message of a type this stream does not carry"},
      {bridge::encode(nan_pose), "non-finite pose or angle"}, {std::string(80, '\0'), "not a vcloe frame"}};
  int n = 0;
  for (const auto& [frame, why] : streams) {
    const Listened l = listen_beside("dropped-" + std::to_string(n++), 0.4, std::chrono::milliseconds(5),
                                     [&f = frame](std::int64_t) { return f; });
    EXPECT_EQ(l.error.rfind(endpoint_of(l.error) + ": no pose received in 0.4 s; ", 0), 0u) << l.error;
    EXPECT_NE(l.error.find(" malformed frame(s) were dropped on it meanwhile (the latest: " + why), std::string::npos) << l.error;
  }
}

// `rig listen --json` on a stream of 100 Hz exposures published at now + `publish_offset_ns` (or,
// `stale_exposures`, exposures of -2^63): its summary.
nlohmann::json listened(std::int64_t publish_offset_ns, bool stale_exposures) {
  const std::int64_t start = bridge::steady_now_ns() - 10000000000LL;  // exposures from 10 s ago, 10 ms apart
  const Listened l = listen_beside("rate", 0.4, std::chrono::milliseconds(2), [&](std::int64_t j) {
    bridge::PoseMessage p;
    p.frame = j;
    p.valid = true;
    p.header.exposure_ns = stale_exposures ? std::numeric_limits<std::int64_t>::min() : start + j * 10000000;
    p.header.publish_ns = bridge::steady_now_ns() + publish_offset_ns;
    return bridge::encode(p);
  });
  EXPECT_EQ(l.error, "");
  return nlohmann::json::parse(l.out);
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
