#pragma once
// vcloe/calib/pose_selection.hpp — the static poses of a kinematic calibration chosen for the
// geometry as `vcloe excite` chooses a trajectory for the dynamics (docs/calibration.md, "Pose
// selection"): candidate platform poses around home that pass the robot file's pose checks with
// its singularity margins doubled (reachable, inside a fraction of the joint range, away from both singularities, the working
// assembly mode), then a greedy D-optimal design on the identification Jacobian in the free
// directions of the gauge (each step adds the candidate that most increases log det of the
// information matrix), ordered as a nearest-neighbour tour in joint space from home.
#include <cstdint>
#include <vector>

#include "vcloe/calib/kinematic_identifiability.hpp"

namespace vcloe::calib {

struct PoseSelectionOptions {
  int poses = 30;
  int candidates = 1500;
  double joint_fraction = 0.9;   // |θ_i| ≤ joint_fraction × the joint range
  Vec6d half_range = (Vec6d() << 0.03, 0.03, 0.03, 0.1, 0.1, 0.15).finished();  // around home (m, rad)
  std::uint64_t seed = 1;
  Vec6d frame_noise = Vec6d::Zero();  // camera noise per frame (the default camera's if zero)
  int frames = 50;                     // frames averaged per pose
};

// Predicted 1σ (largest of each kind) for the first n selected poses.
struct PredictedAccuracy {
  int poses = 0;
  double log_det = 0;            // of the information matrix in the free directions
  double base_joint = 0, platform_joint = 0, crank_length = 0, link_length = 0;  // m
  double encoder_offset = 0;     // rad
  double marker_position = 0, marker_angle = 0, camera_position = 0, camera_angle = 0;
};

struct PoseSelection {
  std::vector<Vec6d> joints;     // commanded joint angles (rad), in the order to visit them
  std::vector<Vec6d> platform;   // the nominal robot's platform pose there
  std::vector<PredictedAccuracy> accuracy;  // at 10, 15, 20, 30, 40, … poses, and at the count
  PredictedAccuracy random;      // the same count of the first random candidates, for comparison
  int candidates_checked = 0, candidates_kept = 0;
};

PoseSelection select_poses(const sim::RobotModel& nominal, const PoseSelectionOptions& options);

}  // namespace vcloe::calib
