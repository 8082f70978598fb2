// `vcloe kinematics` (kinematics.hpp): the start hold, IK of a pose, the pose at encoder readings.
#include "vcloe/workflow/kinematics.hpp"

#include <string>

#include "vcloe/core/error.hpp"
#include "vcloe/rig/setup.hpp"
#include "vcloe/sim/kinematics.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::workflow {

namespace {

std::string joined(const Vec6d& v) {
  std::string s;
  for (int i = 0; i < 6; ++i) s += (i ? " " : "") + exact_number(v(i));
  return s;
}

nlohmann::json array_of(const Vec6d& v) { return {v(0), v(1), v(2), v(3), v(4), v(5)}; }

// The answer: `pose` and the encoder readings `encoders` that belong to it, and how found.
Report answer(const std::string& what, const Vec6d& pose, const Vec6d& encoders, const std::string& note) {
  Report r;
  r.json = {{"what", what}, {"pose", array_of(pose)}, {"theta", array_of(encoders)}, {"note", note}};
  r.text = what + "\npose (x y z m, alpha beta gamma rad): " + joined(pose) + "\ntheta (rad, as the encoders read): " +
           joined(encoders) + "\n" + (note.empty() ? "" : note + "\n");
  return r;
}

std::string verdict(const sim::PoseCheck& c) {
  return c.ok() ? "within the joint range and the singularity margins (docs/model.md)"
                : "WARNING: " + c.describe() + " — the robot would refuse to go there";
}

}  // namespace

std::optional<SettingProblem> KinematicsOptions::problem() const {
  const int asked = !reference.empty() + (pose ? 1 : 0) + (encoders ? 1 : 0);
  if (asked != 1)
    return SettingProblem{"--reference", "expected exactly one of --reference, --pose and --theta (got " +
                                             std::to_string(asked) + ")"};
  if (pose && !pose->allFinite()) return SettingProblem{"--pose", "--pose: expected six finite numbers"};
  if (encoders && !encoders->allFinite()) return SettingProblem{"--theta", "--theta: expected six finite angles (rad)"};
  return std::nullopt;
}

void KinematicsOptions::validate(const std::string& where) const { throw_if(problem(), where); }

Report kinematics(const KinematicsOptions& o) {
  o.validate();
  if (!o.reference.empty()) {  // the start hold, as every role of the rig derives it
    const rig::ExperimentSetup s = rig::load_setup(o.robot, o.experiment, o.reference);
    return answer("start hold of " + o.reference + " on " + o.robot, s.reference.start_pose, s.reference.start_theta,
                  "the joint command the robot holds before frame 0 (docs/protocol.md, \"Move to start\")");
  }
  const sim::RobotModel model = sim::load_robot(o.robot).model;
  const Vec6d offsets = sim::encoder_offsets(model);
  if (o.pose) {
    const sim::PoseCheck c = sim::check_pose(model, *o.pose);
    if (c.status == sim::PoseStatus::Unreachable || c.status == sim::PoseStatus::OtherAssemblyMode)
      fail("--pose", "not reachable on " + o.robot + ": " + c.describe());
    return answer("inverse kinematics on " + o.robot, *o.pose, c.theta + offsets, verdict(c));
  }
  Vec6d chi = model.home;
  const sim::PoseCheck c = sim::check_encoders(model, *o.encoders, chi);  // the range on the angles as read
  // Outside the range with no pose found (an encoder count or micro-radians typed as rad): the
  // range is the reason; outside it with a pose, the pose is answered with the range's warning.
  if (!chi.allFinite() && c.status == sim::PoseStatus::JointLimit)
    fail("--theta", sim::joint_range_problem(model, *o.encoders, c, o.robot));
  if (!chi.allFinite())
    fail("--theta", "no pose of " + o.robot + " near its home pose has these joint angles (forward kinematics did not converge)");
  return answer("forward kinematics on " + o.robot, chi, *o.encoders, "in the assembly mode of the home pose; " + verdict(c));
}

}  // namespace vcloe::workflow
