#pragma once
// vcloe/oe_ident/consistency.hpp — every model identify writes is physically consistent (Gnad et al.
// 2024): positive masses and moments obeying the triangle inequalities for every body. Moments
// the poses do not determine (fixed, not excited, in the Jacobian's null space — e.g. a crank's
// Ix, Iy or a link's spin Iz, which never enter the dynamics) are moved to the nearest consistent
// values (the exact nearest point, sim::project_consistent_moments). Identified moments move only
// when the fitted ones themselves break a triangle inequality, and then as little as possible.
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

// `identified[k]`: Lambda entry k is determined by the data and must keep its value.
ConsistentModel make_consistent(const sim::LambdaVector<double>& lambda, const std::array<bool, sim::kNumLambda>& identified);

}  // namespace vcloe::oe_ident
