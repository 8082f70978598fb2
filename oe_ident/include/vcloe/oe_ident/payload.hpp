#pragma once
// vcloe/oe_ident/payload.hpp — the known payload of a payload experiment (the scale anchor):
// its one type, its checks, its one parser (settings file 'payload:' map, payload file), and
// the Lambda the twin sees with it.
#include <optional>
#include <string>

#include "vcloe/core/rotation.hpp"
#include "vcloe/sim/parameters.hpp"
#include "vcloe/sim/payload.hpp"

namespace vcloe {
class YamlNode;
}

namespace vcloe::oe_ident {

// A payload rigidly added to the platform, COM at E, principal axes along E's.
struct Payload {
  double mass = 0;                // kg
  Vec3d inertia = Vec3d::Zero();  // kg*m^2, principal moments about its COM
};

// A checked payload (sim::payload_problem, the one validator: mass in [1 g, 10 t], moments in
// [0, 10^4] kg*m^2 obeying the triangle inequality). Otherwise throws vcloe::Error naming
// `where` (e.g. the command-line options the values came from).
using sim::kMinPayloadMass, sim::kMaxPayloadMass, sim::kMaxPayloadInertia;
Payload make_payload(double mass, const Vec3d& inertia, const std::string& where);

// {mass: kg, inertia: [Ix, Iy, Iz], notes: ...} — a settings file's 'payload:' map or a payload
// file's root. Unknown keys are refused; errors name file, line and key.
Payload parse_payload(const YamlNode& node);
Payload parse_payload(const std::string& yaml_text, const std::string& name);  // a payload file's text
Payload load_payload(const std::string& file);

// Lambda seen by the twin of an experiment (payload added to the platform's Xi entries).
sim::LambdaVector<double> with_payload(const sim::LambdaVector<double>& lambda, const std::optional<Payload>& payload);

}  // namespace vcloe::oe_ident
