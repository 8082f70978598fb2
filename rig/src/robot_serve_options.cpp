// robot serve's options (rig/serve.hpp): their ranges, its endpoints, and a stand-at pose the
// virtual robot's truth can hold.
#include <algorithm>
#include <cmath>

#include "vcloe/core/error.hpp"
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
