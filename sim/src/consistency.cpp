#include <algorithm>

#include "vcloe/sim/robot.hpp"

namespace vcloe::sim {

Vec3d nearest_consistent_moments(const Vec3d& I, const std::array<bool, 3>& free, double margin) {
  Vec3d out = I;
  const double floor = 1e-12;  // kg*m^2: positive
  for (int k = 0; k < 3; ++k)
    if (free[k] && !(out(k) > floor)) out(k) = std::max(floor, 1e-3 * out.cwiseAbs().maxCoeff());
  Eigen::Index c = 0;
  out.maxCoeff(&c);
  const int a = (static_cast<int>(c) + 1) % 3, b = (static_cast<int>(c) + 2) % 3;
  // g = Ia + Ib - Ic (1 + margin) >= 0; move along g's gradient restricted to the free moments.
  const Vec3d grad = [&] {
    Vec3d n = Vec3d::Zero();
    n(a) = free[a] ? 1.0 : 0.0;
    n(b) = free[b] ? 1.0 : 0.0;
    n(c) = free[c] ? -(1 + margin) : 0.0;
    return n;
  }();
  const double g = out(a) + out(b) - out(c) * (1 + margin);
  if (g >= 0 || grad.squaredNorm() == 0) return g >= 0 ? out : I;
  out -= g / grad.squaredNorm() * grad;
  return out;
}

}  // namespace vcloe::sim
