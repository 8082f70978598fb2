#pragma once
// vcloe/vision/render_pairs.hpp — `vcloe render`: synthetic stereo image pairs of the markers
// along a trajectory (16-bit PNG, 12-bit values) and their true poses as a trace, for the
// virtual rig (docs/vision.md, Rendering).
#include <cstdint>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

#include "vcloe/core/pose_path.hpp"
#include "vcloe/core/settings.hpp"
#include "vcloe/vision/report.hpp"

namespace vcloe::vision {

struct RenderPairsOptions {
  std::string rig, markers, reference;  // rig file with camera_from_base (the truth), markers, trajectory
  std::string out;                      // directory for left_NNNN.png, right_NNNN.png and truth.csv
  int frames = 5;
  double rate = 100, noise_dn = 6, blur_px = 0.8;  // Hz, 12-bit DN, px
  std::vector<std::string> occluded;              // marker names hidden in both images
  std::uint64_t seed = 1;  // frame k's images: RenderSettings::seed = seed * kFrameSeedStride + k
  bool force = false;

  // Every option's range, before any file is read or image allocated (the rig file bounds the
  // image size, kMaxImagePixels), naming the option (core/settings.hpp); validate() then --out,
  // which is the file system.
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where = "") const;
};

// Most pixels one render writes (both images of every frame): 10 Gpx, 400 frames of the default
// 4096x3000 rig, about 6 GB of PNG and some minutes; `--frames 6000` wrote 60 GB in 27 min.
inline constexpr double kMaxRenderPixels = 10e9;

// The frames of one --seed are seeded apart from the next --seed's (more than the most frames,
// 100000): frame k of --seed S is S * kFrameSeedStride + k, at most kMaxRenderSeed, so --seed is
// at most about 9.2e12 (RenderPairsOptions::problem says the bound for the frames given).
inline constexpr std::uint64_t kFrameSeedStride = 1000003;

// Checks the files, the frames against the reference's length, the pixel and disk budget and
// that the cameras see the markers (a warning on `warnings` for frames with fewer than 3 in both
// images), then renders and writes every pair and the truth trace. Report: the line saying so.
Report render_pairs(const RenderPairsOptions& options, const PosePathLoader& load_reference, std::ostream& warnings);

}  // namespace vcloe::vision
