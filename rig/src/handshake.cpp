#include "vcloe/rig/handshake.hpp"

#include <cstdio>

#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe::rig {

using bridge::Role;
using bridge::RunFile;

std::string payload_text(const oe_ident::Payload& p) {
  char line[160];
  std::snprintf(line, sizeof line, "payload mass %.17g inertia %.17g %.17g %.17g\n", p.mass, p.inertia(0),
                p.inertia(1), p.inertia(2));
  return line;
}

namespace {

bridge::Digest digest_of_hex(const std::string& hex, const std::string& what) {
  const std::optional<bridge::Digest> d = bridge::digest_from_hex(hex);
  if (!d) fail(what, "its SHA-256 is not 64 hexadecimal digits: " + hex);
  return *d;
}

// What this role names each file by in a line: its path, or how the payload was given.
std::array<std::string, bridge::kRunFiles> given(const RunFiles& f) {
  return {f.experiment, f.reference, f.robot, f.payload ? "the payload of --payload-mass/--payload-inertia" : "",
          f.precorrection};
}

}  // namespace

bridge::HelloMessage hello_of(Role role, const RunFiles& f, bridge::HelloClock clock) {
  bridge::HelloMessage h;
  h.role = role;
  h.clock = clock;
  const auto paths = given(f);
  for (std::size_t k = 0; k < bridge::kRunFiles; ++k) {
    const auto file = static_cast<RunFile>(k);
    if (!reads(role, file)) continue;
    if (file == RunFile::Payload) {
      if (f.payload) h.files[k] = digest_of_hex(sha256(payload_text(*f.payload)), "the payload");
    } else if (!paths[k].empty()) {
      h.files[k] = digest_of_hex(sha256_file(paths[k]), paths[k]);  // the bytes parsed (core/input_ledger.hpp)
    }
  }
  return h;
}

std::string hello_problem(const bridge::HelloMessage& mine, const RunFiles& files, const bridge::HelloMessage& peer,
                          Role expected, const std::string& endpoint) {
  return bridge::hello_problem(mine, given(files), peer, expected, endpoint);
}

}  // namespace vcloe::rig
