#pragma once
// The virtual robot's camera model as a choice (`vcloe run --camera`): Gaussian pose noise
// (hw's default) or the stereo pose pipeline of vision/ on noisy marker centroids
// (docs/vision.md). Composed here, in the rig layer, so hw never depends on vision.
#include <functional>
#include <string>
#include <vector>

#include "vcloe/core/trace.hpp"
#include "vcloe/rig/setup.hpp"

namespace vcloe::rig {

struct CameraOption {
  std::string model = "gaussian";  // gaussian | stereo
  double centroid_noise_px = 0.05;
  std::string rig, markers;        // empty: config_dir/rig.yaml, config_dir/markers.yaml
  std::string config_dir = ".";    // where the default rig and marker files are
  // The stereo-only options given (--centroid-noise-px, --camera-rig, --camera-markers): with
  // --camera gaussian they are refused, not ignored.
  std::vector<std::string> stereo_options_given;

  // Centroid noise in [0, 10] px (as `calibrate base --noise-px`); the stereo options only with
  // the stereo camera. Called by install_camera, and by `rig run` before it starts a process.
  void validate() const;
};

// The stereo-only options, in the order they are checked.
inline const std::vector<std::string>& stereo_only_options() {
  static const std::vector<std::string> names = {"--centroid-noise-px", "--camera-rig", "--camera-markers"};
  return names;
}

// The virtual camera's Gaussian pose noise: [0, 0.01] m and [0, 0.1] rad (1e300 made the engine
// diverge; a noise-free camera, 0, is allowed). `run`, `vision serve`, `rig run`.
void check_camera_noise(double position, double angle);

// Installs the chosen camera into the virtual run (seeded by run.seed) and
// returns what to call on the recorded trace afterwards (adds the camera to its metadata).
std::function<void(PoseTrace&)> install_camera(const CameraOption& option, VirtualRun& run);

}  // namespace vcloe::rig
