// Excitation settings (docs/excitation-file.md): excitation::parse_excitation_settings.
#include "fuzz_support.hpp"
#include "vcloe/excitation/optimizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = vcloe::fuzz::text_of(data, size);
  vcloe::fuzz::read_or_refuse("excitation.yaml",
                              [&] { return vcloe::excitation::parse_excitation_settings(text, "excitation.yaml"); });
  return 0;
}
