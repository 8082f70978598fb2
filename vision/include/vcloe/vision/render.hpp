#pragma once
// vcloe/vision/render.hpp — synthetic stereo images for the virtual rig and for tests.
//
// Markers (spheres) are rendered as their exact perspective silhouettes through the camera
// model, blurred, on a dark background
// with Gaussian sensor noise, into 12-bit images stored as CV_16UC1; markers behind a camera or
// outside an image are simply not (or partly) drawn, occluded markers are left out, and extra
// bright blobs can be added to test their rejection. Chessboards are rendered through the full
// camera model (distortion included) for stereo-calibration tests. Deterministic from a seed.
#include <opencv2/core.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "vcloe/core/settings.hpp"
#include "vcloe/vision/markers.hpp"

namespace vcloe::vision {

struct SpuriousBlob {
  bool in_left = true;   // which image
  Vec2d pixel{0, 0};
  double radius_px = 10;
};

// Ranges of the settings (checked by RenderSettings::validate): 12-bit levels, and a blur a
// marker's few-pixel image can carry (a 1e6 px blur drew each marker for minutes).
inline constexpr double kMaxDn = 4095, kMinBlurPx = 0.1, kMaxBlurPx = 50;
// The noise of camera c (0 left, 1 right) is seeded with 2 seed + c: a seed at most this.
inline constexpr std::uint64_t kMaxRenderSeed = (~std::uint64_t{0} - 1) / 2;

struct RenderSettings {
  double background_dn = 80;        // mean background level (12-bit digital numbers)
  double marker_peak_dn = 3000;     // marker brightness above background
  double blur_sigma_px = 0.8;       // optics + motion blur (Gaussian edge), (0.1, 50] px
  double noise_sigma_dn = 6;        // Gaussian sensor noise, [0, 4095] DN
  std::uint64_t seed = 1;                     // each camera's noise: 2 seed + camera, [0, kMaxRenderSeed]
  std::vector<std::string> occluded;          // marker names hidden in both images
  std::vector<std::string> occluded_left;     // hidden in the left image only
  std::vector<SpuriousBlob> spurious;

  // The first setting out of range ("<key>: expected ..."); validate throws it as vcloe::Error
  // "render settings: <key>: ..." (core/settings.hpp; called by render_markers).
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where = "render settings") const;
};

struct StereoImages {
  cv::Mat left, right;  // CV_16UC1, values 0..4095
};

// Markers seen by one camera, by name: projections of their centres (no noise), projected
// radii, and centres in that camera's coordinates.
struct MarkerView {
  std::vector<std::string> names;
  std::vector<Vec2d> pixels;
  std::vector<double> radii_px;
  std::vector<Vec3d> points_camera;
};

// Projects both bodies' markers (platform at T_O_E, base at the identity) through the rig's
// camera-from-base truth `T_C_O`; only markers in front of the camera and fully inside the image
// are listed. Throws vcloe::Error if the rig has no camera_from_base.
MarkerView view_markers(const StereoRig& rig, const MarkerSet& markers, const Transform& T_O_E, bool left);

StereoImages render_markers(const StereoRig& rig, const MarkerSet& markers, const Transform& T_O_E,
                            const RenderSettings& settings);

// Chessboard with cols x rows inner corners of `square` m, origin at the first inner corner,
// x along cols, in the plane z = 0 of frame B, one white square of margin; seen by `camera` at
// each T_cam_B. 8-bit, 3x3 supersampled, mild blur and noise (seeded). Background grey 90.
struct ChessboardSpec {
  int cols = 9, rows = 6;  // inner corners
  double square = 0.04;    // m
};
std::vector<cv::Mat> render_chessboards(const Camera& camera, const ChessboardSpec& board,
                                        const std::vector<Transform>& T_cam_B, std::uint64_t seed);

}  // namespace vcloe::vision
