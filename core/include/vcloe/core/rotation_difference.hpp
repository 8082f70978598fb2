#pragma once
// vcloe/core/rotation_difference.hpp — poses subtracted with their angles as rotations (the one
// place: `compare`, tracking errors, interpolation between poses, identify's residual, the
// visual servo's error, the learning update, calibration residuals, the recorded reference's
// check). Pose vocabulary: core/rotation.hpp.
#include <cmath>
#include <type_traits>

#include "vcloe/core/rotation.hpp"

namespace vcloe {

namespace rotation_detail {
// The value of a scalar that may be a ceres::Jet (its real part).
template <typename T>
double real_part(const T& x) {
  if constexpr (std::is_arithmetic_v<T>) return x;
  else return x.a;
}
// x less the whole turns nearest its value: in [-pi, pi]. A double exactly (std::remainder); a
// ceres::Jet by 2 pi round(x.a / 2 pi) taken from its real part, its derivatives untouched.
template <typename T>
T less_whole_turns(const T& x) {
  if constexpr (std::is_arithmetic_v<T>) return std::remainder(x, 2 * M_PI);
  else return x - (x.a - std::remainder(x.a, 2 * M_PI));
}
template <typename T>
Vec3<T> wrap_turns(const Vec3<T>& d) {
  return Vec3<T>(less_whole_turns(d(0)), less_whole_turns(d(1)), less_whole_turns(d(2)));
}
template <typename T>
double real_squared_norm(const Vec3<T>& d) {
  double s = 0;
  for (int i = 0; i < 3; ++i) s += real_part(d(i)) * real_part(d(i));
  return s;
}
}  // namespace rotation_detail

// a - b for Euler angles compared as rotations: of the triples that give b's rotation (each angle
// plus any multiple of 2 pi, and the other branch (alpha + pi, pi - beta, gamma + pi)), the one
// nearest a. The same rotation written two ways (gamma = pi - e and -pi + e) differs by 0; small
// differences are the usual per-angle ones (bit for bit a - b when no angle differs by more than
// pi / 4: any two poses of one run, a pose and its reference). The
// one place angles are subtracted as rotations. Templated for ceres::Jet: the branch and the
// turns are chosen on the real parts, so the derivative is that of a - b (d/db_beta flips sign
// on the other branch, as the angle it stands for does).
template <typename T>
Vec3<T> euler_difference(const Vec3<T>& a, const Vec3<T>& b) {
  using rotation_detail::wrap_turns;
  const Vec3<T> same = wrap_turns<T>(a - b);
  const Vec3<T> other = wrap_turns<T>(a - Vec3<T>(b(0) + T(M_PI), T(M_PI) - b(1), b(2) + T(M_PI)));
  return rotation_detail::real_squared_norm(other) < rotation_detail::real_squared_norm(same) ? other : same;
}
inline Vec3d euler_difference(const Vec3d& a, const Vec3d& b) { return euler_difference<double>(a, b); }

// Of the Euler triples of b's rotation, the one nearest a (b itself, bit for bit, when no turn or
// branch is nearer): a pose written in the coordinates of another, as the servo reads a measured
// pose in its reference's. Chosen on the real parts for ceres::Jet.
template <typename T>
Vec3<T> euler_nearest(const Vec3<T>& b, const Vec3<T>& a) {
  using rotation_detail::real_part;
  auto turns = [](double d) { return 2 * M_PI * std::round(d / (2 * M_PI)); };
  Vec3<T> same = b, other(b(0) + T(M_PI), T(M_PI) - b(1), b(2) + T(M_PI));
  for (int i = 0; i < 3; ++i) {
    if (const double k = turns(real_part(a(i)) - real_part(b(i))); k != 0) same(i) += T(k);
    if (const double k = turns(real_part(a(i)) - real_part(other(i))); k != 0) other(i) += T(k);
  }
  return rotation_detail::real_squared_norm(Vec3<T>(a - other)) < rotation_detail::real_squared_norm(Vec3<T>(a - same))
             ? other
             : same;
}

// The angle (rad, in [0, pi]) of the rotation between the orientations of Euler triples a and b:
// that of R(b)^T R(a), whatever the convention writes them as. Unlike euler_difference it stays
// well defined at gimbal lock (beta = +-pi/2), where only alpha + gamma (or alpha - gamma) is.
inline double rotation_between(const Vec3d& a, const Vec3d& b) {
  const Mat3d r = rotation_xyz(b(0), b(1), b(2)).transpose() * rotation_xyz(a(0), a(1), a(2));
  const Eigen::Quaterniond q(r);
  return 2 * std::atan2(q.vec().norm(), std::abs(q.w()));
}

// a - b for poses: positions subtracted, angles by euler_difference.
template <typename T>
Vec6<T> pose_difference(const Vec6<T>& a, const Vec6<T>& b) {
  Vec6<T> d;
  d << a.template head<3>() - b.template head<3>(),
      euler_difference<T>(Vec3<T>(a.template tail<3>()), Vec3<T>(b.template tail<3>()));
  return d;
}
inline Vec6d pose_difference(const Vec6d& a, const Vec6d& b) { return pose_difference<double>(a, b); }

// The pose a fraction w in [0, 1] of the way from a to b, angles along the shorter rotation.
inline Vec6d pose_between(const Vec6d& a, const Vec6d& b, double w) { return a + w * pose_difference(b, a); }

}  // namespace vcloe
