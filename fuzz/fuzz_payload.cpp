// Payload file (docs/identification.md): oe_ident::parse_payload.
#include "fuzz_support.hpp"
#include "vcloe/oe_ident/payload.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = vcloe::fuzz::text_of(data, size);
  vcloe::fuzz::read_or_refuse("payload.yaml", [&] { return vcloe::oe_ident::parse_payload(text, "payload.yaml"); });
  return 0;
}
