#pragma once
// vcloe/calib/camera_to_base.hpp — the camera-to-base transform T_C_O (Li et al. 2019 eq. 28).
//
// Two independent estimates: (1) directly from the base markers, averaged over frames; (2) a
// robot-world/hand-eye cross-check (cv::calibrateRobotWorldHandEye) from platform poses measured
// by the cameras (T_C_M, M = the platform's marker frame) and the commanded platform poses T_O_E:
// T_M_C * T_C_O = T_M_E * T_E_O, which also recovers T_M_E (identity when the layout file is
// exact). Both report a standard error from their own scatter so their disagreement can be
// judged against it.
#include <vector>

#include "vcloe/vision/pose.hpp"

namespace vcloe::calib {

using vision::Transform;

// sigma_*: expected size of the estimate's error, sqrt(trace(covariance)) of the translation
// (m) and of the rotation vector (rad). NaN: not measured — the samples leave no degree of
// freedom to estimate it from (one frame; a hand-eye fit its unknowns can fit exactly), and a
// scatter of nothing is no error of zero: nothing is judged against it (docs/calibration.md).
struct TransformEstimate {
  Transform T = Transform::Identity();
  int samples = 0;
  double sigma_position_m = 0;
  double sigma_rotation_rad = 0;
  bool sigma_measured() const { return sigma_position_m == sigma_position_m && sigma_rotation_rad == sigma_rotation_rad; }
};

// The one rule of a sigma formed from residuals (chi^2 / dof = 1): `sum_squares / dof` when
// degrees of freedom are left, else not measured (NaN).
double residual_variance(double sum_squares, double dof);

// The least number of hand-eye poses whose fit measures a sigma: each kind of residual (3
// positions, 3 angles per pose) is weighted by its own RMS, so each must outnumber the 12 unknowns.
inline constexpr int kHandEyePosesForSigma = 5;

// Mean of transforms: translations averaged, rotation = SVD projection of the mean matrix;
// sigma = RMS scatter / sqrt(n).
TransformEstimate mean_transform(const std::vector<Transform>& samples);

// (1) From the base markers: one valid base measurement (T_C_O per frame) per entry.
TransformEstimate camera_to_base_from_markers(const std::vector<vision::BodyMeasurement>& base_frames);

// (2) Hand-eye cross-check: pairs of measured T_C_M and commanded T_O_E (>= 3 poses with
// rotations about different axes). Closed form cv::CALIB_ROBOT_WORLD_HAND_EYE_SHAH, then refined by
// weighted least squares on the pose residuals (both reported). On a real robot the commanded
// pose differs from the actual one by the tracking error, which enters the residuals and so
// the reported sigma.
struct HandEyeEstimate {
  TransformEstimate camera_to_base;  // T_C_O refined, sigma from the least-squares covariance
  Transform T_M_E = Transform::Identity();
  Transform closed_form_T_C_O = Transform::Identity();  // OpenCV's closed-form answer
  Transform closed_form_T_M_E = Transform::Identity();
  double residual_position_m = 0;    // RMS per-pose residual per kind (chi^2/dof = 1 weights)
  double residual_rotation_rad = 0;
};
HandEyeEstimate camera_to_base_hand_eye(const std::vector<Transform>& T_C_M_measured,
                                        const std::vector<Transform>& T_O_E_commanded);

struct TransformDifference {
  double position_m = 0;   // |t_a - t_b|
  double rotation_rad = 0; // angle of R_a^T R_b
};
TransformDifference difference(const Transform& a, const Transform& b);

}  // namespace vcloe::calib
