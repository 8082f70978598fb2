#pragma once
// The virtual robot's camera model as a choice (`vcloe run --camera`): Gaussian pose noise
// (hw's default) or the stereo pose pipeline of vision/ on noisy marker centroids
// (docs/vision.md). Composed here, in the rig layer, so hw never depends on vision.
#include <functional>
#include <string>
#include <vector>

#include "vcloe/core/defaults.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/rig/setup.hpp"

namespace vcloe::rig {

struct CameraOption {
  std::string model = "gaussian";  // gaussian | stereo
  double centroid_noise_px = defaults::kCentroidNoisePx;
  std::string rig, markers;        // empty: the default rig and marker files (core/defaults.hpp)
  // The stereo-only options given (--centroid-noise-px, --camera-rig, --camera-markers): with
  // --camera gaussian they are refused, not ignored.
  std::vector<std::string> stereo_options_given;

  // Centroid noise in [0, 10] px (as `calibrate base --noise-px`); the stereo options only with
  // the stereo camera. Called by install_camera, and by `rig run` before it starts a process.
  // The settings pair (core/settings.hpp); the messages begin with the option.
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where = "") const;
};

// The stereo-only options, in the order they are checked.
inline const std::vector<std::string>& stereo_only_options() {
  static const std::vector<std::string> names = {"--centroid-noise-px", "--camera-rig", "--camera-markers"};
  return names;
}

// Installs the chosen camera into the virtual run (seeded by run.seed) and
// returns what to call on the recorded trace afterwards (adds the camera to its metadata).
std::function<void(PoseTrace&)> install_camera(const CameraOption& option, VirtualRun& run);

}  // namespace vcloe::rig
