// Specification of sim/dynamics: the virtual-work model (eqs. 17-25, 40) is linear in Xi with
// the regressor as its exact matrix, has a symmetric positive-definite mass matrix, conserves
// energy up to actuator and friction power, and differentiates through ceres::Jet.
#include <ceres/jet.h>
#include <gtest/gtest.h>

#include "sim_fixtures.hpp"
#include "vcloe/sim/dynamics_direct.hpp"
#include "vcloe/sim/plant.hpp"

using namespace vcloe;
using namespace vcloe::sim;
using vcloe::test::default_robot;
using vcloe::test::rel_err;

// This file's helpers and specifications in its own namespace: the test program is compiled as
// one translation unit (tests/CMakeLists.txt).
namespace test_dynamics {

namespace {
constexpr int kSamples = 120;

// Xi with every entry non-zero and physically plausible, so no column hides behind a zero.
XiVector<double> test_xi() {
  XiVector<double> xi = test::default_xi();
  for (int i = 0; i < kLegs; ++i) {
    xi(coulomb_index(i)) = 0.2 + 0.05 * i;
    xi(viscous_index(i)) = 0.3 + 0.02 * i;
    xi(link_index(i, 1)) *= 1.0 + 0.1 * i;  // links not all alike
  }
  return xi;
}

struct State {
  Vec6d chi, v, v_dot;
};
State random_state(std::mt19937& rng) {
  State s;
  s.chi = test::random_feasible_pose(default_robot(), rng);
  s.v = test::random_twist(rng);
  s.v_dot = test::random_twist(rng, 3.0, 15.0);
  return s;
}
}  // namespace

TEST(Regressor, GammaTimesXiEqualsInverseDynamics) {
  std::mt19937 rng(11);
  const XiVector<double> xi = test_xi();
  double worst = 0;
  for (int n = 0; n < kSamples; ++n) {
    const State s = random_state(rng);
    Vec6d tau;
    Regressor<double> Gamma;
    ASSERT_TRUE(inverse_dynamics<double>(default_robot(), s.chi, s.v, s.v_dot, xi, tau));
    ASSERT_TRUE(regressor<double>(default_robot(), s.chi, s.v, s.v_dot, Gamma));
    worst = std::max(worst, rel_err(Vec6d(Gamma * xi), tau));  // eq. (25)
  }
  EXPECT_LE(worst, 1e-10);
}

TEST(InverseDynamics, ClosureVectorFormEqualsTheMassMatrixPath) {
  std::mt19937 rng(17);
  const XiVector<double> xi = test_xi();
  for (int n = 0; n < kSamples; ++n) {
    const State s = random_state(rng);
    Kinematics<double> k;
    ASSERT_TRUE(compute_kinematics<double>(default_robot(), s.chi, s.v, k));
    Vec6d tau;
    ASSERT_TRUE(inverse_dynamics<double>(default_robot(), s.chi, s.v, s.v_dot, xi, tau));
    Vec6d direct;
    ASSERT_TRUE(inverse_dynamics_direct<double>(default_robot(), s.chi, s.v, s.v_dot, xi, direct));
    EXPECT_LE(rel_err(direct, tau), 1e-12);
    // Residual form: tau_g - J_ad^T tau_a vanishes for the actuator torques of this motion.
    const Vec6d tau_a = actuator_torques<double>(k, tau);
    Vec6d residual;
    ASSERT_TRUE(inverse_dynamics_direct<double>(default_robot(), s.chi, s.v, s.v_dot, xi, residual, &tau_a));
    EXPECT_LE(residual.norm(), 1e-10 * tau.norm());
  }
}

// The platform's centre of mass off E (its first moments m c, c = 5 mm here): the regressor is
// still the exact matrix of the inverse dynamics (its columns mx_p, my_p, mz_p), the closure-
// vector form agrees, gravity is the gradient of the potential energy with the centre at E + R c,
// the energy balance holds, and the offset changes the torques (it is not ignored somewhere).
XiVector<double> xi_with_com(const XiVector<double>& xi) {
  XiVector<double> out = xi;
  const Vec3d c(5e-3, -3e-3, 4e-3);
  for (int k = 0; k < 3; ++k) out(first_moment_index(k)) = xi(platform_index(0)) * c(k);
  return out;
}

TEST(Regressor, GammaTimesXiEqualsInverseDynamicsWithThePlatformCentreOfMassOffE) {
  const RobotModel& m = default_robot();
  std::mt19937 rng(21);
  const XiVector<double> xi = xi_with_com(test_xi());
  double worst = 0, worst_direct = 0, effect = 0;
  for (int n = 0; n < 40; ++n) {
    const State s = random_state(rng);
    Vec6d tau, direct, at_e;
    Regressor<double> Gamma;
    ASSERT_TRUE(inverse_dynamics<double>(m, s.chi, s.v, s.v_dot, xi, tau));
    ASSERT_TRUE(inverse_dynamics_direct<double>(m, s.chi, s.v, s.v_dot, xi, direct));
    ASSERT_TRUE(inverse_dynamics<double>(m, s.chi, s.v, s.v_dot, test_xi(), at_e));
    ASSERT_TRUE(regressor<double>(m, s.chi, s.v, s.v_dot, Gamma));
    worst = std::max(worst, rel_err(Vec6d(Gamma * xi), tau));
    worst_direct = std::max(worst_direct, rel_err(direct, tau));
    effect = std::max(effect, rel_err(at_e, tau));
  }
  EXPECT_LE(worst, 1e-10);
  EXPECT_LE(worst_direct, 1e-12);
  EXPECT_GT(effect, 1e-3);
  Regressor<double> Gamma;  // the first moments' columns are not zero
  ASSERT_TRUE(regressor<double>(m, m.home, Vec6d::Zero(), Vec6d::Zero(), Gamma));
  EXPECT_GT(Gamma.col(first_moment_index(0)).norm(), 1.0);
}

TEST(Gravity, IsTheGradientOfPotentialEnergyWithThePlatformCentreOfMassOffE) {
  const RobotModel& m = default_robot();
  std::mt19937 rng(22);
  const XiVector<double> xi = xi_with_com(test_xi());
  auto V = [&](const Vec6d& chi) {
    Kinematics<double> k;
    EXPECT_TRUE(compute_geometry<double>(m, chi, k));
    return potential_energy<double>(m, chi, k, xi);
  };
  for (int n = 0; n < 30; ++n) {
    const Vec6d chi = test::random_feasible_pose(m, rng), v = test::random_twist(rng);
    Kinematics<double> k;
    ASSERT_TRUE(compute_kinematics<double>(m, chi, v, k));
    DynamicsTerms<double> d;
    compute_dynamics_terms<double>(m, k, v, xi, d);
    EXPECT_LE((d.M - d.M.transpose()).norm(), 1e-12 * d.M.norm());
    const double h = 1e-6;
    const double dV = (V(test::advance_pose(chi, v, h)) - V(test::advance_pose(chi, v, -h))) / (2 * h);
    EXPECT_NEAR(d.G.dot(v), dV, 1e-6 * std::max(1.0, std::abs(dV)));
  }
}

TEST(InverseDynamics, ClosureVectorFormWithConstantsAsDoublesIsTheAllJetDerivative) {
  // Differentiated through the pose and twist (ceres::Jet<12>, as the sensitivities do) with the
  // acceleration, Xi and the drive torques as doubles: the same value and the same derivative as
  // with them as constant Jets, to the last bit (a zero's sign aside). Xi with the platform's
  // centre of mass off E, so the first moments' terms are compared too.
  using Jet = ceres::Jet<double, 12>;
  std::mt19937 rng(23);
  const XiVector<double> xi = xi_with_com(test_xi());
  const XiVector<Jet> xi_jet = xi.cast<Jet>();
  for (int n = 0; n < kSamples; ++n) {
    const State s = random_state(rng);
    const Vec6d tau_a = s.v_dot + s.v;  // any torques: the residual form's extra term
    Vec6<Jet> chi, v;
    for (int i = 0; i < 6; ++i) {
      chi(i) = Jet(s.chi(i), i);
      v(i) = Jet(s.v(i), 6 + i);
    }
    const Vec6<Jet> v_dot_jet = s.v_dot.cast<Jet>(), tau_jet = tau_a.cast<Jet>();
    Vec6<Jet> all_jet, mixed;
    ASSERT_TRUE((inverse_dynamics_direct<Jet, Jet>(default_robot(), chi, v, v_dot_jet, xi_jet, all_jet, &tau_jet)));
    ASSERT_TRUE((inverse_dynamics_direct<Jet, double>(default_robot(), chi, v, s.v_dot, xi, mixed, &tau_a)));
    for (int i = 0; i < 6; ++i) {
      EXPECT_EQ(mixed(i).a, all_jet(i).a) << "row " << i;
      for (int j = 0; j < 12; ++j) EXPECT_EQ(mixed(i).v(j), all_jet(i).v(j)) << "row " << i << " column " << j;
    }
  }
}

TEST(Regressor, StructurallyUnexcitableColumnsAreZero) {
  // Vertical parallel axes: a wrench only spins about s, so its Ix, Iy never enter; links do
  // not spin about their axis, so their Iz never enters (docs/model.md).
  std::mt19937 rng(12);
  for (int n = 0; n < 20; ++n) {
    const State s = random_state(rng);
    Regressor<double> Gamma;
    ASSERT_TRUE(regressor<double>(default_robot(), s.chi, s.v, s.v_dot, Gamma));
    const double scale = Gamma.norm();
    for (int i = 0; i < kLegs; ++i) {
      EXPECT_LE(Gamma.col(wrench_index(i, 1)).norm(), 1e-12 * scale);
      EXPECT_LE(Gamma.col(wrench_index(i, 2)).norm(), 1e-12 * scale);
      EXPECT_LE(Gamma.col(link_index(i, 3)).norm(), 1e-12 * scale);
      EXPECT_GT(Gamma.col(wrench_index(i, 3)).norm(), 1e-9 * scale);
      EXPECT_GT(Gamma.col(link_index(i, 0)).norm(), 1e-9 * scale);
    }
  }
}

TEST(MassMatrix, IsSymmetricPositiveDefinite) {
  std::mt19937 rng(13);
  for (int n = 0; n < kSamples; ++n) {
    const State s = random_state(rng);
    Kinematics<double> k;
    ASSERT_TRUE(compute_kinematics<double>(default_robot(), s.chi, s.v, k));
    DynamicsTerms<double> d;
    compute_dynamics_terms<double>(default_robot(), k, s.v, test_xi(), d);
    EXPECT_LE((d.M - d.M.transpose()).norm(), 1e-12 * d.M.norm());
    const Eigen::SelfAdjointEigenSolver<Mat6d> eig(d.M);
    EXPECT_GT(eig.eigenvalues().minCoeff(), 0.0);
  }
}

TEST(Gravity, IsTheGradientOfPotentialEnergyAlongTwists) {
  // G . v = dV/dt for every twist: checked by differencing V along advance_pose.
  std::mt19937 rng(14);
  const XiVector<double> xi = test_xi();
  auto V = [&](const Vec6d& chi) {
    Kinematics<double> k;
    EXPECT_TRUE(compute_geometry<double>(default_robot(), chi, k));
    return potential_energy<double>(default_robot(), chi, k, xi);
  };
  for (int n = 0; n < kSamples; ++n) {
    const Vec6d chi = test::random_feasible_pose(default_robot(), rng);
    const Vec6d v = test::random_twist(rng);
    Kinematics<double> k;
    ASSERT_TRUE(compute_kinematics<double>(default_robot(), chi, v, k));
    DynamicsTerms<double> d;
    compute_dynamics_terms<double>(default_robot(), k, v, xi, d);
    const double h = 1e-6;
    const double dV = (V(test::advance_pose(chi, v, h)) - V(test::advance_pose(chi, v, -h))) / (2 * h);
    EXPECT_NEAR(d.G.dot(v), dV, 1e-6 * std::max(1.0, std::abs(dV)));
  }
}

TEST(ForwardDynamics, InvertsInverseDynamics) {
  std::mt19937 rng(15);
  const XiVector<double> xi = test_xi();
  for (int n = 0; n < kSamples; ++n) {
    const State s = random_state(rng);
    Kinematics<double> k;
    ASSERT_TRUE(compute_kinematics<double>(default_robot(), s.chi, s.v, k));
    Vec6d tau_g;
    ASSERT_TRUE(inverse_dynamics<double>(default_robot(), s.chi, s.v, s.v_dot, xi, tau_g));
    const Vec6d tau_a = actuator_torques<double>(k, tau_g);  // tau_g = J_ad^T tau_a
    EXPECT_LE(rel_err(Vec6d(k.J_ad().transpose() * tau_a), tau_g), 1e-10);
    const Vec6d v_dot = forward_dynamics<double>(default_robot(), k, s.v, tau_a, xi);  // eq. (40)
    EXPECT_LE(rel_err(v_dot, s.v_dot), 1e-9);
  }
}

// 2 s of PID-held motion towards a moving target. Integrate [x; W] with RK4 where
// W_dot = tau_a . theta_dot - tau_joint . theta_dot; then (T + V)(t) - (T + V)(0) = W(t).
void expect_power_balance(const XiVector<double>& xi) {
  const RobotModel& m = default_robot();
  const double kp = test::default_priors()(kGainP), ki = test::default_priors()(kGainI), kd = test::default_priors()(kGainD);
  const double dt_ctrl = 1e-3, dt = 1e-4;
  using Aug = Eigen::Matrix<double, 13, 1>;
  auto energy = [&](const Aug& x) {
    Kinematics<double> k;
    const Vec6d chi = x.head<6>(), v = x.segment<6>(6);
    EXPECT_TRUE(compute_kinematics<double>(m, chi, v, k));
    DynamicsTerms<double> d;
    compute_dynamics_terms<double>(m, k, v, xi, d);
    return kinetic_energy<double>(d, v) + potential_energy<double>(m, chi, k, xi);
  };
  auto deriv = [&](const Aug& x, const Vec6d& tau_a) {
    Aug dx;
    PlantState<double> ds;
    EXPECT_TRUE(plant_derivative<double>(m, xi, x.head<12>(), tau_a, ds));
    dx.head<12>() = ds;
    Kinematics<double> k;
    EXPECT_TRUE(compute_kinematics<double>(m, Vec6d(x.head<6>()), Vec6d(x.segment<6>(6)), k));
    double p = 0;
    for (int i = 0; i < kLegs; ++i) {
      const double qd = k.jacobians[i].theta_dot;
      const double friction = xi(coulomb_index(i)) * std::tanh(qd / m.friction_epsilon) + xi(viscous_index(i)) * qd;
      p += (tau_a(i) - friction) * qd;
    }
    dx(12) = p;
    return dx;
  };
  Aug x = Aug::Zero();
  x.head<6>() = m.home;
  const double E0 = energy(x);
  Vec6d integral = Vec6d::Zero();
  double abs_work = 0, worst = 0;
  for (int tick = 0; tick < 2000; ++tick) {
    const double t = tick * dt_ctrl;
    Vec6d target_pose = m.home;
    target_pose(0) += 0.01 * std::sin(2 * M_PI * 1.0 * t);
    target_pose(5) += 0.05 * std::sin(2 * M_PI * 0.7 * t);
    Vec6d q_ref, q;
    ASSERT_TRUE(inverse_kinematics<double>(m, target_pose, q_ref));
    Kinematics<double> k;
    ASSERT_TRUE(compute_kinematics<double>(m, Vec6d(x.head<6>()), Vec6d(x.segment<6>(6)), k));
    q = k.theta();
    integral += (q_ref - q) * dt_ctrl;
    const Vec6d tau_a = kp * (q_ref - q) + ki * integral - kd * k.theta_dot();  // held for dt_ctrl
    for (int s = 0; s < 10; ++s) {
      const Aug k1 = deriv(x, tau_a), k2 = deriv(x + dt / 2 * k1, tau_a), k3 = deriv(x + dt / 2 * k2, tau_a),
                k4 = deriv(x + dt * k3, tau_a);
      const Aug step = dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
      abs_work += std::abs(step(12));
      x += step;
    }
    worst = std::max(worst, std::abs(energy(x) - E0 - x(12)));
  }
  ASSERT_GT(abs_work, 1e-3);  // the test moved the robot
  EXPECT_LE(worst / abs_work, 1e-6) << "worst energy mismatch " << worst << " J, |work| " << abs_work << " J";
}

TEST(PowerBalance, EnergyChangeEqualsActuatorMinusFrictionWorkUnderPidHold) { expect_power_balance(test_xi()); }

// The velocity terms of the platform's first moment (omega x (omega x h_O) and the off-diagonal
// blocks of M_p) conserve energy with its potential energy as well.
TEST(PowerBalance, HoldsWithThePlatformCentreOfMassOffE) { expect_power_balance(xi_with_com(test_xi())); }

TEST(JetInstantiation, ForwardDynamicsDerivativesMatchFiniteDifferences) {
  using Jet = ceres::Jet<double, 13>;
  std::mt19937 rng(16);
  const XiVector<double> xi = test_xi();
  for (int n = 0; n < 10; ++n) {
    const State s = random_state(rng);
    Vec6d tau_a = test::random_twist(rng, 5.0, 5.0);
    // Seed derivatives: 12 state entries and the platform mass.
    Vec6<Jet> chi, v;
    for (int k = 0; k < 6; ++k) {
      chi(k) = Jet(s.chi(k), k);
      v(k) = Jet(s.v(k), 6 + k);
    }
    XiVector<Jet> xi_j = xi.cast<Jet>();
    xi_j(platform_index(0)) = Jet(xi(platform_index(0)), 12);
    Vec6<Jet> a;
    ASSERT_TRUE(forward_dynamics<Jet>(default_robot(), chi, v, tau_a.cast<Jet>(), xi_j, a));
    for (int d = 0; d < 13; ++d) {
      const double h = 1e-6;
      auto eval = [&](double sign) {
        Vec6d c = s.chi, w = s.v;
        XiVector<double> x = xi;
        if (d < 6) c(d) += sign * h;
        else if (d < 12) w(d - 6) += sign * h;
        else x(platform_index(0)) += sign * h;
        Vec6d out;
        EXPECT_TRUE(forward_dynamics<double>(default_robot(), c, w, tau_a, x, out));
        return out;
      };
      const Vec6d fd = (eval(+1) - eval(-1)) / (2 * h);
      Vec6d ad;
      for (int k = 0; k < 6; ++k) ad(k) = a(k).v(d);
      EXPECT_LE((ad - fd).norm(), 1e-6 * std::max(1.0, fd.norm())) << "derivative " << d;
      for (int k = 0; k < 6; ++k) EXPECT_NEAR(a(k).a, eval(0)(k), 1e-12 * std::max(1.0, std::abs(a(k).a)));
    }
  }
}

}  // namespace test_dynamics
