#include "vcloe/hw/virtual_robot.hpp"

#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/sim/dynamics.hpp"
#include "vcloe/sim/kinematics.hpp"
#include "vcloe/sim/safety.hpp"

namespace vcloe::hw {

namespace {

// Backlash: the motor-side encoder leads the crank by half the play in the torque's direction.
Vec6d play(const VirtualRobotOptions& o, const Vec6d& tau) {
  Vec6d p = Vec6d::Zero();
  if (o.backlash > 0)
    for (int i = 0; i < sim::kLegs; ++i) p(i) = 0.5 * o.backlash * std::tanh(tau(i) / o.backlash_torque);
  return p;
}

}  // namespace

Vec6d standing_pose(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda, const Vec6d& start_pose,
                    const VirtualRobotOptions& o) {
  if (!o.start_command) return start_pose;
  const sim::XiVector<double> xi(lambda.head<sim::kNumXi>());
  Vec6d chi = start_pose;
  for (int pass = 0; pass < 2; ++pass) {  // the second: the flank of the backlash at the pose found
    Vec6d tau_hold = Vec6d::Zero();
    if (!sim::holding_torques<double>(model, chi, xi, tau_hold))
      fail("virtual robot", "the start pose is not reachable by the truth's kinematics");
    // The encoders read the crank angle + offset + half the play: the drives hold the command there.
    // FK from the start pose, else from the home pose (the assembly mode robot serve's and rig
    // run's --stand-at check and `kinematics --theta` look in): a command far from the start
    // pose is not refused for Newton's start alone (probe 19's E).
    const Vec6d encoders = *o.start_command - play(o, tau_hold);
    if (!sim::pose_at_encoders(model, encoders, chi) && !sim::pose_at_encoders(model, encoders, chi = model.home))
      fail("virtual robot", "no pose of the truth's kinematics near the start or the home pose has the start command "
                            "(--stand-at) at its encoders");
  }
  return chi;
}

VirtualRobot::VirtualRobot(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                           const Vec6d& start_pose, const VirtualRobotOptions& o)
    : model_(model),
      truth_(engine_consistent(model, lambda, adjustments_)),
      options_(o),
      standing_(standing_pose(model, truth_, start_pose, o)),
      engine_(MujocoRobot::build(model, truth_, standing_, o.engine)) {
  envelope_ = sim::safety_envelope(model, o.joint_range_margin);
  const double Tc = 1.0 / o.controller_hz;
  substeps_ = static_cast<int>(std::lround(Tc / o.engine.timestep));
  if (substeps_ < 1 || std::abs(substeps_ * o.engine.timestep - Tc) > 1e-12)
    fail("virtual robot", "the engine timestep must divide the controller period");
  start_holding(standing_);
}

// The robot has been standing at the start pose with its drives enabled: their integrals hold
// it against gravity (the truth's holding torques, computed with the analytic model of the
// truth; MuJoCo's equilibrium differs from it by the engines' difference only).
void VirtualRobot::start_holding(const Vec6d& pose) {
  Vec6d tau_hold;
  if (!sim::holding_torques<double>(model_, pose, sim::XiVector<double>(truth_.head<sim::kNumXi>()), tau_hold))
    fail("virtual robot", "the start pose is not reachable by the truth's kinematics");
  const double li = truth_(sim::kGainI);
  if (li != 0 && options_.start_holding) integral_ = tau_hold / li;
  if (options_.start_holding) tau_ = tau_hold;
}

Vec6d VirtualRobot::encoders(const Vec6d& theta) const { return theta + sim::encoder_offsets(model_) + play(options_, tau_); }

bool VirtualRobot::step(const Vec6d& U) {
  const double Tc = 1.0 / options_.controller_hz;
  const Vec6d theta = encoders(engine_.joint_angles());
  // The drives' firmware: eq. (31) with backward differences, hidden gains of the truth file.
  const Vec6d e = U - theta;
  integral_ += e * Tc;
  Vec6d e_dot = Vec6d::Zero();
  if (has_previous_) e_dot = ((U - previous_command_) - (theta - previous_theta_)) / Tc;
  previous_command_ = U;
  previous_theta_ = theta;
  has_previous_ = true;
  const Vec6d tau = truth_(sim::kGainP) * e + truth_(sim::kGainI) * integral_ + truth_(sim::kGainD) * e_dot;
  tau_ = tau;
  // Joint friction (eq. 24 law with the truth coefficients), re-evaluated every engine step.
  for (int n = 0; n < substeps_; ++n) {
    Vec6d friction = Vec6d::Zero();
    if (options_.joint_friction) {
      const Vec6d qd = engine_.joint_velocities();
      for (int i = 0; i < sim::kLegs; ++i)
        friction(i) = truth_(sim::coulomb_index(i)) * std::tanh(qd(i) / model_.friction_epsilon) +
                      truth_(sim::viscous_index(i)) * qd(i);
    }
    if (!engine_.step(options_.joint_friction ? Vec6d(tau - friction) : tau, 1)) {
      failure_ = "the engine rejected the state (non-finite or diverging accelerations)";
      return false;
    }
  }
  return !options_.safety_stop || within_envelope();
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

}  // namespace vcloe::hw
