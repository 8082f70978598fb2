#pragma once
// vcloe/rig/static_measurement.hpp — the static poses of a kinematic calibration measured on the
// virtual robot (docs/calibration.md, "Static measurement"): each commanded joint set reached by
// a smooth move (half-cosine ramp along a pose-space line, no visual servo: the
// commands are the data), held for the settling time, then the camera's frames and the encoders
// sampled with them averaged. The drives' own integral (eq. 31) brings the encoders to the
// command at rest; when the joints stopped moving is measured and written per pose.
#include <cstdint>
#include <vector>

#include "vcloe/calib/static_trace.hpp"
#include "vcloe/core/defaults.hpp"
#include "vcloe/hw/virtual_robot.hpp"

namespace vcloe::rig {

struct StaticMeasurementOptions {
  double move_s = 2.0, settle_s = 1.5, measure_s = 0.5;  // per pose (s)
  double camera_hz = 100.0, controller_hz = 1000.0;
  Vec6d noise_sigma = defaults::camera_noise_sigma();     // per frame (m, rad)
  std::uint64_t seed = 1;
  // The camera-to-base residual the camera path adds (pose of O in O'): the error `calibrate
  // base` leaves. The truth's encoder offsets and marker frame come from its robot file.
  Vec6d camera_to_base = Vec6d::Zero();
  // rad/s: every encoder slower than this counts as at rest — with a 3 ms error in the time of a
  // frame against its encoder sample that is 3 µrad, 0.3 µm at a 0.1 m crank (docs/calibration.md).
  double settled_rate = 1e-3;
  hw::VirtualRobotOptions robot;
};

// Moves the virtual robot of `truth` through `commands` (encoder angles, rad) and measures each
// pose. Each move follows a straight line in pose space of the drawn robot (its IK), ending at
// the command exactly. Fails naming the pose if the robot stops (safety stop, engine failure).
calib::StaticTrace measure_static_poses(const sim::RobotFile& truth, const sim::RobotModel& drawn,
                                        const std::vector<Vec6d>& commands, const StaticMeasurementOptions& options);

}  // namespace vcloe::rig
