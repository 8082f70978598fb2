// robot serve's options (rig/serve.hpp): their ranges, its endpoints, and a stand-at pose the
// virtual robot's truth can hold.
#include <algorithm>
#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/rig/common.hpp"
#include "vcloe/rig/roles.hpp"
#include "vcloe/rig/setup.hpp"
#include "vcloe/rig/serve.hpp"
#include "vcloe/sim/kinematics.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::rig {

std::optional<SettingProblem> RobotServeOptions::problem() const {
  if (!(hold >= 0 && hold <= 3600)) return SettingProblem{"--hold", "--hold: expected a time in [0, 3600] s"};
  if (!(move_speed > 0 && std::isfinite(move_speed)))
    return SettingProblem{"--move-speed", "--move-speed: expected a positive speed (rad/s)"};
  if (stand_at && !stand_at->allFinite())
    return SettingProblem{"--stand-at", "--stand-at: expected six finite joint angles (rad)"};
  return start_timeout_problem(start_timeout);
}

void RobotServeOptions::validate(const std::string& where) const {
  throw_if(problem(), where);
  // The endpoints: an ipc path is looked at (lstat), so here and not in problem(), which stays pure.
  throw_if(endpoints_problem(endpoints, "cpks", "pk"), where);
}

std::optional<SettingProblem> stand_at_problem(const Vec6d& stand_at, const std::string& truth_file) {
  const sim::RobotModel truth = sim::load_robot(truth_file, true).model;
  const std::string where = " (limits.joint of " + truth_file + ", the virtual robot's truth)";
  Vec6d chi = truth.home;
  const sim::PoseCheck c = sim::check_encoders(truth, stand_at, chi);  // kinematics --theta's check
  if (c.status == sim::PoseStatus::JointLimit) {
    const int i = c.leg;
    return SettingProblem{"--stand-at", "--stand-at: joint " + std::to_string(i + 1) + " at " +
                                            exact_number(stand_at(i)) + " rad is outside the joint range +-" +
                                            exact_number(truth.joint_limit) + " rad" +
                                            (c.theta(i) != stand_at(i) ? " less its encoder_offset" : "") + where};
  }
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
                                                   double max_command_speed) {
  const std::string why = StartRamp::problem(stand_at, s.reference.start_theta, std::min(move_speed, max_command_speed),
                                             s.experiment.timing.controller_period());
  if (why.empty()) return std::nullopt;
  return SettingProblem{"--move-speed", "--move-speed: from --stand-at to the start of " + s.reference_file + ": " + why};
}

}  // namespace vcloe::rig
