// Specification of hw/mujoco_model: an independent MuJoCo model of the same robot closes its
// loops, reproduces our rigid inverse dynamics (mj_rne plus the connect constraint Jacobians),
// and follows the same PID-held motion.
#include <gtest/gtest.h>

#include <cmath>

#include "../sim/sim_fixtures.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/hw/model_check.hpp"
#include "vcloe/hw/mujoco_model.hpp"
#include "vcloe/sim/dynamics.hpp"

using namespace vcloe;
using vcloe::test::default_robot;

namespace {
sim::LambdaVector<double> consistent_values(std::vector<std::string>* notes = nullptr) {
  std::vector<std::string> adjustments;
  const sim::LambdaVector<double> l = hw::engine_consistent(default_robot(), test::default_priors(), adjustments);
  if (notes) *notes = adjustments;
  return l;
}
}  // namespace

TEST(EngineConsistency, AdjustsOnlyTheInvisibleMomentsOfTable1) {
  std::vector<std::string> notes;
  const sim::LambdaVector<double> l = consistent_values(&notes);
  EXPECT_EQ(notes.size(), 12u);  // one of a wrench's Ix, Iy (the triangle inequality) and the link Iz, six legs
  EXPECT_TRUE(sim::check_physical_consistency(l).empty());
  for (int k : {sim::platform_index(0), sim::platform_index(3), sim::wrench_index(2, 3), sim::link_index(4, 1)})
    EXPECT_EQ(l(k), test::default_priors()(k));
  sim::LambdaVector<double> bad = test::default_priors();
  bad(sim::platform_index(0)) = -1;
  EXPECT_THROW(hw::engine_consistent(default_robot(), bad, notes), vcloe::Error);
  EXPECT_THROW(hw::MujocoRobot::build(default_robot(), test::default_priors()), vcloe::Error);  // Table 1 as is
}

TEST(MujocoModel, LoadsClosedAtHomeAndRoundTripsState) {
  hw::MujocoRobot robot = hw::MujocoRobot::build(default_robot(), consistent_values());
  EXPECT_LT(robot.closure_error(), 1e-12);
  EXPECT_LT((robot.platform_pose() - default_robot().home).norm(), 1e-12);
  std::mt19937 rng(31);
  for (int n = 0; n < 20; ++n) {
    const Vec6d chi = test::random_feasible_pose(default_robot(), rng), v = test::random_twist(rng);
    robot.set_state(chi, v);
    EXPECT_LT((robot.platform_pose() - chi).norm(), 1e-12);
    EXPECT_LT((robot.platform_twist() - v).norm(), 1e-12);
    EXPECT_LT(robot.closure_error(), 1e-12);
    Vec6d theta;
    ASSERT_TRUE(sim::inverse_kinematics<double>(default_robot(), chi, theta));
    EXPECT_LT((robot.joint_angles() - theta).norm(), 1e-12);
  }
}

TEST(MujocoModel, RigidInverseDynamicsMatchesOurs) {
  const sim::RobotModel& m = default_robot();
  const sim::LambdaVector<double> l = consistent_values();
  sim::XiVector<double> xi = l.head<sim::kNumXi>();
  for (int i = 0; i < sim::kLegs; ++i) xi(sim::coulomb_index(i)) = xi(sim::viscous_index(i)) = 0;  // rigid only
  hw::MujocoRobot robot = hw::MujocoRobot::build(m, l);
  std::mt19937 rng(32);
  double worst = 0, worst_residual = 0;
  for (int n = 0; n < 40; ++n) {
    const Vec6d chi = test::random_feasible_pose(m, rng), v = test::random_twist(rng),
                a = test::random_twist(rng, 3.0, 15.0);
    sim::Kinematics<double> k;
    ASSERT_TRUE(sim::compute_kinematics<double>(m, chi, v, k));
    Vec6d tau_g;
    ASSERT_TRUE(sim::inverse_dynamics<double>(m, chi, v, a, xi, tau_g));
    const Vec6d ours = sim::actuator_torques<double>(k, tau_g);
    double residual = 0;
    const Vec6d theirs = robot.inverse_dynamics(chi, v, a, &residual);
    worst = std::max(worst, (ours - theirs).norm() / theirs.norm());
    worst_residual = std::max(worst_residual, residual);
  }
  EXPECT_LE(worst, 1e-6);
  EXPECT_LE(worst_residual, 1e-9);  // the constraint system is consistent
}

// The platform's centre of mass off E (first moments m c, c = 5 mm): MuJoCo's platform body has
// its inertial frame at c with the tensor about c; our inverse dynamics about E agree with it as
// closely as with the centre at E, and the offset is not lost (the model without it is far).
sim::LambdaVector<double> with_com(const sim::LambdaVector<double>& l, const Vec3d& c) {
  sim::LambdaVector<double> out = l;
  for (int k = 0; k < 3; ++k) out(sim::first_moment_index(k)) = l(sim::platform_index(0)) * c(k);
  return out;
}

TEST(MujocoModel, RigidInverseDynamicsMatchesOursWithThePlatformCentreOfMassOffE) {
  const sim::RobotModel& m = default_robot();
  const sim::LambdaVector<double> l = with_com(consistent_values(), Vec3d(5e-3, -3e-3, 4e-3));
  sim::XiVector<double> xi = l.head<sim::kNumXi>();
  for (int i = 0; i < sim::kLegs; ++i) xi(sim::coulomb_index(i)) = xi(sim::viscous_index(i)) = 0;  // rigid only
  sim::XiVector<double> xi_e = xi;
  xi_e.segment<3>(sim::first_moment_index(0)).setZero();
  hw::MujocoRobot robot = hw::MujocoRobot::build(m, l);
  std::mt19937 rng(33);
  double worst = 0, without = 0;
  for (int n = 0; n < 40; ++n) {
    const Vec6d chi = test::random_feasible_pose(m, rng), v = test::random_twist(rng),
                a = test::random_twist(rng, 3.0, 15.0);
    sim::Kinematics<double> k;
    ASSERT_TRUE(sim::compute_kinematics<double>(m, chi, v, k));
    Vec6d tau_g, tau_e;
    ASSERT_TRUE(sim::inverse_dynamics<double>(m, chi, v, a, xi, tau_g));
    ASSERT_TRUE(sim::inverse_dynamics<double>(m, chi, v, a, xi_e, tau_e));
    const Vec6d theirs = robot.inverse_dynamics(chi, v, a);
    worst = std::max(worst, (sim::actuator_torques<double>(k, tau_g) - theirs).norm() / theirs.norm());
    without = std::max(without, (sim::actuator_torques<double>(k, tau_e) - theirs).norm() / theirs.norm());
  }
  EXPECT_LE(worst, 1e-6);
  EXPECT_GT(without, 1e-3);
}

// Both engines through the same loop with the centre of mass off E: micrometres, as at E.
TEST(ModelCheck, MujocoFollowsOurModelWithThePlatformCentreOfMassOffE) {
  const sim::RobotModel& m = default_robot();
  const Vec6d home = m.home;
  auto motion = [&](double t) {
    hw::MotionSample s;
    s.chi = s.chi_dot = s.v = s.v_dot = Vec6d::Zero();
    s.chi = home;
    s.chi(1) += 0.01 * std::sin(2 * M_PI * t);
    s.chi(3) += 0.05 * std::sin(2 * M_PI * 0.7 * t);
    s.chi_dot(1) = s.v(1) = 0.01 * 2 * M_PI * std::cos(2 * M_PI * t);
    s.chi_dot(3) = 0.05 * 2 * M_PI * 0.7 * std::cos(2 * M_PI * 0.7 * t);
    s.v.tail<3>() = euler_rate_jacobian<double>(s.chi(3), s.chi(4)) * s.chi_dot.tail<3>();
    return s;
  };
  hw::ModelCheckOptions o;
  o.duration = 0.5;
  o.inverse_dynamics_samples = 3;
  const hw::ModelCheck c = hw::check_against_mujoco(m, with_com(test::default_priors(), Vec3d(3e-3, -3e-3, 2e-3)), motion, o);
  EXPECT_TRUE(c.pass);
  EXPECT_LT(c.max_error.head<3>().maxCoeff(), 5e-5);  // 0.05 mm
  EXPECT_LT(c.closure_max, 1e-5);
}

TEST(ModelCheck, MujocoFollowsOurModelThroughTheSameLoop) {
  // Both engines in servo's loop under the same discrete joint PID (feedforward IK of the
  // motion, camera at the controller rate): they stay within the targets of docs/model.md.
  const Vec6d home = default_robot().home;
  auto motion = [&](double t) {
    hw::MotionSample s;
    s.chi = s.chi_dot = s.v = s.v_dot = Vec6d::Zero();
    s.chi = home;
    s.chi(0) += 0.01 * std::sin(2 * M_PI * t);
    s.chi(5) += 0.05 * std::sin(2 * M_PI * 0.7 * t);
    s.chi_dot(0) = s.v(0) = 0.01 * 2 * M_PI * std::cos(2 * M_PI * t);
    s.chi_dot(5) = 0.05 * 2 * M_PI * 0.7 * std::cos(2 * M_PI * 0.7 * t);
    s.v.tail<3>() = euler_rate_jacobian<double>(s.chi(3), s.chi(4)) * s.chi_dot.tail<3>();
    return s;
  };
  hw::ModelCheckOptions o;
  o.duration = 1.0;
  o.inverse_dynamics_samples = 5;
  const hw::ModelCheck c = hw::check_against_mujoco(default_robot(), test::default_priors(), motion, o);
  EXPECT_TRUE(c.pass);
  EXPECT_LT(c.max_error.head<3>().maxCoeff(), 5e-5);  // 0.05 mm
  EXPECT_LT(c.closure_max, 1e-5);                     // 0.01 mm
  EXPECT_GT(c.max_error.head<3>().maxCoeff(), 0.0);   // two engines: never bit-equal
  EXPECT_EQ(c.engine_adjustments.size(), 12u);  // one of Ix, Iy per crank; the spin Iz per link
}

TEST(ModelCheck, AnInverseDynamicsSampleOutsideTheWorkspaceIsAnErrorNotANumber) {
  // The loop sees the motion only at whole milliseconds; the inverse-dynamics samples fall
  // between them. A motion that leaves the workspace only there must stop the check with a
  // message (its kinematics used to be computed and ignored, and garbage compared).
  const Vec6d home = default_robot().home;
  auto motion = [&](double t) {
    hw::MotionSample s;
    s.chi = home;
    s.chi_dot = s.v = s.v_dot = Vec6d::Zero();
    if (std::abs(t * 1e3 - std::round(t * 1e3)) > 1e-6) s.chi(2) += 1.0;  // a metre up: no leg closes
    return s;
  };
  hw::ModelCheckOptions o;
  o.duration = 0.01;
  o.inverse_dynamics_samples = 3;  // t = 1.67, 5, 8.33 ms
  try {
    hw::check_against_mujoco(default_robot(), test::default_priors(), motion, o);
    FAIL() << "expected a vcloe::Error";
  } catch (const vcloe::Error& e) {
    EXPECT_NE(std::string(e.what()).find("leaves the workspace at t = 0.001667"), std::string::npos) << e.what();
  }
}

TEST(ModelCheck, OptionsAreCheckedBeforeAnyWork) {
  hw::ModelCheckOptions o;
  o.timestep = 0.3e-3;  // does not divide 1 ms
  EXPECT_THROW(o.validate(), vcloe::Error);
  o = {};
  o.duration = -1;
  EXPECT_THROW(o.validate(), vcloe::Error);
  o = {};
  o.timestep = 1e-12;  // divides 1 ms, but 10^9 steps per period; was refused later naming no option
  EXPECT_THROW(o.validate(), vcloe::Error);
}
