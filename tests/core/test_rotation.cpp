// Specification of the pose conventions (docs/design.md §3, Li et al. 2019 eqs. 1-2, 38).
#include <gtest/gtest.h>

#include <random>

#include "vcloe/core/rotation.hpp"
#include "vcloe/core/rotation_difference.hpp"

using namespace vcloe;

TEST(Rotation, IsRxRyRzAndEulerAnglesInvertIt) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.2, 1.2);
  for (int n = 0; n < 100; ++n) {
    const double a = u(rng), b = u(rng), c = u(rng);
    const Mat3d R = rotation_xyz(a, b, c);
    const Mat3d expected = (Eigen::AngleAxisd(a, Vec3d::UnitX()) * Eigen::AngleAxisd(b, Vec3d::UnitY()) *
                            Eigen::AngleAxisd(c, Vec3d::UnitZ()))
                               .toRotationMatrix();
    EXPECT_LT((R - expected).norm(), 1e-14);
    EXPECT_LT((euler_xyz(R) - Vec3d(a, b, c)).norm(), 1e-12);
  }
}

TEST(Rotation, TwistRateMatchesDifferentiatedAngularVelocity) {
  // omega_dot from eq. (38) equals d/dt (J_e phi_dot) by central differences.
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int n = 0; n < 100; ++n) {
    Vec6d chi, rate, acc;
    for (int k = 0; k < 6; ++k) chi(k) = u(rng), rate(k) = u(rng), acc(k) = u(rng);
    const double h = 1e-6;
    const Vec6d vp = twist_from_pose_rate<double>(Vec6d(chi + h * rate), Vec6d(rate + h * acc));
    const Vec6d vm = twist_from_pose_rate<double>(Vec6d(chi - h * rate), Vec6d(rate - h * acc));
    const Vec6d fd = (vp - vm) / (2 * h);
    EXPECT_LT((twist_rate_from_pose<double>(chi, rate, acc) - fd).norm(), 1e-8);
  }
}

TEST(Rotation, SkewIsTheCrossProduct) {
  const Vec3d a(1, -2, 3), b(0.5, 4, -1);
  EXPECT_LT((skew(a) * b - a.cross(b)).norm(), 1e-15);
}

// The one difference of angles (core/rotation_difference.hpp) is a - b bit for bit wherever no
// angle differs by more than pi / 4 (and no turn lies between them): golden traces and identify's
// results stay as they were.
TEST(Rotation, TheOneDifferenceOfAnglesIsPlainSubtractionWithoutWraps) {
  std::mt19937 rng(19);
  std::uniform_real_distribution<double> u(-2.3, 2.3), small(-M_PI / 4, M_PI / 4);
  for (int k = 0; k < 2000; ++k) {
    const Vec3d a(u(rng), u(rng), u(rng)), b = a + Vec3d(small(rng), small(rng), small(rng));
    const Vec3d d = euler_difference(a, b);
    for (int i = 0; i < 3; ++i) ASSERT_EQ(d(i), a(i) - b(i)) << k;
  }
  // The same rotations a whole turn away (each angle), and on the other branch: no difference.
  const Vec3d e(0.3, -0.4, 2.9);
  for (const Vec3d& same : {Vec3d(e + Vec3d(0, 0, 2 * M_PI)), Vec3d(e - Vec3d(2 * M_PI, 0, 0)),
                            Vec3d(e + Vec3d(0, 4 * M_PI, -2 * M_PI)), Vec3d(e(0) - M_PI, M_PI - e(1), e(2) + M_PI)})
    EXPECT_LT(euler_difference(e, same).norm(), 1e-12) << same.transpose();
}
