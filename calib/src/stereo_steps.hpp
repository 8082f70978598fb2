#pragma once
// calib/src/stereo_steps.hpp (internal) — the stages of calibrate_stereo (stereo_calibration.cpp):
// corner detection, per-camera fits, the stereo consistency check, the joint refinement and the
// statistics of the result, each dropping the pairs it finds bad.
#include <opencv2/core.hpp>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "vcloe/calib/stereo_calibration.hpp"

namespace vcloe::calib::stereo_steps {

inline constexpr char kIdenticalImages[] = "left and right images are identical (the same camera twice?)";

// The board's corners (board frame) and where each pair's were found (empty where not).
struct Detections {
  cv::Size size;
  std::vector<cv::Point3f> object;
  std::vector<std::vector<cv::Point2f>> left, right;  // per pair
  int flags = 0;                                      // for calibrateCamera / stereoCalibrate
};

// Every pair's report and the pairs still in use.
struct Selection {
  std::vector<ViewReport> views;
  std::vector<std::size_t> keep;
  int min_pairs = 0;

  // keep = the pairs not rejected; throws if fewer than min_pairs are left after `stage`.
  void refresh(const std::string& stage);
};

// One camera's calibrateCamera result (step 2).
struct CameraFit {
  cv::Mat K, D;
  double rms = 0;
  std::array<double, 9> sigma{};                // fx fy cx cy k1 k2 p1 p2 k3
  std::vector<double> view_rms;                 // per calibrated view
  std::vector<vision::Transform> T_cam_board;   // per calibrated view
};

// The result of the joint refinement (step 4).
struct StereoFit {
  cv::Mat K1, D1, K2, D2, R, T, F, per_view;
  double rms = 0;
};

// 1. Corners in every image; one report per pair appended to `views`.
Detections detect(const std::vector<cv::Mat>& left, const std::vector<cv::Mat>& right,
                  const std::vector<std::string>& names, const vision::ChessboardSpec& board, bool fix_k3,
                  std::vector<ViewReport>& views);
// 2. Per-camera intrinsics (left, right).
std::pair<CameraFit, CameraFit> fit_cameras(const Detections& d, const StereoCalibrationSettings& s, Selection& sel);
// 3. Drops the pairs disagreeing with the consensus right-from-left transform.
void drop_inconsistent(const Detections& d, const CameraFit& fl, const CameraFit& fr, double consistency_px,
                       Selection& sel);
// 4. Joint refinement of both cameras and the right-from-left transform.
StereoFit refine_jointly(const Detections& d, const CameraFit& fl, const CameraFit& fr,
                         const StereoCalibrationSettings& s, Selection& sel);
double epipolar_px(const Detections& d, const StereoFit& f, const std::vector<std::size_t>& keep);
vision::StereoRig rig_from(const StereoFit& f, cv::Size size);  // throws on a baseline under 1 mm
// Sets out.baseline_sigma_m and out.rotation_sigma_rad (needs out.rig, out.left_sigma, out.right_sigma).
void set_uncertainty(const Detections& d, const StereoFit& f, const std::vector<std::size_t>& keep,
                     StereoCalibration& out);

}  // namespace vcloe::calib::stereo_steps
