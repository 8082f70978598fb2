#include "vcloe/hw/virtual_robot.hpp"

#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/sim/dynamics.hpp"

namespace vcloe::hw {

namespace {
sim::RobotModel consistent(const sim::RobotModel& truth, std::vector<std::string>& adjustments) {
  return engine_consistent(truth, adjustments);
}
}  // namespace

VirtualRobot::VirtualRobot(const sim::RobotModel& truth, const Vec6d& start_pose, const VirtualRobotOptions& o)
    : truth_(consistent(truth, adjustments_)),
      options_(o),
      engine_(MujocoRobot::build(truth_, start_pose, o.engine)),
      rng_(o.seed) {
  envelope_ = truth_;
  envelope_.joint_limit += o.joint_range_margin;
  envelope_.min_transmission *= 0.5;
  envelope_.min_parallel_conditioning *= 0.5;
  const double Tc = 1.0 / o.controller_hz;
  substeps_ = static_cast<int>(std::lround(Tc / o.engine.timestep));
  if (substeps_ < 1 || std::abs(substeps_ * o.engine.timestep - Tc) > 1e-12)
    fail("virtual robot", "the engine timestep must divide the controller period");
  for (int c = 0; c < 6; ++c)
    if (!(o.noise_sigma(c) >= 0)) fail("virtual robot", "noise sigma must be non-negative");
  // The robot has been standing at the start pose with its drives enabled: their integrals
  // hold it against gravity (the truth's holding torques, computed with the analytic model of
  // the truth; MuJoCo's equilibrium differs from it by the engines' difference only).
  Vec6d tau_hold;
  if (!sim::holding_torques<double>(truth_, start_pose, truth_.xi(), tau_hold))
    fail("virtual robot", "the start pose is not reachable by the truth's kinematics");
  const double li = truth_.lambda(sim::kGainI);
  if (li != 0) integral_ = tau_hold / li;
}

bool VirtualRobot::step(const Vec6d& U) {
  const double Tc = 1.0 / options_.controller_hz;
  const Vec6d theta = engine_.joint_angles();  // encoders
  // The drives' firmware: eq. (31) with backward differences, hidden gains of the truth file.
  const Vec6d e = U - theta;
  integral_ += e * Tc;
  Vec6d e_dot = Vec6d::Zero();
  if (has_previous_) e_dot = ((U - previous_command_) - (theta - previous_theta_)) / Tc;
  previous_command_ = U;
  previous_theta_ = theta;
  has_previous_ = true;
  const Vec6d tau = truth_.lambda(sim::kGainP) * e + truth_.lambda(sim::kGainI) * integral_ +
                    truth_.lambda(sim::kGainD) * e_dot;
  // Joint friction (eq. 24 law with the truth coefficients), re-evaluated every engine step.
  for (int n = 0; n < substeps_; ++n) {
    const Vec6d qd = engine_.joint_velocities();
    Vec6d friction;
    for (int i = 0; i < sim::kLegs; ++i)
      friction(i) = truth_.lambda(sim::coulomb_index(i)) * std::tanh(qd(i) / truth_.friction_epsilon) +
                    truth_.lambda(sim::viscous_index(i)) * qd(i);
    if (!engine_.step(tau - friction, 1)) {
      failure_ = "the engine rejected the state (non-finite or diverging accelerations)";
      return false;
    }
  }
  return within_envelope();
}

// The safety stop of a real controller: the platform must stay in the working assembly mode,
// inside the joint range (plus a margin) and away from singularities (half the margins the
// references are planned with), and the loops closed; otherwise the run ends here instead of
// recording a collapsed robot.
bool VirtualRobot::within_envelope() {
  const Vec6d theta = engine_.joint_angles();
  const sim::PoseCheck c = sim::check_pose(envelope_, engine_.platform_pose());
  if (!c.ok()) {
    failure_ = "safety stop: " + c.describe();
    return false;
  }
  for (int i = 0; i < sim::kLegs; ++i)
    if (std::abs(c.theta(i) - theta(i)) > 0.05) {
      failure_ = "safety stop: leg " + std::to_string(i + 1) + " left the working assembly mode";
      return false;
    }
  const double closure = engine_.closure_error();
  if (!(closure <= options_.max_closure_error)) {
    failure_ = "safety stop: loop-closure error " + std::to_string(closure * 1e3) + " mm (the legs came apart)";
    return false;
  }
  return true;
}

Vec6d VirtualRobot::measure(const Vec6d& true_pose) {
  if (options_.camera) return options_.camera(true_pose);
  Vec6d m = true_pose;
  for (int c = 0; c < 6; ++c)
    if (options_.noise_sigma(c) > 0) m(c) += std::normal_distribution<double>(0.0, options_.noise_sigma(c))(rng_);
  return m;
}

}  // namespace vcloe::hw
