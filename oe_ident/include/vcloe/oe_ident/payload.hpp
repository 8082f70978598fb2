#pragma once
// vcloe/oe_ident/payload.hpp — the known payload of a payload experiment (the scale anchor):
// its one type, its checks, its one parser (settings file 'payload:' map, payload file), and
// the Lambda the twin sees with it.
#include <optional>
#include <string>

#include "vcloe/core/rotation.hpp"
#include "vcloe/sim/parameters.hpp"

namespace vcloe {
class YamlNode;
}

namespace vcloe::oe_ident {

// A payload rigidly added to the platform, COM at E, principal axes along E's.
struct Payload {
  double mass = 0;                // kg
  Vec3d inertia = Vec3d::Zero();  // kg*m^2, principal moments about its COM
};

// A checked payload: mass in [1 g, 10 t] (1e-300 kg passed as an anchor that anchors nothing,
// 1e300 kg made the engine diverge); moments in [0, 10^4] kg*m^2 obeying the triangle
// inequality (each at most the sum of the other two). Otherwise throws vcloe::Error naming
// `where` (e.g. the command-line options the values came from).
inline constexpr double kMinPayloadMass = 1e-3, kMaxPayloadMass = 1e4, kMaxPayloadInertia = 1e4;
Payload make_payload(double mass, const Vec3d& inertia, const std::string& where);

// {mass: kg, inertia: [Ix, Iy, Iz], notes: ...} — a settings file's 'payload:' map or a payload
// file's root. Unknown keys are refused; errors name file, line and key.
Payload parse_payload(const YamlNode& node);
Payload parse_payload(const std::string& yaml_text, const std::string& name);  // a payload file's text
Payload load_payload(const std::string& file);

// Lambda seen by the twin of an experiment (payload added to the platform's Xi entries).
sim::LambdaVector<double> with_payload(const sim::LambdaVector<double>& lambda, const std::optional<Payload>& payload);

}  // namespace vcloe::oe_ident
