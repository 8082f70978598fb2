#include "vcloe/oe_ident/consistency.hpp"

#include <cstdio>

#include "vcloe/sim/robot.hpp"

namespace vcloe::oe_ident {

namespace {

std::string describe_move(int index, double from, double to) {
  char s[200];
  std::snprintf(s, sizeof s, "%s %.4g -> %.4g kg*m^2 (not determined by the poses; moved to obey the triangle inequalities)",
                sim::parameter_registry()[static_cast<std::size_t>(index)].name.c_str(), from, to);
  return s;
}

}  // namespace

ConsistentModel make_consistent(const sim::LambdaVector<double>& lambda, const std::array<bool, sim::kNumLambda>& identified) {
  ConsistentModel out{lambda, {}, {}};
  auto body = [&](int first) {
    const Vec3d I(out.lambda(first + 1), out.lambda(first + 2), out.lambda(first + 3));
    const std::array<bool, 3> free = {!identified[first + 1], !identified[first + 2], !identified[first + 3]};
    // A 2 % margin keeps the result clear of the boundary (and of MuJoCo's own tolerance).
    const Vec3d J = sim::nearest_consistent_moments(I, free, 0.02);
    for (int k = 0; k < 3; ++k)
      if (J(k) != I(k)) {
        out.moved.push_back(describe_move(first + 1 + k, I(k), J(k)));
        out.lambda(first + 1 + k) = J(k);
      }
  };
  body(sim::platform_index(0));
  for (int i = 0; i < sim::kLegs; ++i) body(sim::wrench_index(i, 0));
  for (int i = 0; i < sim::kLegs; ++i) body(sim::link_index(i, 0));
  out.remaining = sim::check_physical_consistency(out.lambda);
  return out;
}

}  // namespace vcloe::oe_ident
