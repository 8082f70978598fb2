#pragma once
// `vcloe kinematics` (docs/robot-file.md, "Kinematics from the command line"): the robot file's
// kinematics for an adapter or a person, without writing code against sim/ — the start hold of
// a reference (the joint command the robot holds before frame 0: IK of the reference's start
// pose, docs/protocol.md "Move to start"), the inverse kinematics of a pose with its limit and
// singularity checks, and the pose at given encoder readings (forward kinematics, the robot
// file's encoder offsets taken off: sim::pose_at_encoders).
#include <optional>

#include "vcloe/core/report.hpp"
#include "vcloe/core/settings.hpp"
#include "vcloe/core/rotation.hpp"

namespace vcloe::workflow {

struct KinematicsOptions {
  std::string robot, experiment, reference;  // reference: the start hold of it
  std::optional<Vec6d> pose;                 // x y z (m) alpha beta gamma (rad): its IK
  std::optional<Vec6d> encoders;             // theta1..6 (rad): the pose there (FK)

  std::optional<SettingProblem> problem() const;  // exactly one of reference, pose, encoders; finite
  void validate(const std::string& where = "") const;
};

// One answer: the pose and the joint angles (each the other's kinematics), and what was asked.
Report kinematics(const KinematicsOptions& options);

}  // namespace vcloe::workflow
