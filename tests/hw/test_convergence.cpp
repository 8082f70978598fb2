// Specification of the engines' default steps (docs/virtual-robot.md, "Convergence of the two
// engines"): the twin at its default RK4 substeps and the virtual robot at its default MuJoCo
// timestep are converged — each agrees with itself at a quarter of its step to a small fraction
// of the camera noise — on a robot with stiff friction (10x the priors' Coulomb and viscous
// coefficients, epsilon 0.01 rad/s), where a step too long makes the friction law chatter or
// diverge. A short record of the default excitation keeps this cheap.
#include <gtest/gtest.h>

#include <cstdio>

#include "vcloe/core/defaults.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/hw/virtual_robot.hpp"
#include "vcloe/servo/twin.hpp"

using namespace vcloe;

namespace convergence_test {

constexpr double kRecord = 2.0;  // s of config/excitation-default.yaml
constexpr double kFriction = 10.0;

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
      excitation::load_trajectory(std::string(VCLOE_SOURCE_DIR) + "/config/excitation-default.yaml");
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

TEST(TwinConvergence, DefaultSubstepsResolveStiffFriction) {
  using namespace convergence_test;
  const sim::RobotFile t = stiff_friction_truth();
  const int n = servo::LoopTiming{}.substeps;
  const double ratio = rms_over_noise(twin_poses(t, n), twin_poses(t, 4 * n));
  std::printf("twin, friction 10x priors, %g s: RK4 x%d vs x%d: %.4f x camera noise\n", kRecord, n, 4 * n, ratio);
  EXPECT_LT(ratio, 0.1);
}
