#pragma once
// vcloe/sim/safety.hpp — the safety stop's envelope: what a real controller's limit monitoring
// allows (the virtual robot's stop, hw::VirtualRobot), as a robot model for check_pose.
#include "vcloe/sim/kinematics.hpp"

namespace vcloe::sim {

// The stop: the robot file's joint range widened by 0.1 rad and its two singularity margins
// halved (half the margins the references are planned with).
inline constexpr double kSafetyStopMarginScale = 0.5;
inline constexpr double kSafetyStopJointRangeMargin = 0.1;  // rad (hw::VirtualRobotOptions::joint_range_margin)

// The robot file's joint range widened by `joint_range_margin` (rad) and its singularity margins
// times `margin_scale`. check_pose on it is the stop's pose test; excitation::check_tracking asks
// it of the twin's motion with margin_scale above the stop's (a margin to the stop).
RobotModel safety_envelope(const RobotModel& model, double joint_range_margin = kSafetyStopJointRangeMargin,
                           double margin_scale = kSafetyStopMarginScale);

}  // namespace vcloe::sim
