#pragma once
// vcloe/vision/pose.hpp — platform pose from a stereo image pair (Li et al. 2019 §3.1, eqs. 27-28).
//
// Pipeline: bright-blob candidates -> intensity-weighted sub-pixel centroids -> undistortion ->
// epipolar matching -> triangulation -> labelling by distance matrix -> rigid fit of each body's
// layout (Umeyama, no scale/reflection) -> T_O_E = T_C_O^-1 * T_C_E (eq. 28).
// Every pose carries its fiducial registration error (FRE) and the markers used; a pose with
// fewer than `min_markers` labelled markers or an FRE above `max_fre_m` is invalid, with the
// reason — never silently wrong. A centroid-noise model (true projections + Gaussian pixel noise)
// runs the same pipeline from the triangulation on, to measure accuracy without rendering.
#include <opencv2/core.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "vcloe/vision/markers.hpp"
#include "vcloe/vision/render.hpp"

namespace vcloe::vision {

struct DetectionSettings {
  double threshold_sigmas = 8;   // candidate pixels: background + this many noise sigmas ...
  double min_threshold_dn = 40;  // ... but at least this far above the background
  int min_area_px = 6;
  int max_area_px = 40000;
  int border_px = 2;             // blobs touching the image border are dropped (cut centroids)
  // Candidates are searched on every coarse_step_px-th pixel first (blobs narrower than this may
  // be missed), then at full resolution around each; 1 searches the full frame.
  int coarse_step_px = 4;
};

struct BlobDetection {
  Vec2d pixel;       // intensity-weighted centroid (px, OpenCV pixel-centre convention)
  int area_px = 0;
  double peak_dn = 0;
};

// Candidates and centroids in one image (CV_8UC1 or CV_16UC1).
std::vector<BlobDetection> detect_blobs(const cv::Mat& image, const DetectionSettings& settings = {});

struct StereoPoint {
  Vec3d p_C;                 // sensor (left camera) coordinates, m
  int left = -1, right = -1; // detection indices
  double epipolar_px = 0;    // symmetric epipolar distance
  double reprojection_px = 0;
};

// All left/right pairs within `max_epipolar_px` of each other's epipolar line, triangulated
// (midpoint, then Gauss-Newton on the undistorted reprojection error). Ambiguous pairs give
// extra "ghost" points that labelling rejects.
std::vector<StereoPoint> triangulate_matches(const StereoRig& rig, const std::vector<Vec2d>& left_px,
                                             const std::vector<Vec2d>& right_px, double max_epipolar_px);

struct PipelineSettings {
  DetectionSettings detection;
  double max_epipolar_px = 2.0;
  double max_reprojection_px = 2.0;
  double label_tolerance_m = 0.0015;  // must stay below min_distance_gap / 2
  double max_fre_m = 0.0005;          // pose invalid above this registration error
  int min_markers = 3;
  bool base_per_frame = false;        // T_C_O from this frame's base markers, not the rig file
};

struct BodyMeasurement {
  bool valid = false;
  std::string reason;                 // why invalid
  Transform T_C_B = Transform::Identity();
  double fre_m = 0;
  std::vector<std::string> markers_used;
  std::vector<Vec3d> points_C;        // the labelled triangulated points, same order
};

struct PoseMeasurement {
  bool valid = false;
  std::string reason;                 // why invalid
  Transform T_O_E = Transform::Identity();
  Vec6d chi = Vec6d::Zero();          // [x, y, z, alpha, beta, gamma] of T_O_E
  double fre_m = 0;                   // the platform's registration error
  std::vector<std::string> markers_used;  // platform markers
  BodyMeasurement platform, base;
  int left_blobs = 0, right_blobs = 0, stereo_points = 0;
};

class PosePipeline {
 public:
  // The rig must carry camera_from_base unless settings.base_per_frame.
  PosePipeline(StereoRig rig, MarkerSet markers, PipelineSettings settings = {});

  PoseMeasurement measure_images(const cv::Mat& left, const cv::Mat& right) const;
  PoseMeasurement measure_centroids(const std::vector<Vec2d>& left_px, const std::vector<Vec2d>& right_px) const;

  const StereoRig& rig() const { return rig_; }
  const MarkerSet& markers() const { return markers_; }
  const PipelineSettings& settings() const { return settings_; }

 private:
  BodyMeasurement measure_body(const MarkerLayout& layout, const std::vector<StereoPoint>& pts,
                               std::vector<char>& used) const;
  StereoRig rig_;
  MarkerSet markers_;
  PipelineSettings settings_;
};

// Measurement model without rendering: the true marker projections (rig truth) with i.i.d.
// Gaussian noise of sigma_px on each centroid coordinate, measured by `pipeline`.
class CentroidNoiseModel {
 public:
  CentroidNoiseModel(const StereoRig& truth_rig, const PosePipeline& pipeline, double sigma_px, std::uint64_t seed);
  PoseMeasurement measure(const Transform& T_O_E_true, const std::vector<std::string>& occluded = {});

 private:
  StereoRig truth_;
  const PosePipeline& pipeline_;
  double sigma_;
  std::mt19937_64 rng_;
};

// The virtual rig's camera as a pose source for the loop: each true pose is measured through
// CentroidNoiseModel; an invalid frame repeats the last valid pose (as a tracker that drops a
// frame) and is counted. Construct from the rig truth (with camera_from_base) and markers.
class StereoCamera {
 public:
  StereoCamera(const StereoRig& truth_rig, const MarkerSet& markers, double sigma_px, std::uint64_t seed,
               PipelineSettings settings = {});
  StereoCamera(const StereoCamera&) = delete;  // model_ refers to pipeline_
  StereoCamera& operator=(const StereoCamera&) = delete;
  Vec6d measure_pose(const Vec6d& chi_true);
  int frames() const { return frames_; }
  int invalid_frames() const { return invalid_; }
  const std::string& last_invalid_reason() const { return last_reason_; }

 private:
  PosePipeline pipeline_;
  CentroidNoiseModel model_;
  Vec6d last_ = Vec6d::Zero();
  bool has_last_ = false;
  int frames_ = 0, invalid_ = 0;
  std::string last_reason_;
};

// First-order error propagation: covariance (6x6) of [position error (m); rotation error vector
// (rad, base frame)] of the measured T_O_E for i.i.d. centroid noise sigma_px, from the pipeline's
// numerical Jacobian with respect to every centroid coordinate. T_C_O is taken as exact.
Mat6d predicted_pose_covariance(const StereoRig& truth_rig, const PosePipeline& pipeline,
                                const Transform& T_O_E, double sigma_px);

// Error of a measured transform against truth: [dp (m); dtheta (rad)] with
// R_measured = exp([dtheta]x) R_true.
Vec6d pose_error(const Transform& measured, const Transform& truth);

}  // namespace vcloe::vision
