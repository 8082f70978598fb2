#pragma once
// vcloe/calib/workflows.hpp — the two calibrations as the command line runs them, from files
// to a rig file and a report (docs/vision.md): `calibrate stereo` (stereo intrinsics and
// extrinsics from chessboard image pairs, replacing the CMM of Li et al. 2019 §3.1) and `calibrate base`
// (the camera-to-base transform T_C_O from the base markers, cross-checked by
// robot-world/hand-eye calibration, Li et al. 2019 eq. 28). Each options struct validates itself
// naming the option.
#include <cstdint>
#include <optional>
#include <string>

#include "vcloe/core/defaults.hpp"
#include "vcloe/core/pose_path.hpp"
#include "vcloe/core/settings.hpp"
#include "vcloe/vision/report.hpp"

namespace vcloe::calib {

struct CalibrateStereoOptions {
  std::string images, board, out;  // image folder or list; "COLSxROWS"; rig file to write
  double square = 0;               // m
  double max_view_rms = 1.0;       // px: views above it are rejected
  bool fix_k3 = false, force = false;

  void validate() const;  // the output (never the images) and the calibration settings
};

// Calibrates from the image pairs, writes the rig file (no camera_from_base yet) and reports
// the fit: RMS and epipolar error, both cameras, the baseline, every view.
Report calibrate_stereo_files(const CalibrateStereoOptions& options);

struct CalibrateBaseOptions {
  std::string rig, markers;      // rig file (its camera_from_base: the virtual rig's truth), marker file
  std::string images;            // image pairs; empty: the virtual rig
  std::string commanded;         // with images: trace of the poses commanded for each pair (hand-eye)
  std::string reference;         // virtual rig: trajectory the hand-eye poses are taken from
  std::string out;               // rig file to write with the estimate (optional)
  int frames = 50, poses = 30;   // virtual rig: base-marker frames to average; hand-eye poses
  double noise_px = defaults::kCentroidNoisePx;  // virtual rig: centroid noise sigma
  std::uint64_t seed = 1;        // virtual rig: noise seed
  bool force = false;

  // Counts and noise bounded before any work (a huge --poses ran for minutes): 10^5 frames take
  // about 6 s, 10^4 poses about 1 s; --commanded only with --images (problem(), pure; the
  // messages begin with the option, core/settings.hpp); validate() then the output, never an input.
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where = "") const;
};

// T_C_O from the base markers (images, or the virtual rig's noisy centroids along the
// reference, read by load_reference), the hand-eye cross-check when there are >= 3 poses, the
// error against the virtual rig's truth; the rig file written with the estimate if `out`.
Report calibrate_base_workflow(const CalibrateBaseOptions& options, const PosePathLoader& load_reference);

}  // namespace vcloe::calib
