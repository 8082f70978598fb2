#pragma once
// vcloe/sim/payload.hpp — Lambda with a payload rigidly added to the platform, its centre of mass
// at E and its principal axes along E's: its mass added to m_p, its moments to Ix_p, Iy_p, Iz_p.
// The one arithmetic of a payload run's twin and virtual robot (oe_ident::with_payload) and of
// the excitation's check of the payload run (excitation::check_tracking).
#include "vcloe/sim/parameters.hpp"

namespace vcloe::sim {

template <typename Moments>
LambdaVector<double> with_platform_payload(LambdaVector<double> lambda, double mass, const Moments& inertia) {
  lambda(platform_index(0)) += mass;
  for (int k = 0; k < 3; ++k) lambda(platform_index(1 + k)) += inertia(k);
  return lambda;
}

}  // namespace vcloe::sim
