#include "vcloe/oe_ident/consistency.hpp"

#include <cstdio>

#include <Eigen/Eigenvalues>

#include "vcloe/sim/gyration.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::oe_ident {

namespace {

std::string describe_move(int index, double from, double to, bool identified, bool scaled) {
  char s[400];
  std::snprintf(s, sizeof s, "%s %.4g -> %.4g kg*m^2 (%s)",
                sim::parameter_registry()[static_cast<std::size_t>(index)].name.c_str(), from, to,
                scaled ? "the body's radius of gyration was outside the robot file's bounds for its size: its moments "
                         "scaled together to the nearest bound"
                : identified ? "identified, but the fitted moments break a triangle inequality: moved the least that obeys it"
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

// The platform's moments about its centre of mass c = h / m_p (h its first moments): positive and
// obeying the triangle inequalities with a relative margin (sim::platform_inertia_at_com).
bool platform_consistent_at_com(const sim::LambdaVector<double>& lambda, double margin) {
  const Vec3d c = sim::platform_com(lambda);
  if (!(c.cwiseAbs().maxCoeff() <= sim::kMaxPlatformCom)) return false;
  const Vec3d I = Eigen::SelfAdjointEigenSolver<Mat3d>(sim::platform_inertia_at_com(lambda)).eigenvalues();
  for (int k = 0; k < 3; ++k)
    if (!(I(k) > 0 && I((k + 1) % 3) + I((k + 2) % 3) >= (1 + margin) * I(k))) return false;
  return true;
}

// The first moments h moved toward 0 (the centre of mass toward E, its direction kept) by the
// least that makes the moments about it consistent: I_c = I_E - m_p ((c.c) 1 - c c^T) loses a
// positive semi-definite term growing with |c|^2, so at h = 0 it is I_E (made consistent before)
// and the largest consistent scale of h is found by bisection. The moments about E are the fit's.
void consistent_first_moments(ConsistentModel& out, const std::array<bool, sim::kNumLambda>& identified) {
  const Vec3d h = out.lambda.segment<3>(sim::first_moment_index(0));
  if (h.isZero() || !(out.lambda(sim::platform_index(0)) > 0) || platform_consistent_at_com(out.lambda, 0)) return;
  auto at = [&](double s) {
    sim::LambdaVector<double> l = out.lambda;
    l.segment<3>(sim::first_moment_index(0)) = s * h;
    return l;
  };
  double margin = -1;  // 1e-9 (clear of rounding), or none if the moments about E leave no room
  for (double m : {1e-9, 0.0})
    if (margin < 0 && platform_consistent_at_com(at(0), m)) margin = m;
  if (margin < 0) return;  // left to `remaining`: the moments about E themselves
  double lo = 0, hi = 1;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (platform_consistent_at_com(at(mid), margin) ? lo : hi) = mid;
  }
  for (int k = 0; k < 3; ++k) {
    const int j = sim::first_moment_index(k);
    char line[300];
    std::snprintf(line, sizeof line, "%s %.4g -> %.4g kg*m (%s)", sim::parameter_registry()[static_cast<std::size_t>(j)].name.c_str(),
                  h(k), lo * h(k),
                  identified[static_cast<std::size_t>(j)]
                      ? "identified, but the platform's moments about that centre of mass break a triangle inequality: "
                        "the centre of mass moved toward E the least that obeys it"
                      : "not determined by the poses; the centre of mass moved toward E until the platform's moments "
                        "about it obey the triangle inequalities");
    if (lo * h(k) != h(k)) out.moved.push_back(line);
  }
  out.lambda.segment<3>(sim::first_moment_index(0)) = lo * h;
}

// The moments scaled together (the triangle inequalities and positivity are kept under a common
// factor) the least that brings the radius of gyration sqrt(I_max / m) into the bounds of the
// robot file's reader for a body spanning `span`, a relative 1e-6 inside them.
Vec3d within_gyration_bounds(const Vec3d& I, double mass, double span) {
  const double largest = I.maxCoeff();
  if (!(mass > 0 && largest > 0 && span > 0)) return I;  // (a mass or moment out of range: `remaining` says so)
  const double lo = sim::kMinGyrationPerSpan * span, hi = sim::kMaxGyrationPerSpan * span, r2 = largest / mass;
  if (r2 < lo * lo) return I * (lo * lo * (1 + 1e-6) / r2);
  if (r2 > hi * hi) return I * (hi * hi * (1 - 1e-6) / r2);
  return I;
}

}  // namespace

ConsistentModel make_consistent(const sim::LambdaVector<double>& lambda, const std::array<bool, sim::kNumLambda>& identified,
                                const sim::RobotModel& geometry) {
  ConsistentModel out{lambda, {}, {}};
  auto body = [&](int first) {
    const Vec3d I(out.lambda(first + 1), out.lambda(first + 2), out.lambda(first + 3));
    const std::array<bool, 3> fixed = {identified[first + 1], identified[first + 2], identified[first + 3]};
    const Vec3d T = consistent_body(I, fixed);
    const Vec3d J = within_gyration_bounds(T, out.lambda(first), sim::body_span(geometry, first));
    for (int k = 0; k < 3; ++k)
      if (J(k) != I(k)) {
        out.moved.push_back(describe_move(first + 1 + k, I(k), J(k), fixed[static_cast<std::size_t>(k)], J != T));
        out.lambda(first + 1 + k) = J(k);
      }
  };
  body(sim::platform_index(0));
  consistent_first_moments(out, identified);
  for (int i = 0; i < sim::kLegs; ++i) body(sim::wrench_index(i, 0));
  for (int i = 0; i < sim::kLegs; ++i) body(sim::link_index(i, 0));
  out.remaining = sim::check_physical_consistency(out.lambda);
  return out;
}

}  // namespace vcloe::oe_ident
