#pragma once
// vcloe/oe_ident/consistency.hpp — every model identify writes is physically consistent (Gnad et al.
// 2024): positive masses and moments obeying the triangle inequalities for every body. Moments
// the poses do not determine (fixed, not excited, in the Jacobian's null space — e.g. a crank's
// Ix, Iy or a link's spin Iz, which never enter the dynamics) are moved to the nearest consistent
// values (the exact nearest point, sim::project_consistent_moments). Identified moments move only
// when the fitted ones themselves break a triangle inequality or the radius-of-gyration bound,
// and then as little as possible.
// What was moved, and why, is reported. The model written is always one the loader accepts.
#include <string>
#include <vector>

#include "vcloe/oe_ident/problem.hpp"

namespace vcloe::oe_ident {

struct ConsistentModel {
  sim::LambdaVector<double> lambda;
  std::vector<std::string> moved;      // "Ix_w3 2.29e-04 -> 3.03e-04 kg*m^2 (not identified; ...)"
  std::vector<std::string> remaining;  // what no moment can fix (a mass, friction or gain out of range)
};

// `identified[k]`: Lambda entry k is determined by the data and must keep its value. `geometry`:
// the robot whose bodies these are — each body's radius of gyration is kept within the bounds
// the robot file's reader holds it to (sim::kMinGyrationPerSpan, sim::kMaxGyrationPerSpan of
// sim::body_span), by scaling the body's three moments together (which keeps the triangle
// inequalities) the least that reaches the bound; the mass is kept (an anchor or configuration).
ConsistentModel make_consistent(const sim::LambdaVector<double>& lambda, const std::array<bool, sim::kNumLambda>& identified,
                                const sim::RobotModel& geometry);

}  // namespace vcloe::oe_ident
