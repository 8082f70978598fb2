// Specification of control/predict: the drive torques and joint forces a motion needs, from the
// model's inverse dynamics — linear in Xi through the regressor, the legs' forces balancing the
// platform, equal to MuJoCo's own (torques and the loop-closure constraint forces), and to the
// torques the virtual robot's drives really produced along its motion.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "../sim/sim_fixtures.hpp"
#include "control_fixtures.hpp"
#include "vcloe/control/predict.hpp"
#include "vcloe/hw/mujoco_model.hpp"

using namespace vcloe;

namespace {

control::MotionSample random_motion_sample(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  control::MotionSample s;
  s.chi = test::random_feasible_pose(control_test::priors().model, rng);
  s.v = test::random_twist(rng);
  for (int c = 0; c < 6; ++c) s.v_dot(c) = (c < 3 ? 3.0 : 15.0) * u(rng);
  return s;
}

// The virtual robot's mean motion over tick k (midpoint state, mean acceleration).
control::MotionSample tick_motion(const control_test::TickLog& log, std::size_t k, double Tc) {
  control::MotionSample s;
  s.chi = 0.5 * (log.pose[k] + log.pose[k + 1]);
  s.v = 0.5 * (log.twist[k] + log.twist[k + 1]);
  s.v_dot = (log.twist[k + 1] - log.twist[k]) / Tc;
  return s;
}

}  // namespace

TEST(Predict, LoadIsLinearInXiWithTheRegressorsJacobian) {
  // Two paths: the loads from M, C v, G and friction at Xi, and A Xi with A's torque rows from the
  // regressor Gamma (eq. 25) and its force rows from unit parameters.
  std::mt19937 rng(11);
  const sim::RobotModel& m = control_test::priors().model;
  for (int n = 0; n < 20; ++n) {
    const control::MotionSample s = random_motion_sample(rng);
    sim::XiVector<double> xi = control_test::truth().lambda.head<sim::kNumXi>();
    if (n % 2) xi = xi.cwiseProduct(sim::XiVector<double>::Random().cwiseAbs() + sim::XiVector<double>::Constant(0.5));
    control::LoadVector load;
    control::LoadJacobian A;
    ASSERT_TRUE(control::drive_load(m, s, xi, load));
    ASSERT_TRUE(control::drive_load_jacobian(m, s, A));
    EXPECT_LT(test::rel_err(Vec6d(A.topRows<6>() * xi), Vec6d(load.head<6>())), 1e-10) << n;
    EXPECT_LT(test::rel_err(control::LoadVector(A * xi), load), 1e-10) << n;
  }
}

TEST(Predict, TheLegsForcesOnThePlatformAreItsOwnWrench) {
  // sum_i [f_A,i; (R a_i) x f_A,i] = [m (a - g); I w_dot + w x I w]: the leg forces come from
  // virtual work on each leg alone, the platform's wrench from its own Newton-Euler equations.
  std::mt19937 rng(12);
  const sim::RobotModel& m = control_test::priors().model;
  const sim::XiVector<double> xi = control_test::truth().lambda.head<sim::kNumXi>();
  for (int n = 0; n < 20; ++n) {
    const control::MotionSample s = random_motion_sample(rng);
    control::LoadVector load;
    ASSERT_TRUE(control::drive_load(m, s, xi, load));
    sim::Kinematics<double> k;
    ASSERT_TRUE(sim::compute_kinematics<double>(m, s.chi, s.v, k));
    Vec6d sum = Vec6d::Zero();
    for (int i = 0; i < sim::kLegs; ++i) {
      const Vec3d f = load.segment<3>(control::force_row(i, 2, 0));
      sum.head<3>() += f;
      sum.tail<3>() += k.geometry[i].a.cross(f);
    }
    EXPECT_LT(test::rel_err(sum, control::platform_wrench(m, s, xi)), 1e-9) << n;
  }
}

TEST(Predict, TorquesAndPlatformJointForcesAreMuJoCosOwn) {
  // MuJoCo (an independent engine, hw/mujoco_model) solves M qacc + c = B tau + J_c^T lambda for
  // the drive torques and the `connect` multipliers at A_i. Friction is not in that rigid model.
  std::mt19937 rng(13);
  const sim::RobotFile& t = control_test::truth();
  std::vector<std::string> adjusted;
  const sim::LambdaVector<double> lambda = hw::engine_consistent(t.model, t.lambda, adjusted);
  hw::MujocoRobot engine = hw::MujocoRobot::build(t.model, lambda);
  sim::XiVector<double> xi = lambda.head<sim::kNumXi>();
  for (int i = 0; i < sim::kLegs; ++i) xi(sim::coulomb_index(i)) = xi(sim::viscous_index(i)) = 0;
  double worst_tau = 0, worst_force = 0;
  for (int n = 0; n < 20; ++n) {
    const control::MotionSample s = random_motion_sample(rng);
    Eigen::Matrix<double, 3, 6> f_mujoco;
    const Vec6d tau_mujoco = engine.inverse_dynamics(s.chi, s.v, s.v_dot, nullptr, &f_mujoco);
    control::LoadVector load;
    ASSERT_TRUE(control::drive_load(t.model, s, xi, load));
    worst_tau = std::max(worst_tau, test::rel_err(Vec6d(load.head<6>()), tau_mujoco));
    for (int i = 0; i < sim::kLegs; ++i)
      worst_force = std::max(worst_force, test::rel_err(Vec3d(load.segment<3>(control::force_row(i, 2, 0))),
                                                        Vec3d(f_mujoco.col(i)), 1.0));
  }
  std::printf("against MuJoCo's inverse dynamics: torques %.2e, platform joint forces %.2e (relative)\n", worst_tau,
              worst_force);
  EXPECT_LT(worst_tau, 1e-6);
  EXPECT_LT(worst_force, 1e-6);
}

TEST(Predict, TheTrueModelPredictsTheVirtualRobotsDriveTorques) {
  // Along the motion the virtual robot really made (MuJoCo, its drives' firmware, friction), the
  // torques its drives held over each tick against the truth's prediction at the tick's mean
  // motion; the priors' error beside it.
  const servo::LoopTiming timing;
  const excitation::FourierTrajectory tr = control_test::random_reference(3, 4.0);
  const servo::PreparedReference ref = servo::prepare_reference(control_test::priors().model, timing, tr);
  const control_test::VirtualRunResult run =
      control_test::run_on_virtual_robot(ref, control_test::truth(), servo::OuterGains{}, nullptr);
  ASSERT_TRUE(run.loop.ok) << run.loop.failure;
  auto relative_rms = [&](const sim::LambdaVector<double>& lambda) {
    double err = 0, sum = 0;
    for (std::size_t k = 0; k < run.log.torque.size(); ++k) {
      control::LoadVector load;
      EXPECT_TRUE(control::drive_load(control_test::truth().model, tick_motion(run.log, k, timing.controller_period()),
                                      lambda.head<sim::kNumXi>(), load));
      err += (load.head<6>() - run.log.torque[k]).squaredNorm(), sum += run.log.torque[k].squaredNorm();
    }
    return std::sqrt(err / sum);
  };
  const double with_truth = relative_rms(control_test::truth().lambda);
  const double with_priors = relative_rms(control_test::priors().lambda);
  std::printf("drive torques along the virtual robot's motion, RMS error / RMS torque: truth %.4f, priors %.4f\n",
              with_truth, with_priors);
  EXPECT_LT(with_truth, 0.01);
  EXPECT_GT(with_priors, 3 * with_truth);
}

TEST(Predict, TheSigmaBandIsTheSpreadOfTheLoadOverXi) {
  // Xi drawn from a Gaussian with covariance Sigma: the spread of the load over the draws is the
  // band predict() gives (exact for a load linear in Xi, up to the draws' own scatter).
  const sim::RobotModel& m = control_test::priors().model;
  const sim::XiVector<double> xi = control_test::truth().lambda.head<sim::kNumXi>();
  std::mt19937 rng(14);
  control::SampledMotion motion;
  motion.period = 1;
  motion.samples = {random_motion_sample(rng)};
  const sim::XiVector<double> sigma = 0.1 * xi.cwiseAbs();
  const control::XiCovariance cov = sigma.cwiseProduct(sigma).asDiagonal();
  const control::Prediction p = control::predict(m, xi, motion, &cov);
  ASSERT_EQ(p.sigma.size(), 1u);
  std::normal_distribution<double> g(0.0, 1.0);
  control::LoadVector mean = control::LoadVector::Zero(), square = control::LoadVector::Zero();
  const int draws = 4000;
  for (int n = 0; n < draws; ++n) {
    sim::XiVector<double> x = xi;
    for (int i = 0; i < sim::kNumXi; ++i) x(i) += sigma(i) * g(rng);
    control::LoadVector load;
    ASSERT_TRUE(control::drive_load(m, motion.samples[0], x, load));
    mean += load / draws, square += load.cwiseProduct(load) / draws;
  }
  const control::LoadVector spread = (square - mean.cwiseProduct(mean)).cwiseMax(0.0).cwiseSqrt();
  for (int r = 0; r < control::kLoadSize; ++r)
    EXPECT_NEAR(spread(r), p.sigma[0](r), 0.06 * p.sigma[0](r) + 1e-9) << "row " << r;
}
