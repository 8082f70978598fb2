// Specification of hw/mujoco_model: an independent MuJoCo model of the same robot closes its
// loops, reproduces our rigid inverse dynamics (mj_rne plus the connect constraint Jacobians),
// and follows the same PID-held motion.
#include <gtest/gtest.h>

#include "../sim/sim_fixtures.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/hw/mujoco_model.hpp"
#include "vcloe/servo/controllers.hpp"
#include "vcloe/sim/plant.hpp"

using namespace vcloe;
using vcloe::test::default_robot;

namespace {
sim::RobotModel consistent_robot(std::vector<std::string>* notes = nullptr) {
  std::vector<std::string> adjustments;
  sim::RobotModel m = hw::engine_consistent(default_robot(), adjustments);
  if (notes) *notes = adjustments;
  return m;
}
}  // namespace

TEST(EngineConsistency, AdjustsOnlyTheInvisibleMomentsOfTable1) {
  std::vector<std::string> notes;
  const sim::RobotModel m = consistent_robot(&notes);
  EXPECT_EQ(notes.size(), 18u);  // wrench Ix, Iy and link Iz of six legs
  EXPECT_TRUE(sim::check_physical_consistency(m.lambda).empty());
  for (int k : {sim::platform_index(0), sim::platform_index(3), sim::wrench_index(2, 3), sim::link_index(4, 1)})
    EXPECT_EQ(m.lambda(k), default_robot().lambda(k));
  sim::RobotModel bad = default_robot();
  bad.lambda(sim::platform_index(0)) = -1;
  EXPECT_THROW(hw::engine_consistent(bad, notes), vcloe::Error);
  EXPECT_THROW(hw::MujocoRobot::build(default_robot()), vcloe::Error);  // Table 1 as is
}

TEST(MujocoModel, LoadsClosedAtHomeAndRoundTripsState) {
  hw::MujocoRobot robot = hw::MujocoRobot::build(consistent_robot());
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
  const sim::RobotModel m = consistent_robot();
  sim::XiVector<double> xi = m.xi();
  for (int i = 0; i < sim::kLegs; ++i) xi(sim::coulomb_index(i)) = xi(sim::viscous_index(i)) = 0;  // rigid only
  hw::MujocoRobot robot = hw::MujocoRobot::build(m);
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

TEST(MujocoModel, FollowsOurModelUnderTheSameJointPid) {
  const sim::RobotModel m = consistent_robot();
  sim::XiVector<double> xi = m.xi();
  for (int i = 0; i < sim::kLegs; ++i) xi(sim::coulomb_index(i)) = xi(sim::viscous_index(i)) = 0;  // MuJoCo: none
  hw::MujocoRobot robot = hw::MujocoRobot::build(m);
  const servo::JointPidGains<double> g{m.lambda(sim::kGainP), m.lambda(sim::kGainI), m.lambda(sim::kGainD)};
  servo::InnerPid<double> pid_ours, pid_mj;
  sim::PlantState<double> x = sim::make_state<double>(m.home, Vec6d::Zero());
  const int sub = static_cast<int>(std::lround(1e-3 / robot.timestep()));
  double worst = 0, worst_closure = 0;
  for (int tick = 0; tick < 1000; ++tick) {
    Vec6d target = m.home;
    target(0) += 0.01 * std::sin(2 * M_PI * tick * 1e-3);
    target(5) += 0.05 * std::sin(2 * M_PI * 0.7 * tick * 1e-3);
    Vec6d U, theta;
    ASSERT_TRUE(sim::inverse_kinematics<double>(m, target, U));
    ASSERT_TRUE(sim::inverse_kinematics<double>(m, Vec6d(x.head<6>()), theta));
    const Vec6d tau = pid_ours.update(g, U, theta, 1e-3);
    const Vec6d tau_mj = pid_mj.update(g, U, robot.joint_angles(), 1e-3);
    ASSERT_TRUE(sim::integrate_held<double>(m, xi, tau, robot.timestep(), sub, x));
    ASSERT_TRUE(robot.step(tau_mj, sub));
    worst = std::max(worst, (robot.platform_pose() - x.head<6>()).head<3>().norm());
    worst_closure = std::max(worst_closure, robot.closure_error());
  }
  EXPECT_LT(worst, 5e-5);  // 0.05 mm
  EXPECT_LT(worst_closure, 1e-5);  // 0.01 mm
}
