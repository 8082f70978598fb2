// Nonlinear pre-correction through the inverse of the drives' law (precorrect.hpp).
#include "vcloe/control/precorrect.hpp"

#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/sim/dynamics.hpp"
#include "vcloe/sim/kinematics.hpp"

namespace vcloe::control {

void check_drives_invertible(const servo::DriveGains<double>& g, double controller_period, const std::string& where) {
  if (!(controller_period > 0) || !(g.lp + g.li * controller_period > 0) || !(g.ld >= 0))
    fail(where, "the drives' law has no inverse for gains lp " + exact_number(g.lp) + ", li " + exact_number(g.li) +
                    ", ld " + exact_number(g.ld) + " (lp + li Tc must be positive, ld non-negative; Tc = " +
                    exact_number(controller_period) + " s)");
}

InverseDrives::InverseDrives(const servo::DriveGains<double>& gains, double controller_period, const Vec6d& tau_hold)
    : g_(gains), dt_(controller_period) {
  check_drives_invertible(g_, dt_, "pre-correction");
  if (g_.li != 0) integral_ = tau_hold / g_.li;  // as servo::InnerPid::start_holding
}

Vec6d InverseDrives::command(const Vec6d& tau, const Vec6d& theta) {
  // eq. (31) solved for e_k; the first update has no derivative term (InnerPid: no previous sample).
  const double d = has_previous_ ? g_.ld / dt_ : 0.0;
  const Vec6d e = (tau - g_.li * integral_ + d * previous_error_) / (g_.lp + g_.li * dt_ + d);
  integral_ += e * dt_;
  previous_error_ = e;
  has_previous_ = true;
  return theta + e;
}

namespace {

Vec6d torque_at(const sim::RobotModel& model, const sim::XiVector<double>& xi, const Motion& motion, double t) {
  LoadVector load;
  if (!drive_load(model, platform_motion(model, motion.sample(t)), xi, load))
    fail("pre-correction", "the reference's pose at t = " + exact_number(t) + " s is not reachable");
  return load.head<6>();
}

// The encoders with the model's marker frame on the reference (E's crank angles without one).
Vec6d joint_angles_at(const sim::RobotModel& model, const Motion& motion, double t) {
  Vec6d theta;
  if (!sim::encoders_at_marker(model, motion.sample(t).chi, theta))
    fail("pre-correction", "the reference's pose at t = " + exact_number(t) + " s is not reachable");
  return theta;
}

}  // namespace

PreCorrection precorrect(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                         const servo::TickClock& clock, const Motion& motion) {
  const sim::XiVector<double> xi = lambda.head<sim::kNumXi>();
  const double Tc = clock.timing.controller_period();
  Vec6d tau_hold;
  if (!sim::holding_torques<double>(model, sim::platform_pose_of_marker(model, motion.sample(0.0).chi), xi, tau_hold))
    fail("pre-correction", "the reference's start pose is not reachable");
  InverseDrives inverse(servo::drive_gains<double>(lambda), Tc, tau_hold);
  PreCorrection out;
  out.period = Tc;
  const auto n = static_cast<std::size_t>(std::max(clock.total_ticks, 0));
  out.command.reserve(n);
  out.theta.reserve(n);
  out.torque.reserve(n);
  Vec6d tau_start = torque_at(model, xi, motion, 0.0);
  for (std::size_t k = 0; k < n; ++k) {
    const double t = clock.time(static_cast<int>(k));
    // The torque held over [t, t + Tc]: its mean by Simpson's rule (the motion needs it on average).
    const Vec6d tau_mid = torque_at(model, xi, motion, t + 0.5 * Tc), tau_end = torque_at(model, xi, motion, t + Tc);
    const Vec6d tau = (tau_start + 4.0 * tau_mid + tau_end) / 6.0;
    tau_start = tau_end;
    out.theta.push_back(joint_angles_at(model, motion, t));
    out.torque.push_back(tau);
    out.command.push_back(inverse.command(tau, out.theta.back()));
  }
  return out;
}

Vec6d start_step(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda, const servo::TickClock& clock,
                 const Motion& motion) {
  servo::TickClock first = clock;
  first.total_ticks = std::min(clock.total_ticks, 1);
  const PreCorrection pc = precorrect(model, lambda, first, motion);
  return pc.command.empty() ? Vec6d::Zero() : Vec6d(pc.command.front() - pc.theta.front());
}

namespace {

// A robot that is always exactly on the reference: at each exposure its pose is chi_d(t_j).
class ReferenceFollower {
 public:
  explicit ReferenceFollower(const servo::PreparedReference& r) : ref_(r), pose_(r.start_pose) {}
  Vec6d pose() const {
    const int j = ref_.clock.exposed_at(tick_);
    return j >= 0 ? ref_.reference_at_exposure[static_cast<std::size_t>(j)] : pose_;
  }
  bool step(const Vec6d& U) {
    pose_ = pose();
    commands.push_back(U);
    ++tick_;
    return true;
  }
  const std::string& failure() const { return none_; }
  std::vector<Vec6d> commands;

 private:
  const servo::PreparedReference& ref_;
  Vec6d pose_;
  int tick_ = 0;
  std::string none_;
};

}  // namespace

std::vector<Vec6d> ideal_commands(const servo::PreparedReference& reference, const servo::OuterGains& gains) {
  ReferenceFollower robot(reference);
  servo::VisualServo<double> outer(reference, gains);
  servo::ExactPose camera;
  const servo::LoopResult<double> r = servo::run_loop<double>(robot, outer, camera);
  if (!r.ok) fail("pre-correction", r.failure);
  return std::move(robot.commands);
}

std::vector<Vec6d> correction_of(const servo::PreparedReference& reference, const servo::OuterGains& gains,
                                 const std::vector<Vec6d>& command) {
  const std::vector<Vec6d> ideal = ideal_commands(reference, gains);
  if (command.size() < ideal.size())
    fail("pre-correction", "the command has " + std::to_string(command.size()) + " ticks, the reference " +
                               std::to_string(ideal.size()));
  std::vector<Vec6d> out(ideal.size());
  for (std::size_t k = 0; k < ideal.size(); ++k) out[k] = command[k] - ideal[k];
  return out;
}

}  // namespace vcloe::control
