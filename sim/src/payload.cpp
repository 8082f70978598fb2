// The one check of a payload's numbers (payload.hpp).
#include "vcloe/sim/payload.hpp"

#include <cmath>
#include <sstream>

#include "vcloe/core/error.hpp"

namespace vcloe::sim {

std::optional<PayloadProblem> payload_problem(double mass, const Vec3d& I) {
  if (!(std::isfinite(mass) && mass > 0))
    return PayloadProblem{"mass", "expected a finite positive payload mass in kg, got " + exact_number(mass)};
  if (!(mass >= kMinPayloadMass && mass <= kMaxPayloadMass))
    return PayloadProblem{"mass", "expected a payload mass in [0.001, 10000] kg (a scale anchor the poses can feel, "
                                  "a load a robot can carry), got " + exact_number(mass)};
  std::ostringstream got;
  got << "got [" << exact_number(I(0)) << ", " << exact_number(I(1)) << ", " << exact_number(I(2)) << "]";
  if (!(I.allFinite() && (I.array() >= 0).all()))
    return PayloadProblem{"inertia", "expected finite non-negative principal moments in kg*m^2, " + got.str()};
  if (I.maxCoeff() > kMaxPayloadInertia)
    return PayloadProblem{"inertia", "expected principal moments of at most 10000 kg*m^2, " + got.str()};
  for (int k = 0; k < 3; ++k)
    if (I((k + 1) % 3) + I((k + 2) % 3) < I(k))
      return PayloadProblem{"inertia", std::string("principal moments violate the triangle inequality (I") + "xyz"[k] +
                                           " exceeds the sum of the other two), " + got.str()};
  return std::nullopt;
}

}  // namespace vcloe::sim
