#pragma once
// vcloe/sim/payload.hpp — Lambda with a payload rigidly added to the platform, its centre of mass
// at E and its principal axes along E's: its mass added to m_p, its moments to Ix_p, Iy_p, Iz_p.
// The one arithmetic of a payload run's twin and virtual robot (oe_ident::with_payload) and of
// the excitation's check of the payload run (excitation::check_tracking); and the one check of a
// payload's numbers, whoever reads them (payload_problem).
#include <optional>
#include <string>

#include "vcloe/core/rotation.hpp"
#include "vcloe/sim/parameters.hpp"

namespace vcloe::sim {

// A payload a body can be: mass in [1 g, 10 t] (1e-300 kg passed as an anchor that anchors
// nothing, 1e300 kg made the engine diverge); moments in [0, 10^4] kg*m^2 obeying the triangle
// inequality (each at most the sum of the other two). The one validator of every payload read —
// a payload file, identification settings' `payload:`, `--payload-mass/--payload-inertia`, the
// excitation settings' `tracking.payload` (which skipped it: session 21's probe, P).
inline constexpr double kMinPayloadMass = 1e-3, kMaxPayloadMass = 1e4, kMaxPayloadInertia = 1e4;
struct PayloadProblem {
  const char* key;  // "mass" or "inertia": the key of the payload's map it is said at
  std::string message;
};
std::optional<PayloadProblem> payload_problem(double mass, const Vec3d& inertia);

template <typename Moments>
LambdaVector<double> with_platform_payload(LambdaVector<double> lambda, double mass, const Moments& inertia) {
  lambda(platform_index(0)) += mass;
  for (int k = 0; k < 3; ++k) lambda(platform_index(1 + k)) += inertia(k);
  return lambda;
}

}  // namespace vcloe::sim
