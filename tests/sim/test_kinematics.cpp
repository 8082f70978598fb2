// Specification of sim/kinematics: IK closes every leg, Jacobians are the exact derivatives of
// the closure (checked against central finite differences), J_dot the exact time derivative
// of J along a trajectory, FK inverts IK, and the limit checks say what failed.
#include <gtest/gtest.h>

#include <chrono>
#include <limits>

#include "sim_fixtures.hpp"
#include "vcloe/sim/kinematics.hpp"

using namespace vcloe;
using namespace vcloe::sim;
using vcloe::test::advance_pose;
using vcloe::test::default_robot;
using vcloe::test::rel_err;

namespace {

constexpr int kSamples = 120;
constexpr double kEps = 1e-6;  // finite-difference step (m, rad, s)

Kinematics<double> kin(const Vec6d& chi, const Vec6d& v = Vec6d::Zero()) {
  Kinematics<double> k;
  EXPECT_TRUE(compute_kinematics<double>(default_robot(), chi, v, k));
  return k;
}

// Wrench and link body positions / directions as functions of the pose, for differencing.
struct LegBodies {
  Vec3d c_w, c_l, lhat;
  Mat3d R_w;  // wrench orientation: rotation by theta about s
};
LegBodies bodies(const Vec6d& chi, int i) {
  const auto& m = default_robot();
  const Kinematics<double> k = kin(chi);
  const auto& g = k.geometry[i];
  LegBodies b;
  b.c_w = m.legs[i].base_joint + m.wrench_com * g.w;
  b.c_l = m.legs[i].base_joint + g.w + m.link_com * g.l;
  b.lhat = g.l.normalized();
  b.R_w = Eigen::AngleAxisd(g.theta, g.s).toRotationMatrix();
  return b;
}

Vec3d angular_velocity_fd(const Mat3d& Rp, const Mat3d& Rm, double dt) {
  const Eigen::AngleAxisd aa(Rp * Rm.transpose());
  return aa.axis() * aa.angle() / dt;
}

// Column-wise finite-difference Jacobian of f along twist directions e_k.
template <typename F>
Eigen::MatrixXd twist_fd(const Vec6d& chi, F f) {
  Eigen::MatrixXd J;
  for (int c = 0; c < 6; ++c) {
    const Vec6d e = Vec6d::Unit(c);
    const Eigen::VectorXd col = f(advance_pose(chi, e, kEps), advance_pose(chi, e, -kEps), 2 * kEps);
    if (J.size() == 0) J.resize(col.size(), 6);
    J.col(c) = col;
  }
  return J;
}

// A smooth pose trajectory for the J_dot checks: chi(t) and its rate.
Vec6d traj(double t) {
  Vec6d chi = default_robot().home;
  for (int k = 0; k < 6; ++k) {
    const double amp = k < 3 ? 0.02 : 0.08, f = 0.3 + 0.17 * k;
    chi(k) += amp * std::sin(2 * M_PI * f * t + k);
  }
  return chi;
}
Vec6d traj_rate(double t) {
  Vec6d r;
  for (int k = 0; k < 6; ++k) {
    const double amp = k < 3 ? 0.02 : 0.08, f = 0.3 + 0.17 * k;
    r(k) = amp * 2 * M_PI * f * std::cos(2 * M_PI * f * t + k);
  }
  return r;
}

}  // namespace

TEST(InverseKinematics, ClosesEveryLegAtRandomPoses) {
  std::mt19937 rng(1);
  const auto& m = default_robot();
  for (int n = 0; n < kSamples; ++n) {
    const Vec6d chi = test::random_feasible_pose(m, rng);
    const Kinematics<double> k = kin(chi);
    for (int i = 0; i < kLegs; ++i) {
      const auto& g = k.geometry[i];
      const Vec3d A = chi.head<3>() + g.a;
      const Vec3d T = m.legs[i].base_joint + g.w;
      EXPECT_NEAR((A - T).norm(), m.legs[i].link_length, 1e-12);            // eq. (3)-(4)
      EXPECT_NEAR(g.w.norm(), m.legs[i].wrench.norm(), 1e-12);
      EXPECT_LE(std::abs(g.theta), m.joint_limit);
    }
  }
}

TEST(InverseKinematics, HomePoseOfTheDefaultRobotHasAllJointsAtZero) {
  Vec6d theta;
  ASSERT_TRUE(inverse_kinematics<double>(default_robot(), default_robot().home, theta));
  EXPECT_LT(theta.cwiseAbs().maxCoeff(), 1e-9);
}

TEST(InverseKinematics, BranchIsConsistentAlongAContinuousPath) {
  // Along a smooth path the joint angles must move continuously (no jump to the other branch).
  Vec6d prev;
  ASSERT_TRUE(inverse_kinematics<double>(default_robot(), traj(0), prev));
  for (double t = 1e-3; t < 5; t += 1e-3) {
    Vec6d q;
    ASSERT_TRUE(inverse_kinematics<double>(default_robot(), traj(t), q));
    EXPECT_LT((q - prev).cwiseAbs().maxCoeff(), 0.01) << "at t=" << t;
    prev = q;
  }
}

TEST(InverseKinematics, UnreachablePoseIsReportedWithTheLeg) {
  Vec6d chi = default_robot().home;
  chi(2) = 1.0;  // one metre up: no leg can reach
  const PoseCheck c = check_pose(default_robot(), chi);
  EXPECT_EQ(c.status, PoseStatus::Unreachable);
  EXPECT_GE(c.leg, 0);
  EXPECT_NE(c.describe().find("cannot close"), std::string::npos);
}

TEST(Limits, JointRangeViolationNamesTheJoint) {
  const auto& m = default_robot();
  // Walk along +x until some joint leaves the range; the report must name it.
  Vec6d chi = m.home;
  PoseCheck c;
  for (int n = 0; n < 400 && (c = check_pose(m, chi)).ok(); ++n) chi(5) += 0.01;
  ASSERT_FALSE(c.ok());
  if (c.status == PoseStatus::JointLimit) {
    EXPECT_GT(std::abs(c.theta(c.leg)), m.joint_limit);
    EXPECT_NE(c.describe().find("joint " + std::to_string(c.leg + 1)), std::string::npos);
  }
}

TEST(Limits, EncoderReadingsAreCheckedAsReadNotAsTheAngleForwardKinematicsFinds) {
  // Forward kinematics is periodic in the crank angles: 0.1 + 2 pi rad finds the pose of 0.1 rad,
  // and the range, checked on the angle found, called 6.38 rad "within" (kinematics --theta).
  const auto& m = default_robot();
  const Vec6d offsets = encoder_offsets(m);
  for (const double turns : {1.0, -1.0, 2.0}) {
    Vec6d encoders = Vec6d::Constant(0.1) + offsets;
    encoders(2) += turns * 2 * M_PI;
    Vec6d chi = m.home;
    const PoseCheck c = check_encoders(m, encoders, chi);
    EXPECT_EQ(c.status, PoseStatus::JointLimit) << turns;
    EXPECT_EQ(c.leg, 2) << turns;
    EXPECT_NE(c.describe().find("joint 3 at"), std::string::npos) << c.describe();
    EXPECT_TRUE(chi.allFinite()) << turns;  // the pose is still found (for the user to see)
  }
  Vec6d chi = m.home;
  EXPECT_TRUE(check_encoders(m, Vec6d::Constant(0.1) + offsets, chi).ok());
}

TEST(Jacobians, JadMatchesFiniteDifferencesOfIK) {
  std::mt19937 rng(2);
  double worst = 0;
  for (int n = 0; n < kSamples; ++n) {
    const Vec6d chi = test::random_feasible_pose(default_robot(), rng);
    const Eigen::MatrixXd fd = twist_fd(chi, [](const Vec6d& p, const Vec6d& q, double h) {
      return Eigen::VectorXd((kin(p).theta() - kin(q).theta()) / h);
    });
    worst = std::max(worst, rel_err(kin(chi).J_ad(), fd));
  }
  EXPECT_LE(worst, 1e-6);
}

TEST(Jacobians, WrenchAndLinkJacobiansMatchFiniteDifferences) {
  std::mt19937 rng(3);
  double worst = 0;
  for (int n = 0; n < kSamples; ++n) {
    const Vec6d chi = test::random_feasible_pose(default_robot(), rng);
    const Kinematics<double> k = kin(chi);
    for (int i = 0; i < kLegs; ++i) {
      const Eigen::MatrixXd fd = twist_fd(chi, [i](const Vec6d& p, const Vec6d& q, double h) {
        const LegBodies bp = bodies(p, i), bq = bodies(q, i);
        Eigen::VectorXd col(12);
        col.segment<3>(0) = (bp.c_w - bq.c_w) / h;                 // wrench COM velocity
        col.segment<3>(3) = angular_velocity_fd(bp.R_w, bq.R_w, h);  // omega_1
        col.segment<3>(6) = (bp.c_l - bq.c_l) / h;                 // link COM velocity
        // omega_2 is perpendicular to the link (no spin), so omega_2 = lhat x lhat_dot.
        const Vec3d lhat = (bp.lhat + bq.lhat).normalized();
        col.segment<3>(9) = lhat.cross((bp.lhat - bq.lhat) / h);
        return col;
      });
      worst = std::max(worst, rel_err(k.jacobians[i].J_a, fd.topRows(6)));
      worst = std::max(worst, rel_err(k.jacobians[i].J_b, fd.bottomRows(6)));
    }
  }
  EXPECT_LE(worst, 1e-6);
}

TEST(Jacobians, JthetaMapsPoseRatesToJointRates) {
  std::mt19937 rng(4);
  double worst = 0;
  for (int n = 0; n < kSamples; ++n) {
    const Vec6d chi = test::random_feasible_pose(default_robot(), rng);
    Mat6d fd;
    for (int c = 0; c < 6; ++c) {
      const Vec6d e = Vec6d::Unit(c) * kEps;
      fd.col(c) = (kin(chi + e).theta() - kin(chi - e).theta()) / (2 * kEps);
    }
    worst = std::max(worst, rel_err(J_theta<double>(kin(chi), chi), fd));  // eq. (29)
  }
  EXPECT_LE(worst, 1e-6);
}

TEST(Jacobians, EulerRateJacobianGivesTheBaseFrameAngularVelocity) {
  std::mt19937 rng(5);
  for (int n = 0; n < kSamples; ++n) {
    const Vec6d chi = test::random_feasible_pose(default_robot(), rng);
    const Vec6d rate = test::random_twist(rng);
    const Mat3d Rp = rotation_of<double>(Vec6d(chi + kEps * rate));
    const Mat3d Rm = rotation_of<double>(Vec6d(chi - kEps * rate));
    const Vec3d omega_fd = angular_velocity_fd(Rp, Rm, 2 * kEps);
    const Vec3d omega = euler_rate_jacobian<double>(chi(3), chi(4)) * rate.tail<3>();  // eq. (2)
    EXPECT_LE(rel_err(omega, omega_fd), 1e-6);
  }
}

TEST(JacobianRates, EveryJdotIsTheTimeDerivativeOfJAlongATrajectory) {
  const auto& m = default_robot();
  double worst = 0;
  const double h = 1e-6;
  for (int n = 0; n < kSamples; ++n) {
    const double t = 0.037 * n;
    const Vec6d chi = traj(t);
    const Vec6d v = twist_from_pose_rate<double>(chi, traj_rate(t));
    const Kinematics<double> k = kin(chi, v);
    const Kinematics<double> kp = kin(traj(t + h)), km = kin(traj(t - h));
    worst = std::max(worst, rel_err(k.J_ad_dot(), Mat6d((kp.J_ad() - km.J_ad()) / (2 * h))));
    for (int i = 0; i < kLegs; ++i) {
      const Mat6d Ja_fd = (kp.jacobians[i].J_a - km.jacobians[i].J_a) / (2 * h);
      const Mat6d Jb_fd = (kp.jacobians[i].J_b - km.jacobians[i].J_b) / (2 * h);
      worst = std::max(worst, rel_err(k.jacobians[i].J_a_dot, Ja_fd));
      worst = std::max(worst, rel_err(k.jacobians[i].J_b_dot, Jb_fd));
    }
    const Mat6d Jt_fd = (J_theta<double>(kp, traj(t + h)) - J_theta<double>(km, traj(t - h))) / (2 * h);
    worst = std::max(worst, rel_err(J_theta_dot<double>(k, chi, traj_rate(t)), Jt_fd));
    const Mat3d Je_fd = (euler_rate_jacobian<double>(traj(t + h)(3), traj(t + h)(4)) -
                         euler_rate_jacobian<double>(traj(t - h)(3), traj(t - h)(4))) /
                        (2 * h);
    worst = std::max(worst, rel_err(euler_rate_jacobian_dot<double>(chi(3), chi(4), traj_rate(t)(3),
                                                                    traj_rate(t)(4)),
                                    Je_fd));
  }
  (void)m;
  EXPECT_LE(worst, 1e-6);
}

TEST(ForwardKinematics, NewtonRecoversThePoseFromJointAngles) {
  std::mt19937 rng(6);
  const auto& m = default_robot();
  for (int n = 0; n < 50; ++n) {
    const Vec6d chi = test::random_feasible_pose(m, rng);
    const ForwardKinematicsResult r = forward_kinematics(m, kin(chi).theta(), m.home);
    ASSERT_TRUE(r.converged) << "sample " << n;
    EXPECT_LT((r.chi - chi).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_LE(r.iterations, 10);
  }
}

TEST(Limits, AReadingTurnsBeyondTheRangeIsRefusedAtOnceWithoutForwardKinematics) {
  // An encoder count or micro-radians typed as rad (probe 19's D): 1e10 rad took 1.6e9 steps of
  // 2 pi per Newton iteration, 1e308 for ever. Refused at once as outside the joint range.
  const auto& m = default_robot();
  const Vec6d offsets = encoder_offsets(m);
  const auto start = std::chrono::steady_clock::now();
  for (const double reading : {1e10, -1e12, 1e308, -1e308, std::numeric_limits<double>::infinity(),
                               std::numeric_limits<double>::quiet_NaN(), m.joint_limit + 2.5 * 2 * M_PI}) {
    for (const int joint : {0, 4}) {
      Vec6d encoders = offsets;
      encoders(joint) = reading;
      Vec6d chi = m.home;
      const PoseCheck c = check_encoders(m, encoders, chi);
      EXPECT_EQ(c.status, PoseStatus::JointLimit) << reading;
      EXPECT_EQ(c.leg, joint) << reading;
      EXPECT_FALSE(chi.allFinite()) << reading << ": no pose looked for";
    }
  }
  // The angle wrap, FK's residual, in constant time and never a value out of (-pi, pi].
  for (const double x : {1e8, -1e9, 7.0, -7.0, M_PI, -M_PI, 3 * M_PI + 1e-9, 0.0})
    EXPECT_TRUE(detail::wrap_angle(x) <= M_PI && detail::wrap_angle(x) > -M_PI) << x;
  EXPECT_NEAR(detail::wrap_angle(7.0), 7.0 - 2 * M_PI, 1e-15);
  EXPECT_TRUE(std::isnan(detail::wrap_angle(1e308)));
  EXPECT_FALSE(forward_kinematics(m, Vec6d::Constant(1e308), m.home).converged);
  EXPECT_FALSE(forward_kinematics(m, Vec6d::Constant(1e10), m.home).converged);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
}
