// Experiment file (docs/experiment-file.md): servo::parse_experiment.
#include "fuzz_support.hpp"
#include "vcloe/servo/timing.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = vcloe::fuzz::text_of(data, size);
  vcloe::fuzz::read_or_refuse("experiment.yaml", [&] { return vcloe::servo::parse_experiment(text, "experiment.yaml"); });
  return 0;
}
