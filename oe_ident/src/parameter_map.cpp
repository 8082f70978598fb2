// oe_ident/src/parameter_map.cpp — fit coordinates delta -> Lambda (parameter_map.hpp).
#include "parameter_map.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "vcloe/core/error.hpp"

namespace vcloe::oe_ident {

namespace {
bool friction_kind(sim::ParameterKind k) { return k == sim::ParameterKind::Coulomb || k == sim::ParameterKind::Viscous; }
}  // namespace

sim::LambdaVector<double> ParameterMap::lambda(const double* d) const {
  sim::LambdaVector<double> l = base;
  Vec3d L = Vec3d::Zero();
  bool platform = false;
  for (int c = 0; c < size(); ++c) {
    const Coord& co = coords[c];
    if (co.latency) continue;
    if (co.platform_moment >= 0) {
      L(co.platform_moment) = std::exp(d[c]);
      platform = true;
      continue;
    }
    const double v = co.log ? std::exp(d[c]) : co.scale * d[c];
    for (int m : co.members) l(m) = v;
  }
  if (platform) {
    l(sim::platform_index(1)) = L(1) + L(2);
    l(sim::platform_index(2)) = L(0) + L(2);
    l(sim::platform_index(3)) = L(0) + L(1);
  }
  return l;
}

Eigen::MatrixXd ParameterMap::jacobian(const double* d) const {
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(sim::kNumLambda, size());
  for (int c = 0; c < size(); ++c) {
    const Coord& co = coords[c];
    if (co.platform_moment >= 0) {
      const double Lk = std::exp(d[c]);
      for (int a = 0; a < 3; ++a)
        if (a != co.platform_moment) P(sim::platform_index(1 + a), c) = Lk;  // I_a = sum of the other L's
      continue;
    }
    const double dv = co.log ? std::exp(d[c]) : co.scale;
    for (int m : co.members) P(m, c) = dv;
  }
  return P;
}

std::vector<double> ParameterMap::initial(const sim::LambdaVector<double>& prior) const {
  std::vector<double> d(static_cast<std::size_t>(size()));
  const double Ix = prior(sim::platform_index(1)), Iy = prior(sim::platform_index(2)), Iz = prior(sim::platform_index(3));
  const Vec3d L(0.5 * (Iy + Iz - Ix), 0.5 * (Ix + Iz - Iy), 0.5 * (Ix + Iy - Iz));
  const double floor = 1e-3 * (Ix + Iy + Iz);
  for (int c = 0; c < size(); ++c) {
    const Coord& co = coords[c];
    if (co.latency) {
      const double centre = 0.5 * (latency.high + latency.low), half = 0.5 * (latency.high - latency.low);
      // A start on a bound (offset 0 under a configured latency of 0: the bound is -0) begins a
      // thousandth of the interval inside it: tanh reaches a bound only at infinity.
      const double inside = std::clamp((latency.value - centre) / half, -0.999, 0.999);
      d[static_cast<std::size_t>(c)] = std::atanh(inside);
      continue;
    }
    if (co.platform_moment >= 0) {
      d[static_cast<std::size_t>(c)] = std::log(std::max(L(co.platform_moment), floor));
      continue;
    }
    double mean = 0;
    for (int m : co.members) mean += prior(m) / static_cast<double>(co.members.size());
    // A zero friction prior starts at 1e-3 (N*m, N*m*s/rad): the log form needs a positive start.
    d[static_cast<std::size_t>(c)] = co.log ? std::log(std::max(mean, co.floor)) : mean / co.scale;
  }
  return d;
}

double ParameterMap::latency_offset(const double* d) const {
  if (latency.coord < 0) return latency.value;
  const double offset = 0.5 * (latency.high + latency.low) + 0.5 * (latency.high - latency.low) * std::tanh(d[latency.coord]);
  return std::clamp(offset, latency.low, latency.high);  // (tanh = +-1 may round past a bound)
}

double ParameterMap::latency_derivative(const double* d) const {
  if (latency.coord < 0) return 0;
  const double t = std::tanh(d[latency.coord]);
  return 0.5 * (latency.high - latency.low) * (1 - t * t);
}

void ParameterMap::set_latency_offset(std::vector<double>& delta, double offset) const {
  const double centre = 0.5 * (latency.high + latency.low), half = 0.5 * (latency.high - latency.low);
  delta[static_cast<std::size_t>(latency.coord)] = std::atanh(std::clamp((offset - centre) / half, -0.999, 0.999));
}

std::vector<double> latency_starts(const ParameterMap::Latency& l, int starts) {
  std::vector<double> out = {l.value};
  if (starts <= 1) return out;  // from the start alone
  const double part = (l.high - l.low) / starts;
  for (int k = 0; k < starts; ++k) {
    const double v = l.low + (k + 0.5) * part;
    if (std::none_of(out.begin(), out.end(), [&](double w) { return std::abs(v - w) < 0.1 * part; })) out.push_back(v);
  }
  return out;
}

void add_latency_coordinate(ParameterMap& map, double low, double high, double start) {
  // A start on a bound is allowed (offset 0 under a configured latency of 0); initial() begins
  // it a thousandth of the interval inside.
  if (!(low < high && low <= start && start <= high))
    fail("identify", "the latency offset's start " + exact_number(start) + " s is not within its bounds [" +
                         exact_number(low) + ", " + exact_number(high) + "] s");
  ParameterMap::Coord c;
  c.log = false;
  c.latency = true;
  map.latency = {map.size(), low, high, start};
  map.coords.push_back(c);
}

ParameterMap build_parameter_map(const sim::LambdaVector<double>& base, const std::vector<bool>& free,
                                 const std::vector<ParameterSpec>& spec) {
  ParameterMap map;
  map.base = base;
  const auto& reg = sim::parameter_registry();
  const int Ix = sim::platform_index(1), Iy = sim::platform_index(2), Iz = sim::platform_index(3);
  const bool platform_moments = free[Ix] && free[Iy] && free[Iz] && spec[Ix].mode == Mode::Free &&
                                spec[Iy].mode == Mode::Free && spec[Iz].mode == Mode::Free;
  std::map<int, int> group_coord;
  for (int k = 0; k < sim::kNumLambda; ++k) {
    if (!free[k]) continue;
    if (platform_moments && (k == Ix || k == Iy || k == Iz)) {
      ParameterMap::Coord c;
      c.members = {k};
      c.platform_moment = k - Ix;
      map.coords.push_back(c);
      continue;
    }
    if (spec[k].mode == Mode::Tied) {
      auto it = group_coord.find(spec[k].tie_group);
      if (it != group_coord.end()) {
        map.coords[static_cast<std::size_t>(it->second)].members.push_back(k);
        continue;
      }
      group_coord[spec[k].tie_group] = map.size();
    }
    ParameterMap::Coord c;
    c.members = {k};
    c.log = reg[k].kind != sim::ParameterKind::FirstMoment;  // masses, moments, gains positive; friction >= 0
    if (!c.log) c.scale = base(sim::platform_index(0)) * kFirstMomentLength;  // signed, 0 when symmetric
    c.floor = friction_kind(reg[k].kind) ? 1e-3 : 0.0;
    map.coords.push_back(c);
  }
  return map;
}

}  // namespace vcloe::oe_ident
