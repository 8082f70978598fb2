// Trace sidecar (docs/traces.md): parse_sidecar, then each recorded file's entry as identify
// and validate read it (recorded_file). The trace is in a directory that does not exist, so a
// relative path is never found beside it; paths are only looked at, never opened.
#include "fuzz_support.hpp"
#include "vcloe/core/trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vcloe;
  const std::string trace = "/nonexistent-vcloe-fuzz/trace.csv", name = sidecar_path(trace);
  const std::string text = fuzz::text_of(data, size);
  const auto metadata = fuzz::read_or_refuse(name, [&] { return parse_sidecar(text, name); });
  if (!metadata) return 0;
  PoseTrace t;
  t.metadata = *metadata;
  t.has_sidecar = true;
  for (const char* key : {"robot", "experiment", "reference", "truth"})
    fuzz::read_or_refuse(name, [&] { return recorded_file(t, key, trace); });
  return 0;
}
