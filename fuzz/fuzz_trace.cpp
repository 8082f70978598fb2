// Trace CSV (docs/traces.md): parse_trace.
#include "fuzz_support.hpp"
#include "vcloe/core/trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = vcloe::fuzz::text_of(data, size);
  vcloe::fuzz::read_or_refuse("trace.csv", [&] { return vcloe::parse_trace(text, "trace.csv"); });
  return 0;
}
