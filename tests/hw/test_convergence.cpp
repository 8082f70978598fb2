// Specification of the engines' converged steps (docs/virtual-robot.md, "Convergence of the two
// engines"; not yet the defaults, for their cost): the twin at servo::kConvergedSubsteps RK4
// substeps and the virtual robot at hw::kConvergedMujocoTimestep are converged — the twin agrees with itself at a quarter of its step, the robot with
// itself at half of it, to under 0.7 x the camera noise (measured - twin <= 1.3 x noise needs
// <= 0.83 noise-free) — on a robot with the family's stiffest friction (3x the priors' Coulomb
// and viscous coefficients, epsilon 0.01 rad/s). The start, at rest, is the stiffest part (the
// smooth Coulomb law is a damping of fc/epsilon there), so a short record of the default
// excitation tests it cheaply. Measured: twin x4 vs x16 0.61, MuJoCo 0.05 vs 0.025 ms 0.57; the
// old defaults x1 vs x4 2.14, 0.25 vs 0.125 ms 2.94 (red).
#include <gtest/gtest.h>

#include <cstdio>

#include "vcloe/core/defaults.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/hw/virtual_robot.hpp"
#include "vcloe/servo/twin.hpp"

using namespace vcloe;

namespace convergence_test {

// The excitation the step study was measured on (docs/virtual-robot.md), the default before excite
// checked the twin's motion, kept in tests/data. The twin's RK4 x4 vs x16 at friction 3x the
// priors depends on the excitation: 0.61 x the camera noise here, 0.89 (> 0.7) on the first default
// excite wrote with the twin check, 0.38 on the current config/excitation-default.yaml; the study
// is not redone on either (docs/virtual-robot.md, "Convergence of the two engines").
constexpr const char* kStudiedExcitation = "/tests/data/excitation-reference-only.yaml";
constexpr double kRecord = 2.0;  // s of kStudiedExcitation
constexpr double kFriction = 3.0;  // the family's upper bound (hw::TruthFamily friction_high)

sim::RobotFile stiff_friction_truth() {
  const sim::RobotFile priors = sim::load_robot(std::string(VCLOE_SOURCE_DIR) + "/config/robot.yaml");
  sim::RobotFile t = sim::load_robot(std::string(VCLOE_SOURCE_DIR) + "/config/truth.yaml");
  for (int i = 0; i < sim::kLegs; ++i) {
    t.lambda(sim::coulomb_index(i)) = kFriction * priors.lambda(sim::coulomb_index(i));
    t.lambda(sim::viscous_index(i)) = kFriction * priors.lambda(sim::viscous_index(i));
  }
  return t;
}

servo::PreparedReference short_reference(const sim::RobotModel& model, const servo::LoopTiming& timing) {
  excitation::FourierTrajectory tr =
      excitation::load_trajectory(std::string(VCLOE_SOURCE_DIR) + kStudiedExcitation);
  tr.duration = kRecord;
  return servo::prepare_reference(model, timing, tr);
}

// Largest RMS over the six channels of a - b, as a multiple of the default camera noise.
double rms_over_noise(const std::vector<Vec6d>& a, const std::vector<Vec6d>& b) {
  EXPECT_EQ(a.size(), b.size());
  Vec6d s = Vec6d::Zero();
  for (std::size_t j = 0; j < a.size() && j < b.size(); ++j) s += (a[j] - b[j]).cwiseAbs2();
  const Vec6d r = (s / double(std::max<std::size_t>(1, a.size()))).cwiseSqrt();
  return r.cwiseQuotient(defaults::camera_noise_sigma()).maxCoeff();
}

std::vector<Vec6d> twin_poses(const sim::RobotFile& t, int substeps) {
  servo::LoopTiming timing;
  timing.substeps = substeps;
  const servo::PreparedReference ref = short_reference(t.model, timing);
  const auto r = servo::simulate_twin<double>(t.model, t.lambda, ref, servo::OuterGains{});
  EXPECT_TRUE(r.ok) << "substeps " << substeps << ": " << r.failure;
  return r.true_pose;
}

}  // namespace convergence_test

TEST(TwinConvergence, ConvergedSubstepsResolveStiffFriction) {
  using namespace convergence_test;
  const sim::RobotFile t = stiff_friction_truth();
  const int n = servo::kConvergedSubsteps;
  const double ratio = rms_over_noise(twin_poses(t, n), twin_poses(t, 4 * n));
  std::printf("twin, friction 3x priors, %g s: RK4 x%d vs x%d: %.4f x camera noise\n", kRecord, n, 4 * n, ratio);
  EXPECT_LT(ratio, 0.7);  // measured - twin <= 1.3 x noise needs <= 0.83 noise-free
}

namespace convergence_test {

std::vector<Vec6d> robot_poses(const sim::RobotFile& t, double timestep, double record) {
  hw::VirtualRobotOptions o;
  o.engine.timestep = timestep;
  excitation::FourierTrajectory tr =
      excitation::load_trajectory(std::string(VCLOE_SOURCE_DIR) + kStudiedExcitation);
  tr.duration = record;
  const servo::PreparedReference ref = servo::prepare_reference(t.model, servo::LoopTiming{}, tr);
  hw::VirtualRobot robot(t.model, t.lambda, ref.start_pose, o);
  servo::VisualServo<double> outer(ref, servo::OuterGains{});
  servo::ExactPose camera;
  const auto r = servo::run_loop<double>(robot, outer, camera);
  EXPECT_TRUE(r.ok) << "timestep " << timestep << ": " << r.failure;
  return r.true_pose;
}

}  // namespace convergence_test

TEST(VirtualRobotConvergence, ConvergedTimestepResolvesStiffFriction) {
  // MuJoCo at the converged step against half of it (a quarter would cost 8x the run).
  using namespace convergence_test;
  const sim::RobotFile t = stiff_friction_truth();
  const double h = hw::kConvergedMujocoTimestep, record = 1.0;
  const double ratio = rms_over_noise(robot_poses(t, h, record), robot_poses(t, h / 2, record));
  std::printf("virtual robot, friction 3x priors, %g s: MuJoCo %g ms vs %g ms: %.4f x camera noise\n", record,
              h * 1e3, h * 0.5e3, ratio);
  EXPECT_LT(ratio, 0.7);  // measured - twin <= 1.3 x noise needs <= 0.83 noise-free
}
