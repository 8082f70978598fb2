#pragma once
// `vcloe seal`: a sealed copy of a recording (a pose trace or a static-pose trace) written by a
// vcloe older than the sidecar's seal, which every reader now requires (core/required_sidecar.hpp).
// The recording is read with every check its reader makes but the seal (a derived trace made
// again from its recorded files, rig::read_checked_trace); the copy holds its CSV
// byte for byte and its sidecar as recorded, with the CSV's hash and the seal. The original is
// left as it is (docs/traces.md, "Sealed sidecars").
#include <string>

namespace vcloe::workflow {

struct SealOptions {
  std::string in, out;
  bool force = false;
};

// What was written, one line.
std::string seal(const SealOptions& options);

}  // namespace vcloe::workflow
