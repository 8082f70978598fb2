// `rig listen` (rig/serve.hpp): a pose stream of another schema version is said by its version,
// as the roles say it (docs/protocol.md, "Versions"), not as "no pose received" alone (session
// 26's probe, k7-oldversion).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <zmq.hpp>

#include "../test_support.hpp"
#include "vcloe/bridge/messages.hpp"
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

}  // namespace
}  // namespace vcloe
