// Marker file (docs/vision.md, "Marker file"): vision::parse_markers.
#include "fuzz_support.hpp"
#include "vcloe/vision/markers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = vcloe::fuzz::text_of(data, size);
  vcloe::fuzz::read_or_refuse("markers.yaml", [&] { return vcloe::vision::parse_markers(text, "markers.yaml"); });
  return 0;
}
