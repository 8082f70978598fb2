// The rig's handshake (docs/protocol.md, "Handshake"): a hello or end frame from a hostile peer
// never crashes the decoder or the rule that compares hellos (bridge/handshake.hpp), and a
// refusal is always one line. Each input is decoded as it is, and its bytes are also put into
// the body of a well-formed hello and end frame (right version, type, length and CRC-32), which
// lets the fuzzer reach the body checks; every hello decoded is compared with the hello of each
// role as that role would hear it. A decoded message re-encodes to the same frame.
#include <cstring>

#include "fuzz_support.hpp"
#include "vcloe/bridge/handshake.hpp"

namespace {

using namespace vcloe;

// A frame of `type` whose body is `body` cut or zero-padded to `length` bytes, CRC-32 right.
std::string framed(bridge::MessageType type, std::uint32_t length, const std::string& body) {
  bridge::HeartbeatMessage h;
  std::string f = bridge::encode(h);
  const auto t = static_cast<std::uint16_t>(type);
  std::memcpy(f.data() + 6, &t, 2);
  std::memcpy(f.data() + 8, &length, 4);
  std::string b = body.substr(0, length);
  b.resize(length, '\0');
  f += b;
  const std::uint32_t crc = bridge::frame_crc(f);
  std::memcpy(f.data() + 12, &crc, 4);
  return f;
}

// The hello each role sends on the default files (any digests: the rule compares, never reads them).
bridge::HelloMessage role_hello(bridge::Role role) {
  bridge::HelloMessage h;
  h.role = role;
  for (std::size_t k = 0; k < bridge::kRunFiles; ++k)
    if (bridge::reads(role, static_cast<bridge::RunFile>(k))) h.files[k] = bridge::Digest{static_cast<std::uint8_t>(k + 1)};
  return h;
}

void compare_with_every_role(const bridge::HelloMessage& peer) {
  const std::array<std::string, bridge::kRunFiles> given = {"/e.yaml", "/r.yaml", "/robot.yaml", "the payload", "/p.csv"};
  for (const auto me : {bridge::Role::Robot, bridge::Role::Vision, bridge::Role::Control})
    for (const auto expected : {bridge::Role::Robot, bridge::Role::Vision, bridge::Role::Control}) {
      const std::string line = bridge::hello_problem(role_hello(me), given, peer, expected, "ipc:///x");
      if (line.find_first_of("\n\r") != std::string::npos) fuzz::finding("a refusal of several lines: " + line);
      if (peer.role != expected && line.empty()) fuzz::finding("a hello of another role accepted");
    }
}

void decode_and_check(const std::string& frame) {
  const bridge::Decoded d = bridge::decode(frame);
  if (d.message.has_value() != (d.error == bridge::DecodeError::None)) fuzz::finding("a message and an error together, or neither");
  if (!d.message) return;
  if (bridge::encode(*bridge::decode(bridge::encode(*d.message)).message) != bridge::encode(*d.message))
    fuzz::finding("a decoded message does not re-encode to the same frame");
  if (const auto* h = std::get_if<bridge::HelloMessage>(&*d.message)) compare_with_every_role(*h);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input = fuzz::text_of(data, size);
  decode_and_check(input);
  decode_and_check(framed(bridge::MessageType::Hello, 168, input));
  decode_and_check(framed(bridge::MessageType::End, 24, input));
  return 0;
}
