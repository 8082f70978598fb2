#include "payload_option.hpp"

#include "vcloe/core/error.hpp"

namespace vcloe::app {

void add_payload_options(CLI::App* cmd, PayloadOption& o) {
  o.mass_option = cmd->add_option("--payload-mass", o.mass, "known payload bolted to the platform (kg)");
  o.inertia_option =
      cmd->add_option("--payload-inertia", o.inertia, "its principal moments Ix Iy Iz (kg*m^2), with --payload-mass")
          ->expected(3);
}

std::optional<oe_ident::Payload> payload_from(const PayloadOption& o) {
  // Both options or neither (a mass alone would silently be a point mass).
  const bool mass = o.mass_option && o.mass_option->count() > 0;
  const bool inertia = o.inertia_option && o.inertia_option->count() > 0;
  if (mass && !inertia) fail("--payload-mass", "needs --payload-inertia Ix Iy Iz too (the payload's principal moments, kg*m^2)");
  if (inertia && !mass) fail("--payload-inertia", "needs --payload-mass too (kg)");
  if (!mass) return std::nullopt;
  return oe_ident::make_payload(o.mass, Vec3d(o.inertia[0], o.inertia[1], o.inertia[2]),
                                "--payload-mass/--payload-inertia");
}

}  // namespace vcloe::app
