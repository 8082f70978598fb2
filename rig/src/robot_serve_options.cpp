// robot serve's options (rig/serve.hpp): their ranges, its endpoints, and a stand-at pose the
// virtual robot's truth can hold.
#include <algorithm>
#include <cmath>

#include "vcloe/core/defaults.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/oe_ident/plausible.hpp"
#include "vcloe/rig/common.hpp"
#include "vcloe/rig/roles.hpp"
#include "vcloe/rig/setup.hpp"
#include "vcloe/servo/corrected_robot.hpp"
#include "vcloe/rig/serve.hpp"
#include "vcloe/sim/kinematics.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::rig {

std::optional<SettingProblem> RobotServeOptions::problem() const {
  if (!(move_speed > 0 && std::isfinite(move_speed)))
    return SettingProblem{"--move-speed", "--move-speed: expected a positive speed (rad/s)"};
  if (stand_at && !stand_at->allFinite())
    return SettingProblem{"--stand-at", "--stand-at: expected six finite joint angles (rad)"};
  return std::nullopt;
}

void RobotServeOptions::validate(const std::string& where) const {
  throw_if(problem(), where);
  // The endpoints: an ipc path is looked at (lstat), so here and not in problem(), which stays pure.
  throw_if(endpoints_problem(endpoints, "cpks", "pk"), where);
}

bridge::SafetyLimits robot_safety_limits(const RobotServeOptions& o, const ExperimentSetup& s) {
  const double camera_period = s.experiment.timing.camera_period();
  bridge::SafetyLimits l = safety_limits(o.timeouts, parse_clock(o.clock), camera_period);
  l.max_invalid_in_row = o.max_invalid;
  l.max_command_speed = o.max_command_speed;
  l.joint_limit = s.model.joint_limit;
  l.validate("robot serve");  // keyed by the settings' names: the command line says them as its options
  const std::string joint = exact_number(l.joint_limit) + " rad, limits.joint of " + s.robot_file;
  if (!l.speed_problem(camera_period)) return l;
  if (o.max_command_speed != defaults::kMaxCommandSpeed)
    fail("--max-command-speed", "expected at most " + exact_number(l.joint_limit / camera_period) + " rad/s, got " +
                                    exact_number(o.max_command_speed) + ": one camera period (" +
                                    exact_number(camera_period) + " s, timing.camera_hz of " + s.experiment_file +
                                    ") at that speed reaches further than the joint limit (" + joint +
                                    "), and the rate limit would hold back nothing (docs/protocol.md, Safety)");
  fail(s.experiment_file + ": key 'timing.camera_hz'",
       "expected at least " + exact_number(std::ceil(o.max_command_speed / l.joint_limit * 100) / 100) +
           " Hz for the robot's rate limit, got " +
           exact_number(1 / camera_period) + ": one camera period at " + exact_number(o.max_command_speed) +
           " rad/s (robot serve's --max-command-speed) reaches further than the joint limit (" + joint +
           "), and the rate limit would hold back nothing (docs/protocol.md, Safety)");
}

// Everything robot serve reads and checks before it binds a socket: the options, every file (the
// setup, the pre-correction, the truth, the payload on it), the time options and the safety
// limits. serve_robot's first step and check_robot_serve's whole: one function, so that rig run's
// check before any role starts cannot miss a file the robot reads (docs/robustness.md, class M).
RobotPrepared prepare_robot(const RobotServeOptions& o) {
  o.validate();
  if (o.stand_at) throw_if(stand_at_problem(*o.stand_at, o.truth), "");
  ExperimentSetup s = load_setup(o.robot, o.experiment, o.reference);
  use_precorrection(s, o.precorrection);  // refused before any motion: another reference, rate or robot
  if (!o.precorrection.empty()) check_learnt_on(o.precorrection, o.truth, "the virtual robot robot serve drives (--truth)");
  if (o.stand_at) throw_if(move_to_start_problem(*o.stand_at, s, o.move_speed, o.max_command_speed, o.truth), "");
  sim::RobotFile truth = sim::load_robot(o.truth, true);
  if (const std::string why = oe_ident::implausible_for_robot(truth.lambda, o.truth, o.payload, "--payload-mass/--payload-inertia");
      !why.empty())
    throw Error(why);
  // Every time option in one place (the robot's handshake ends before its move: no move_s).
  throw_if(rig_times_problem(RigTimes{o.start_timeout, o.timeouts.pose, o.timeouts.heartbeat, std::nullopt,
                                      std::nullopt, o.hold},
                             s.experiment.timing.camera_period(), o.experiment),
           "");
  (void)robot_safety_limits(o, s);  // the monitor's, as RobotServer builds it
  return {std::move(s), std::move(truth)};
}

void check_robot_serve(const RobotServeOptions& o) { (void)prepare_robot(o); }

std::optional<SettingProblem> stand_at_problem(const Vec6d& stand_at, const std::string& truth_file) {
  const sim::RobotModel truth = sim::load_robot(truth_file, true).model;
  Vec6d chi = truth.home;
  const sim::PoseCheck c = sim::check_encoders(truth, stand_at, chi);  // kinematics --theta's check
  if (const std::string why = sim::joint_range_problem(truth, stand_at, c, truth_file + ", the virtual robot's truth");
      !why.empty())
    return SettingProblem{"--stand-at", "--stand-at: " + why};
  if (!chi.allFinite())
    return SettingProblem{"--stand-at", "--stand-at: no pose of " + truth_file +
                                            "'s kinematics near its home pose has these joint angles (forward "
                                            "kinematics did not converge; `vcloe kinematics --theta` says more)"};
  if (!c.ok())
    return SettingProblem{"--stand-at", "--stand-at: the pose at these joint angles is not one to stand at on " +
                                            truth_file + ": " + c.describe()};
  return std::nullopt;
}

std::optional<SettingProblem> move_to_start_problem(const Vec6d& stand_at, const ExperimentSetup& s, double move_speed,
                                                   double max_command_speed, const std::string& truth_file) {
  const Vec6d start_hold = servo::start_hold(s.reference);  // a pre-corrected run's first command
  const std::string why = StartRamp::problem(stand_at, start_hold, std::min(move_speed, max_command_speed),
                                             s.experiment.timing.controller_period());
  if (!why.empty())
    return SettingProblem{"--move-speed", "--move-speed: from --stand-at to the start of " + s.reference_file + ": " + why};
  const std::string path =
      move_path_problem(sim::load_robot(truth_file, true).model, stand_at, start_hold, s.reference.start_pose);
  if (path.empty()) return std::nullopt;
  return SettingProblem{"--stand-at", "--stand-at: the move from these joint angles to the start hold of " +
                                          s.reference_file + " on " + truth_file + ", the virtual robot's truth: " + path};
}

std::string move_path_problem(const sim::RobotModel& truth, const Vec6d& stand_at, const Vec6d& start_hold,
                              const Vec6d& start_pose) {
  Vec6d chi = start_pose, end = start_pose;
  if (!sim::pose_at_encoders(truth, stand_at, chi) && !sim::pose_at_encoders(truth, stand_at, chi = truth.home))
    return "";  // no standing pose at all: stand_at_problem's to say
  if (!sim::pose_at_encoders(truth, start_hold, end)) return "the start hold has no pose near the start";
  sim::RobotModel envelope = truth;  // the virtual robot's safety stop (hw::VirtualRobot)
  const hw::VirtualRobotOptions o;
  envelope.joint_limit += o.joint_range_margin;
  envelope.min_transmission *= 0.5;
  envelope.min_parallel_conditioning *= 0.5;
  const int n = std::max(1, static_cast<int>(std::ceil((start_hold - stand_at).cwiseAbs().maxCoeff() / 0.005)));
  for (int k = 0; k <= n; ++k) {  // k = 0: where it stands (found as the virtual robot finds it)
    const double share = static_cast<double>(k) / n;
    const std::string at = k == 0 ? "where it stands" : "at " + std::to_string(static_cast<int>(std::lround(100 * share))) + " % of the way";
    if (k > 0 && !sim::pose_at_encoders(truth, stand_at + share * (start_hold - stand_at), chi))
      return at + " the platform has no pose near the last one (forward kinematics lost it: a singularity between)";
    if (const sim::PoseCheck c = sim::check_pose(envelope, chi); !c.ok())
      return at + " the robot would stop: " + c.describe() + " (the safety stop's margins)";
  }
  if ((chi - end).cwiseAbs().maxCoeff() > 1e-6)
    return "the platform would end at (" + exact_number(chi(0)) + ", " + exact_number(chi(1)) + ", " + exact_number(chi(2)) +
           " m, " + exact_number(chi(3)) + ", " + exact_number(chi(4)) + ", " + exact_number(chi(5)) +
           " rad), not at the start (" + exact_number(end(0)) + ", " + exact_number(end(1)) + ", " + exact_number(end(2)) +
           " m, " + exact_number(end(3)) + ", " + exact_number(end(4)) + ", " + exact_number(end(5)) +
           " rad): these joint angles hold the platform in another assembly mode, which the move does not leave";
  return "";
}

}  // namespace vcloe::rig
