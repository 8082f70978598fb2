#pragma once
// oe_ident/src/parameter_map.hpp — the map from the optimiser's fit coordinates delta to the
// parameter vector Lambda: which registry entries each coordinate sets, in which form (log,
// platform principal moments), its derivative dLambda/ddelta, and the start delta of a prior.
#include <vector>

#include "vcloe/oe_ident/problem.hpp"

namespace vcloe::oe_ident {

// One coordinate per free parameter or tie group; log coordinates for every kind (masses,
// moments and gains stay positive, friction non-negative, and no bounds are needed: bounded
// steps cost Ceres Jacobians in a line search); the platform's principal moments, when all three
// are free, through L = (Iy + Iz - Ix)/2 etc. (Ix = Ly + Lz, ...), so any delta gives moments
// obeying the triangle inequalities.
struct ParameterMap {
  struct Coord {
    std::vector<int> members;  // registry indices sharing this value
    bool log = true;
    int platform_moment = -1;  // 0..2 for the platform L coordinates
    double floor = 0;          // smallest starting value (log coordinates of a zero prior)
  };
  std::vector<Coord> coords;
  sim::LambdaVector<double> base;  // values of the entries no coordinate sets

  int size() const { return static_cast<int>(coords.size()); }
  sim::LambdaVector<double> lambda(const double* delta) const;
  Eigen::MatrixXd jacobian(const double* delta) const;  // d Lambda / d delta, 67 x size()
  std::vector<double> initial(const sim::LambdaVector<double>& prior) const;  // delta representing prior
};

// Coordinates for the entries with free[k] set, in registry order (a tie group at its first
// member), fixed entries at `base`.
ParameterMap build_parameter_map(const sim::LambdaVector<double>& base, const std::vector<bool>& free,
                                 const std::vector<ParameterSpec>& spec);

}  // namespace vcloe::oe_ident
