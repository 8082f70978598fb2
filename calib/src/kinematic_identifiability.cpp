#include "vcloe/calib/kinematic_identifiability.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include <Eigen/SVD>

namespace vcloe::calib {

namespace {

using Change = std::function<KinematicVector(const KinematicVector&, double)>;

// Directions of an exact re-description: central differences of the change at zero.
Matrix directions_of(const KinematicVector& p, const std::vector<Change>& changes) {
  const double eps = 1e-6;
  Matrix D(kKinematicParameters, static_cast<Eigen::Index>(changes.size()));
  for (std::size_t k = 0; k < changes.size(); ++k)
    D.col(static_cast<Eigen::Index>(k)) = (changes[k](p, eps) - changes[k](p, -eps)) / (2 * eps);
  return D;
}

// The base moved by G (B' = G B, cranks turned about their axes by psi_i): the camera sees the
// same poses when its residual becomes C G^-1.
KinematicVector move_base(KinematicVector v, const Rigid<double>& G, const Vec6d& turn) {
  for (int i = 0; i < sim::kLegs; ++i) {
    const Eigen::Index b = leg_index(i, kBaseX);
    v.segment<3>(b) = G.R * Vec3d(v.segment<3>(b)) + G.p;
    v(leg_index(i, kEncoderOffset)) -= turn(i);
  }
  v.segment<6>(kCameraOffset) = (Rigid<double>::of(Vec6d(v.segment<6>(kCameraOffset))) * G.inverse()).pose();
  return v;
}

// The platform frame moved by H inside the platform (E' = E H): joints a' = H^-1 a, M' = H^-1 M.
KinematicVector move_platform(KinematicVector v, const Rigid<double>& H) {
  const Rigid<double> Hi = H.inverse();
  for (int i = 0; i < sim::kLegs; ++i) {
    const Eigen::Index a = leg_index(i, kPlatformX);
    v.segment<3>(a) = Hi.R * Vec3d(v.segment<3>(a)) + Hi.p;
  }
  v.segment<6>(kMarkerOffset) = (Hi * Rigid<double>::of(Vec6d(v.segment<6>(kMarkerOffset)))).pose();
  return v;
}

Rigid<double> translation(int axis, double e) {
  Rigid<double> g;
  g.p(axis) = e;
  return g;
}
Rigid<double> rotation(const Vec3d& n, double e) {
  Rigid<double> g;
  g.R = Eigen::AngleAxisd(e, n.normalized()).toRotationMatrix();
  return g;
}

// The common joint axis, if every axis is parallel to the first (sign per leg), else zero.
Vec3d common_axis(const LegFrames& f, Vec6d& sign) {
  for (int i = 0; i < sim::kLegs; ++i) {
    const double c = f.axis[i].dot(f.axis[0]);
    if (std::abs(std::abs(c) - 1) > 1e-9) return Vec3d::Zero();
    sign(i) = c > 0 ? 1 : -1;
  }
  return f.axis[0];
}

Matrix slot_rows(const std::vector<Vec3d>& per_leg_or_common, int slot, bool per_leg) {
  Matrix rows = Matrix::Zero(1, kKinematicParameters);
  for (int i = 0; i < sim::kLegs; ++i)
    rows.block<1, 3>(0, leg_index(i, slot)) = per_leg_or_common[per_leg ? i : 0].transpose();
  return rows;
}

NamedCombination base_translation(const KinematicVector& p) {
  NamedCombination c{"base translation",
                     "a common translation of the base joints is the camera-to-base translation: the base "
                     "frame's origin is defined by the joints as drawn (their centroid is kept)",
                     {}, Matrix(3, kKinematicParameters), {}};
  std::vector<Change> ch;
  for (int k = 0; k < 3; ++k) {
    ch.push_back([k](const KinematicVector& v, double e) { return move_base(v, translation(k, e), Vec6d::Zero()); });
    c.constraints.row(k) = slot_rows({Vec3d::Unit(k)}, kBaseX, false);
  }
  c.directions = directions_of(p, ch);
  c.changes = ch;
  return c;
}

NamedCombination base_turn(const KinematicVector& p, const Vec3d& n, const Vec6d& sign) {
  NamedCombination c{"base rotation about the joint axes",
                     "a common turn of the base joints about the (parallel) joint axes, with the same change of "
                     "every encoder offset, is the camera-to-base rotation about that axis: the base frame's "
                     "heading is defined by the joints as drawn (no mean turn of the joints)",
                     {}, {}, {}};
  c.changes = {[n, sign](const KinematicVector& v, double e) { return move_base(v, rotation(n, e), e * sign); }};
  c.directions = directions_of(p, c.changes);
  std::vector<Vec3d> rows;
  for (int i = 0; i < sim::kLegs; ++i) rows.push_back(n.cross(Vec3d(p.segment<3>(leg_index(i, kBaseX)))));
  c.constraints = slot_rows(rows, kBaseX, true);
  return c;
}

NamedCombination platform_motion(const KinematicVector& p) {
  NamedCombination c{"platform joints and marker frame",
                     "a common rigid motion of the platform joints is the marker frame's pose: the platform "
                     "frame E is defined by its joints as drawn (centroid kept, no mean rotation), and the "
                     "marker frame is estimated in that E",
                     {}, Matrix(6, kKinematicParameters), {}};
  std::vector<Change> ch;
  for (int k = 0; k < 3; ++k) {
    ch.push_back([k](const KinematicVector& v, double e) { return move_platform(v, translation(k, e)); });
    c.constraints.row(k) = slot_rows({Vec3d::Unit(k)}, kPlatformX, false);
  }
  for (int k = 0; k < 3; ++k) {
    ch.push_back([k](const KinematicVector& v, double e) { return move_platform(v, rotation(Vec3d::Unit(k), e)); });
    std::vector<Vec3d> rows;
    for (int i = 0; i < sim::kLegs; ++i) rows.push_back(Vec3d::Unit(k).cross(Vec3d(p.segment<3>(leg_index(i, kPlatformX)))));
    c.constraints.row(3 + k) = slot_rows(rows, kPlatformX, true);
  }
  c.directions = directions_of(p, ch);
  c.changes = ch;
  return c;
}

NamedCombination crank_offsets(const KinematicVector& p) {
  NamedCombination c{"crank direction and encoder offset",
                     "each crank's direction about its joint axis is its encoder offset: only their difference "
                     "moves the joint, so the crank keeps its drawn direction and the offset carries both",
                     {}, Matrix::Zero(sim::kLegs, kKinematicParameters), {}};
  std::vector<Change> ch;
  for (int i = 0; i < sim::kLegs; ++i) {
    ch.push_back([i](KinematicVector v, double e) {
      v(leg_index(i, kCrankAngle)) += e, v(leg_index(i, kEncoderOffset)) += e;
      return v;
    });
    c.constraints(i, leg_index(i, kCrankAngle)) = 1;
  }
  c.directions = directions_of(p, ch);
  c.changes = ch;
  return c;
}

}  // namespace

std::vector<NamedCombination> named_combinations(const sim::RobotModel& nominal, const KinematicVector& p) {
  const LegFrames f(nominal);
  std::vector<NamedCombination> out{base_translation(p)};
  Vec6d sign = Vec6d::Ones();
  const Vec3d n = common_axis(f, sign);
  if (n.norm() > 0) out.push_back(base_turn(p, n, sign));
  out.push_back(platform_motion(p));
  out.push_back(crank_offsets(p));
  return out;
}

KinematicVector in_gauge(const sim::RobotModel& nominal, const KinematicVector& reference, KinematicVector x) {
  const std::vector<NamedCombination> at_reference = named_combinations(nominal, reference);
  for (int iteration = 0; iteration < 20; ++iteration) {
    double largest = 0;
    const std::vector<NamedCombination> here = named_combinations(nominal, x);
    for (std::size_t n = 0; n < here.size(); ++n) {
      // The amounts that make the constraints (taken at the reference) hold, to first order.
      const Matrix& rows = at_reference[n].constraints;
      const Eigen::VectorXd amount = (rows * here[n].directions).colPivHouseholderQr().solve(-(rows * (x - reference)));
      for (Eigen::Index k = 0; k < amount.size(); ++k) x = here[n].changes[static_cast<std::size_t>(k)](x, amount(k));
      largest = std::max(largest, amount.cwiseAbs().maxCoeff());
    }
    if (largest < 1e-15) break;
  }
  return x;
}

Matrix free_directions(const std::vector<NamedCombination>& combinations, const std::vector<int>& fixed) {
  Eigen::Index rows = static_cast<Eigen::Index>(fixed.size());
  for (const NamedCombination& c : combinations) rows += c.constraints.rows();
  Matrix C = Matrix::Zero(std::max<Eigen::Index>(rows, 1), kKinematicParameters);
  Eigen::Index r = 0;
  for (const NamedCombination& c : combinations) C.middleRows(r, c.constraints.rows()) = c.constraints, r += c.constraints.rows();
  for (int k : fixed) C(r++, k) = 1;
  // Each constraint row at unit norm so that the rank decision does not depend on units.
  for (Eigen::Index i = 0; i < C.rows(); ++i)
    if (C.row(i).norm() > 0) C.row(i).normalize();
  Eigen::JacobiSVD<Matrix> svd(C, Eigen::ComputeFullV);
  const Eigen::Index rank = (svd.singularValues().array() > 1e-10 * std::max(1.0, svd.singularValues()(0))).count();
  return svd.matrixV().rightCols(kKinematicParameters - rank);
}

bool measurement_jacobian(const LegFrames& frames, const KinematicVector& p, const Vec6d& theta, Vec6d& guess,
                          Eigen::Matrix<double, 6, kKinematicParameters>& J) {
  using JetP = ceres::Jet<double, kKinematicParameters>;
  std::array<JetP, kKinematicParameters> x;
  for (int k = 0; k < kKinematicParameters; ++k) x[k] = JetP(p(k), k);
  Vec6<JetP> chi;
  if (!predicted_measurement<JetP>(frames, x.data(), theta, guess, chi)) return false;
  for (int r = 0; r < 6; ++r) J.row(r) = chi(r).v.transpose();
  return J.allFinite();
}

namespace {

std::string largest_entries(const Eigen::VectorXd& v) {
  std::vector<int> idx(kKinematicParameters);
  std::iota(idx.begin(), idx.end(), 0);
  std::partial_sort(idx.begin(), idx.begin() + 3, idx.end(),
                    [&](int a, int b) { return std::abs(v(a)) > std::abs(v(b)); });
  std::string s;
  for (int k = 0; k < 3; ++k) s += (k ? ", " : "") + parameter_name(idx[k]);
  return s;
}

}  // namespace

NullSpaceCheck check_null_space(const Matrix& J, const std::vector<NamedCombination>& combinations, double tolerance) {
  NullSpaceCheck out;
  out.tolerance = tolerance;
  Eigen::VectorXd scale = J.colwise().norm().transpose();
  for (Eigen::Index k = 0; k < scale.size(); ++k)
    if (!(scale(k) > 0)) scale(k) = 1;
  const Matrix Js = J * scale.cwiseInverse().asDiagonal();
  Eigen::JacobiSVD<Matrix> svd(Js, Eigen::ComputeFullV);
  Eigen::VectorXd s = Eigen::VectorXd::Zero(kKinematicParameters);
  s.head(svd.singularValues().size()) = svd.singularValues();
  const Eigen::Index null_dim = (s.array() < tolerance * s(0)).count();
  out.dimension = static_cast<int>(null_dim);
  const Matrix V0 = svd.matrixV().rightCols(null_dim);
  Matrix named(kKinematicParameters, 0);
  for (const NamedCombination& c : combinations) {
    bool all = true;
    for (Eigen::Index k = 0; k < c.directions.cols(); ++k) {
      const Eigen::VectorXd d = scale.asDiagonal() * c.directions.col(k);
      const double outside = (d - V0 * (V0.transpose() * d)).norm() / d.norm();
      if (!(outside < 1e-4)) all = false;
    }
    out.named_found.push_back(all);
    if (!all) continue;
    named.conservativeResize(Eigen::NoChange, named.cols() + c.directions.cols());
    named.rightCols(c.directions.cols()) = scale.asDiagonal() * c.directions;
  }
  // The part of the null space the named combinations do not span.
  Matrix rest = V0;
  if (named.cols() > 0) {
    const Eigen::HouseholderQR<Matrix> qr(named);
    const Matrix Q = qr.householderQ() * Matrix::Identity(kKinematicParameters, named.cols());
    rest = V0 - Q * (Q.transpose() * V0);
  }
  if (rest.cols() == 0) return out;
  Eigen::JacobiSVD<Matrix> left(rest, Eigen::ComputeThinU);
  for (Eigen::Index k = 0; k < left.singularValues().size(); ++k)
    if (left.singularValues()(k) > 0.5) {
      ++out.unnamed;
      out.unnamed_largest.push_back(largest_entries(left.matrixU().col(k)));
    }
  return out;
}

}  // namespace vcloe::calib
