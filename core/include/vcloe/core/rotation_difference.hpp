#pragma once
// vcloe/core/rotation_difference.hpp — poses subtracted with their angles as rotations (the one
// place: `compare`, tracking errors, interpolation between poses). Pose vocabulary:
// core/rotation.hpp.
#include <cmath>

#include "vcloe/core/rotation.hpp"

namespace vcloe {

// a - b for Euler angles compared as rotations: of the triples that give b's rotation (each angle
// plus any multiple of 2 pi, and the other branch (alpha + pi, pi - beta, gamma + pi)), the one
// nearest a. The same rotation written two ways (gamma = pi - e and -pi + e) differs by 0; small
// differences are the usual per-angle ones. The one place angles are subtracted as rotations.
inline Vec3d euler_difference(const Vec3d& a, const Vec3d& b) {
  auto wrap = [](const Vec3d& d) {
    return Vec3d(std::remainder(d(0), 2 * M_PI), std::remainder(d(1), 2 * M_PI), std::remainder(d(2), 2 * M_PI));
  };
  const Vec3d same = wrap(a - b), other = wrap(a - Vec3d(b(0) + M_PI, M_PI - b(1), b(2) + M_PI));
  return other.norm() < same.norm() ? other : same;
}
// a - b for poses: positions subtracted, angles by euler_difference.
inline Vec6d pose_difference(const Vec6d& a, const Vec6d& b) {
  Vec6d d;
  d << a.head<3>() - b.head<3>(), euler_difference(a.tail<3>(), b.tail<3>());
  return d;
}
// The pose a fraction w in [0, 1] of the way from a to b, angles along the shorter rotation.
inline Vec6d pose_between(const Vec6d& a, const Vec6d& b, double w) { return a + w * pose_difference(b, a); }

}  // namespace vcloe
