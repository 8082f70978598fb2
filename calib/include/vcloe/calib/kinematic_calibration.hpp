#pragma once
// vcloe/calib/kinematic_calibration.hpp — the kinematic calibration fit (Li et al. 2018): the
// geometric parameters of kinematic_model.hpp from static poses measured by the camera at held
// joint angles. Levenberg–Marquardt (Ceres, automatic derivatives through ceres::Jet) on the pose
// residuals whitened by the camera noise of each pose's mean, in the free directions the gauge of
// kinematic_identifiability.hpp leaves; then the null space of the Jacobian checked against the
// named combinations, σ from the Gauss–Newton covariance scaled by the residual (PDG scale
// factor), and the residual verdict against the camera noise measured from the frames themselves.
#include <functional>
#include <string>
#include <vector>

#include "vcloe/calib/kinematic_identifiability.hpp"

namespace vcloe::calib {

// One static pose: the joint angles the drives held (encoder readings; the commands when the
// robot reports none) and the mean of the camera frames taken there.
struct StaticPose {
  Vec6d joints = Vec6d::Zero();    // rad
  Vec6d measured = Vec6d::Zero();  // mean measured pose (m, rad)
  Vec6d scatter = Vec6d::Zero();   // standard deviation of the frames about that mean
  int frames = 1;
};

struct KinematicCalibrationOptions {
  std::vector<int> fixed;              // parameter indices kept at the start value (besides the gauge)
  Vec6d frame_noise = Vec6d::Zero();   // camera noise per frame; zero: pooled from the poses' scatter
  double adequate_ratio = 1.2;         // residual RMS / camera noise accepted as "at the noise"
  // A fit of all 72 parameters that ends this far above the camera noise was given poses no robot
  // of this kind has (positions in mm, angles in degrees, another robot's poses): refused, not a
  // result. Fits of real and virtual robots end within a few times the noise.
  double implausible_ratio = 1e3;
  int max_iterations = 100;
  std::function<void(const std::string&)> progress;  // one line per iteration (nothing if empty)
};

struct KinematicCalibrationResult {
  KinematicParameters start, estimate;
  KinematicVector sigma = KinematicVector::Zero();  // 1σ, scaled by max(1, residual ratio)
  std::vector<std::string> status;                  // per parameter: "identified", "fixed", "gauge: …"
  std::vector<NamedCombination> combinations;
  NullSpaceCheck null_space;            // of the full 72-column Jacobian at the solution
  double condition_number = 0;          // of the free directions' column-scaled Jacobian
  int free_directions = 0;
  Vec6d frame_noise = Vec6d::Zero();    // camera noise per frame used (given or pooled)
  Vec6d residual_rms = Vec6d::Zero();   // per axis (m, rad) of measured − predicted mean poses
  Vec6d mean_noise = Vec6d::Zero();     // per axis: RMS of the poses' mean noise σ/√frames
  double chi2 = 0;                      // χ²: the weighted residual's squared norm
  int dof = 0;                          // ν: 6 × poses − free_directions
  double ratio = 0;                     // sqrt(χ²/ν): residual over the camera noise
  double adequate_ratio = 0;            // the options' limit of an adequate ratio
  bool adequate = false;                // ratio ≤ adequate_ratio (in words: report::calibration_verdict)
  int iterations = 0;
  double cpu_seconds = 0;
  int poses = 0;
};

// Fits the parameters starting at `start` (nominal_parameters(nominal) unless given). Needs
// ≥ 10 poses (60 residuals for the 56 free directions); fails naming what is missing.
KinematicCalibrationResult calibrate_kinematics(const sim::RobotModel& nominal, const std::vector<StaticPose>& poses,
                                                const KinematicCalibrationOptions& options,
                                                const KinematicParameters* start = nullptr);

// The camera noise per frame pooled from the poses' scatter (RMS over poses, unbiased per pose).
Vec6d pooled_frame_noise(const std::vector<StaticPose>& poses);

}  // namespace vcloe::calib
