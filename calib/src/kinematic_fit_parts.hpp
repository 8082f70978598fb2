#pragma once
// Private to calib: the steps of calibrate_kinematics around the Ceres solve (input checks, the
// FK starting poses, the analysis at the solution).
#include <vector>

#include "vcloe/calib/kinematic_calibration.hpp"

namespace vcloe::calib::detail {

void check_inputs(const std::vector<StaticPose>& poses, const Vec6d& frame_noise);

// FK of every pose at parameters x, reached by continuation from the home pose (the working
// assembly mode); fails naming the pose where the robot cannot close.
std::vector<Vec6d> initial_guesses(const sim::RobotModel& nominal, const LegFrames& frames, const KinematicVector& x,
                                   const std::vector<StaticPose>& poses);

// σ, null space, residual and verdict at the solution out.estimate (N: the free directions).
void analyse_solution(const sim::RobotModel& nominal, const LegFrames& frames, const std::vector<StaticPose>& poses,
                      const Matrix& N, const KinematicCalibrationOptions& options, KinematicCalibrationResult& out);

}  // namespace vcloe::calib::detail
