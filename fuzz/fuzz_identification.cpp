// Identification settings (docs/identification.md): oe_ident::parse_identification_config.
#include "fuzz_support.hpp"
#include "vcloe/oe_ident/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = vcloe::fuzz::text_of(data, size);
  vcloe::fuzz::read_or_refuse("identify.yaml",
                              [&] { return vcloe::oe_ident::parse_identification_config(text, "identify.yaml"); });
  return 0;
}
