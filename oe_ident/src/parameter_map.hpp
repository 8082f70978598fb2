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
// obeying the triangle inequalities. The platform's first moments m c are signed and 0 for a
// symmetric platform: linear coordinates, m c = scale * delta with scale = m_p (start) x 0.01 m, so
// the weak prior's sigma on delta is 0.7 cm of centre of mass.
inline constexpr double kFirstMomentLength = 0.01;  // m: the offset of the centre of mass per unit of delta
struct ParameterMap {
  struct Coord {
    std::vector<int> members;  // registry indices sharing this value
    bool log = true;
    double scale = 1;          // linear coordinates: value = scale * delta
    int platform_moment = -1;  // 0..2 for the platform L coordinates
    double floor = 0;          // smallest starting value (log coordinates of a zero prior)
    bool latency = false;      // the latency offset's coordinate (no Lambda entry, members empty)
  };
  // The pose stream's latency offset (true - configured latency, s; docs/identification.md,
  // "Latency offset"): a nuisance parameter beside Lambda. Fitted (coord >= 0) as
  //   offset = centre + half_width * tanh(delta_c),   centre, half_width of (low, high),
  // bounded without a bound for Ceres (bounded steps cost Jacobians in a line search); else
  // held at `value`.
  struct Latency {
    int coord = -1;
    double low = 0, high = 0;
    double value = 0;  // the start (fitted) or the value used (not fitted)
  };
  std::vector<Coord> coords;
  sim::LambdaVector<double> base;  // values of the entries no coordinate sets
  Latency latency;

  int size() const { return static_cast<int>(coords.size()); }
  sim::LambdaVector<double> lambda(const double* delta) const;
  Eigen::MatrixXd jacobian(const double* delta) const;  // d Lambda / d delta, 70 x size() (latency column 0)
  std::vector<double> initial(const sim::LambdaVector<double>& prior) const;  // delta representing prior
  double latency_offset(const double* delta) const;      // s
  double latency_derivative(const double* delta) const;  // d offset / d delta_c (0 when not fitted)
  // delta's latency coordinate set to represent `offset` (s; a thousandth of the interval inside a bound).
  void set_latency_offset(std::vector<double>& delta, double offset) const;
};

// Coordinates for the entries with free[k] set, in registry order (a tie group at its first
// member), fixed entries at `base`.
ParameterMap build_parameter_map(const sim::LambdaVector<double>& base, const std::vector<bool>& free,
                                 const std::vector<ParameterSpec>& spec);

// The latency offset as the map's last coordinate, fitted in (low, high) from `start` (strictly
// inside); the name it is reported under.
void add_latency_coordinate(ParameterMap& map, double low, double high, double start);
inline constexpr const char* kLatencyName = "latency offset";

// The offsets a fitted latency's first horizon starts from (LatencyOptions::starts): its start
// `l.value`, then the centres of `starts` equal parts of (low, high) — -4, -2, 0, 2, 4 ms in
// +-5 ms — each farther than a tenth of a part from those before; `starts` 1: the start alone.
std::vector<double> latency_starts(const ParameterMap::Latency& l, int starts);

}  // namespace vcloe::oe_ident
