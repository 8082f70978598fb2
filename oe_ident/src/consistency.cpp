#include "vcloe/oe_ident/consistency.hpp"

#include <cstdio>

#include "vcloe/sim/robot.hpp"

namespace vcloe::oe_ident {

namespace {

std::string describe_move(int index, double from, double to, bool identified) {
  char s[300];
  std::snprintf(s, sizeof s, "%s %.4g -> %.4g kg*m^2 (%s)",
                sim::parameter_registry()[static_cast<std::size_t>(index)].name.c_str(), from, to,
                identified ? "identified, but the fitted moments break a triangle inequality: moved the least that obeys it"
                           : "not determined by the poses; moved to obey the triangle inequalities");
  return s;
}

// A body's moments (first: its mass's index) made consistent: the moments the poses do not
// determine move, with a 2 % margin (clear of the engine's own tolerance) or, if the kept ones
// leave too little room, a 1e-6 margin. Only if that cannot help do identified moments move too,
// as little as possible (a weight 1e6 times the others'), and the report says so.
Vec3d consistent_body(const Vec3d& I, const std::array<bool, 3>& identified) {
  const Vec3d unidentified(identified[0] ? 0.0 : 1.0, identified[1] ? 0.0 : 1.0, identified[2] ? 0.0 : 1.0);
  if (const auto J = sim::project_consistent_moments(I, unidentified, 0.02)) return *J;
  if (sim::moments_consistent(I)) return I;
  if (const auto J = sim::project_consistent_moments(I, unidentified, 1e-6)) return *J;
  const Vec3d all = unidentified + 1e6 * (Vec3d::Ones() - unidentified);
  return sim::project_consistent_moments(I, all, 1e-6).value_or(I);  // every weight positive: always a solution
}

}  // namespace

ConsistentModel make_consistent(const sim::LambdaVector<double>& lambda, const std::array<bool, sim::kNumLambda>& identified) {
  ConsistentModel out{lambda, {}, {}};
  auto body = [&](int first) {
    const Vec3d I(out.lambda(first + 1), out.lambda(first + 2), out.lambda(first + 3));
    const std::array<bool, 3> fixed = {identified[first + 1], identified[first + 2], identified[first + 3]};
    const Vec3d J = consistent_body(I, fixed);
    for (int k = 0; k < 3; ++k)
      if (J(k) != I(k)) {
        out.moved.push_back(describe_move(first + 1 + k, I(k), J(k), fixed[static_cast<std::size_t>(k)]));
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
