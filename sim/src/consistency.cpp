// Physical consistency of Lambda (vcloe/sim/robot.hpp): the check the loader applies, the
// platform's inertia about its centre of mass, and the nearest consistent principal moments (a
// convex quadratic program in three variables, solved exactly by trying every active set).
#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "vcloe/sim/gyration.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::sim {

namespace {

struct Row {  // a . x = b (or >= b as an inequality)
  Vec3d a;
  double b;
};

// The inequalities on x: Ia + Ib - (1 + margin) Ic >= 0 for each c, and x_k >= floor for each
// moment that may move (a fixed one need only be positive, checked before).
std::vector<Row> inequalities(const Vec3d& weight, double margin, double floor) {
  std::vector<Row> rows;
  for (int c = 0; c < 3; ++c) {
    Vec3d a = Vec3d::Ones();
    a(c) = -(1 + margin);
    rows.push_back({a, 0.0});
  }
  for (int k = 0; k < 3; ++k)
    if (weight(k) > 0) rows.push_back({Vec3d::Unit(k), floor});
  return rows;
}

// argmin sum_k w_k (x_k - I_k)^2 over the moments that may move (w_k > 0; the others stay at
// I_k) subject to the equalities `rows`, in closed form: x = I + W^-1 A^T mu with
// (A W^-1 A^T) mu = b - A I. The small m x m system keeps the weights' spread (1 to 1e6) out of
// the conditioning that a full KKT matrix would have. Nothing if the rows are dependent.
std::optional<Vec3d> solve_equality(const Vec3d& I, const Vec3d& weight, const std::vector<Row>& rows) {
  const int m = static_cast<int>(rows.size());
  if (m == 0) return I;  // no active row: the unconstrained optimum (an LU of a 0 x 0 matrix is Eigen's assertion)
  Eigen::MatrixXd A(m, 3);
  Eigen::VectorXd r(m);
  Vec3d inverse = Vec3d::Zero();
  for (int k = 0; k < 3; ++k)
    if (weight(k) > 0) inverse(k) = 1 / weight(k);
  for (int i = 0; i < m; ++i) {
    A.row(i) = rows[static_cast<std::size_t>(i)].a.transpose();
    r(i) = rows[static_cast<std::size_t>(i)].b - rows[static_cast<std::size_t>(i)].a.dot(I);
  }
  const Eigen::MatrixXd M = A * inverse.asDiagonal() * A.transpose();
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(M);
  if (!lu.isInvertible()) return std::nullopt;
  return Vec3d(I + inverse.asDiagonal() * (A.transpose() * lu.solve(r)));
}

}  // namespace

std::optional<Vec3d> project_consistent_moments(const Vec3d& I, const Vec3d& weight, double margin) {
  for (int k = 0; k < 3; ++k)
    if (!(weight(k) >= 0) || !std::isfinite(I(k)) || (weight(k) == 0 && !(I(k) > 0))) return std::nullopt;
  const double scale = I.cwiseAbs().maxCoeff();
  // Feasible to 1e-9 of the largest moment: far inside every margin used (1e-6, 2 %).
  const double floor = std::max(1e-12, 1e-3 * scale), tolerance = 1e-9 * std::max(scale, 1e-12);
  const std::vector<Row> cons = inequalities(weight, margin, floor);
  auto feasible = [&](const Vec3d& x) {
    return std::all_of(cons.begin(), cons.end(), [&](const Row& c) { return c.a.dot(x) >= c.b - tolerance; });
  };
  if (feasible(I)) return I;
  // The optimum of a convex QP solves the equality problem on its active set: try each set of
  // at most three active inequalities and keep the feasible solution of least cost.
  std::optional<Vec3d> best;
  double best_cost = std::numeric_limits<double>::infinity();
  for (unsigned mask = 0; mask < (1u << cons.size()); ++mask) {
    std::vector<Row> rows;
    for (std::size_t i = 0; i < cons.size(); ++i)
      if (mask >> i & 1u) rows.push_back(cons[i]);
    if (rows.size() > static_cast<std::size_t>((weight.array() > 0).count())) continue;
    auto x = solve_equality(I, weight, rows);
    if (!x) continue;
    for (int k = 0; k < 3; ++k)
      if (weight(k) == 0) (*x)(k) = I(k);  // kept to the last bit
    if (!feasible(*x)) continue;
    const double cost = weight.dot((*x - I).cwiseAbs2());
    if (cost < best_cost) best_cost = cost, best = *x;
  }
  return best;
}

Vec3d nearest_consistent_moments(const Vec3d& I, const std::array<bool, 3>& free, double margin) {
  const Vec3d weight(free[0] ? 1.0 : 0.0, free[1] ? 1.0 : 0.0, free[2] ? 1.0 : 0.0);
  return project_consistent_moments(I, weight, margin).value_or(I);
}

bool moments_consistent(const Vec3d& I) {
  return I.minCoeff() > 0 && I(0) + I(1) >= I(2) && I(1) + I(2) >= I(0) && I(2) + I(0) >= I(1);
}

std::vector<std::string> check_physical_consistency(const LambdaVector<double>& lambda, double tol) {
  std::vector<std::string> issues;
  const auto& reg = parameter_registry();
  auto body = [&](int first) {
    const std::string suffix = reg[first].name.substr(2);
    const double m = lambda(first);
    if (!(m > 0)) issues.push_back(reg[first].name + " = " + std::to_string(m) + ": mass must be positive");
    const double I[3] = {lambda(first + 1), lambda(first + 2), lambda(first + 3)};
    for (int k = 0; k < 3; ++k)
      if (!(I[k] > 0))
        issues.push_back(reg[first + 1 + k].name + " = " + std::to_string(I[k]) + ": inertia must be positive");
    const char* names[3] = {"Ix", "Iy", "Iz"};
    for (int k = 0; k < 3; ++k) {
      const double a = I[(k + 1) % 3], b = I[(k + 2) % 3];
      if (a + b < I[k] * (1 - tol)) {
        std::ostringstream s;
        s << "triangle inequality violated for body '" << suffix << "': " << names[(k + 1) % 3] << " + "
          << names[(k + 2) % 3] << " = " << a + b << " < " << names[k] << " = " << I[k] << " kg*m^2";
        issues.push_back(s.str());
      }
    }
  };
  body(platform_index(0));
  if (lambda.segment<3>(first_moment_index(0)) != Vec3d::Zero() && lambda(platform_index(0)) > 0) {
    const Vec3d c = platform_com(lambda);
    if (!(c.cwiseAbs().maxCoeff() <= kMaxPlatformCom))
      issues.push_back("mx_p, my_p, mz_p: the platform's centre of mass (first moments / m_p) is more than 0.05 m off E");
    else if (!moments_consistent(Eigen::SelfAdjointEigenSolver<Mat3d>(platform_inertia_at_com(lambda)).eigenvalues()))
      issues.push_back("the platform's principal moments about its centre of mass violate the triangle inequality");
  }
  for (int i = 0; i < kLegs; ++i) body(wrench_index(i, 0));
  for (int i = 0; i < kLegs; ++i) body(link_index(i, 0));
  for (int i = 0; i < kLegs; ++i) {
    if (lambda(coulomb_index(i)) < 0) issues.push_back(reg[coulomb_index(i)].name + " must be non-negative");
    if (lambda(viscous_index(i)) < 0) issues.push_back(reg[viscous_index(i)].name + " must be non-negative");
  }
  for (int g : {kGainP, kGainI, kGainD})
    if (!(lambda(g) > 0)) issues.push_back(reg[g].name + " must be positive");
  return issues;
}

Vec3d platform_com(const LambdaVector<double>& lambda) {
  return lambda.segment<3>(first_moment_index(0)) / lambda(platform_index(0));
}

Mat3d platform_inertia_at_com(const LambdaVector<double>& lambda) {
  const Vec3d c = platform_com(lambda);
  const Mat3d I_E = lambda.segment<3>(platform_index(1)).asDiagonal();
  return I_E - lambda(platform_index(0)) * (c.squaredNorm() * Mat3d::Identity() - c * c.transpose());
}

double body_span(const RobotModel& model, int first) {
  if (first == platform_index(0)) {  // the platform joints' circle
    double radius = 0;
    for (const Leg& leg : model.legs) radius = std::max(radius, leg.platform_joint.norm());
    return 2 * radius;
  }
  for (int i = 0; i < kLegs; ++i) {
    if (first == wrench_index(i, 0)) return model.legs[static_cast<std::size_t>(i)].wrench.norm();
    if (first == link_index(i, 0)) return model.legs[static_cast<std::size_t>(i)].link_length;
  }
  throw std::invalid_argument("body_span: Lambda entry " + std::to_string(first) + " is not a body's mass");
}

}  // namespace vcloe::sim
