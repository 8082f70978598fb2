#pragma once
// vcloe/calib/stereo_calibration.hpp — stereo rig calibration from chessboard image pairs.
//
// Per-camera intrinsics (cv::calibrateCamera) then stereo extrinsics with joint refinement
// (cv::stereoCalibrate, intrinsics as the initial guess), per-view errors, rejection of bad
// views (corners missing in either image; a per-camera or per-view stereo RMS above an absolute
// limit or far above the median; a pair inconsistent with the other pairs' stereo geometry),
// RMS reprojection error and average epipolar error computed as in OpenCV's stereo_calib sample. The result is a rig file (vision/camera.hpp) without the
// camera-to-base transform, which `vcloe calibrate base` adds.
#include <opencv2/core.hpp>
#include <array>
#include <string>
#include <vector>

#include "vcloe/calib/image_pairs.hpp"
#include "vcloe/core/settings.hpp"
#include "vcloe/vision/camera.hpp"
#include "vcloe/vision/render.hpp"

namespace vcloe::calib {

// "9x6" -> inner corners (cols, rows); error otherwise.
vision::ChessboardSpec parse_board(const std::string& cols_x_rows, double square_m);

struct StereoCalibrationSettings {
  double max_view_rms_px = 1.0;   // a view above this per-view RMS is rejected ...
  double outlier_factor = 4.0;    // ... and so is one above this factor times the median
  double consistency_px = 3.0;    // a pair whose own stereo geometry disagrees by more is rejected
  int min_pairs = 5;
  bool fix_k3 = false;            // estimate k1, k2, p1, p2, k3 (true: k3 = 0, for narrow views)

  // The first setting out of range: every limit finite and positive (max_view_rms_px at most
  // 100 px, outlier_factor > 1) and min_pairs >= 3. validate throws it as vcloe::Error
  // "stereo calibration: <key>: ..." (core/settings.hpp).
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where = "stereo calibration") const;
};

struct ViewReport {
  std::string name;               // left image name
  bool corners_left = false, corners_right = false;
  bool used = false;
  double rms_left_px = 0, rms_right_px = 0;  // stereo per-view RMS (0 if not calibrated)
  std::string rejected;           // why not used
};

struct StereoCalibration {
  vision::StereoRig rig;
  double rms_px = 0;              // stereoCalibrate RMS reprojection error over used views
  double epipolar_px = 0;         // mean |x2^T F x1| distance sum, as OpenCV's stereo_calib
  double left_rms_px = 0, right_rms_px = 0;  // per-camera calibrateCamera RMS
  // Standard deviations of the per-camera intrinsics (OpenCV): fx fy cx cy k1 k2 p1 p2 k3.
  std::array<double, 9> left_sigma{}, right_sigma{};
  double baseline_sigma_m = 0;    // standard error of |t| from the per-pair scatter
  double rotation_sigma_rad = 0;  // of R: per-pair scatter and principal-point sigmas / f
  int pairs_used = 0;
  std::vector<ViewReport> views;
};

// From images in memory (grayscale 8-bit) with names for the report.
StereoCalibration calibrate_stereo(const std::vector<cv::Mat>& left, const std::vector<cv::Mat>& right,
                                   const std::vector<std::string>& names, const vision::ChessboardSpec& board,
                                   const StereoCalibrationSettings& settings = {});
// From files (read as grayscale).
StereoCalibration calibrate_stereo(const std::vector<ImagePair>& pairs, const vision::ChessboardSpec& board,
                                   const StereoCalibrationSettings& settings = {});

}  // namespace vcloe::calib
