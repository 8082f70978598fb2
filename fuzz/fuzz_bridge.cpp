// Bridge frames (docs/protocol.md): bridge::decode never throws and never reads past the frame.
// Random bytes almost never carry a valid CRC-32, so each input is also decoded with its CRC
// field recomputed, which lets the fuzzer reach the body checks. A decoded message re-encodes
// to a frame that decodes to the same message (the re-encoded frame is canonical: padding 0).
#include <zlib.h>

#include <cstring>

#include "fuzz_support.hpp"
#include "vcloe/bridge/messages.hpp"

namespace {

using namespace vcloe;

void decode_and_check(std::string_view frame) {
  const bridge::Decoded d = bridge::decode(frame);
  if (d.message.has_value() != (d.error == bridge::DecodeError::None))
    fuzz::finding(std::string("a message and an error together, or neither: ") + bridge::describe(d.error));
  if (d.error == bridge::DecodeError::BadVersion && d.version == bridge::kSchemaVersion)
    fuzz::finding("another schema version reported as this one");
  if (!d.message) return;
  const std::string once = bridge::encode(*d.message);
  const bridge::Decoded again = bridge::decode(once);
  if (!again.message) fuzz::finding(std::string("a decoded message re-encodes to a refused frame: ") + bridge::describe(again.error));
  if (bridge::encode(*again.message) != once) fuzz::finding("a decoded message does not re-encode to the same frame");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string frame = fuzz::text_of(data, size);
  decode_and_check(frame);
  if (frame.size() >= bridge::kHeaderBytes) {  // CRC-32 of the frame with its field (bytes 12-15) zero
    std::memset(frame.data() + 12, 0, 4);
    const auto crc = static_cast<std::uint32_t>(
        crc32(0L, reinterpret_cast<const Bytef*>(frame.data()), static_cast<uInt>(frame.size())));
    std::memcpy(frame.data() + 12, &crc, 4);
    decode_and_check(frame);
  }
  return 0;
}
