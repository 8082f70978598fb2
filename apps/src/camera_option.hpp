#pragma once
// The virtual robot's camera model as a command-line choice (`vcloe run --camera`): Gaussian
// pose noise (hw's default) or the stereo pose pipeline of vision/ on noisy marker centroids
// (docs/vision.md). Composed here, in the rig layer, so hw never depends on vision.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "vcloe/core/trace.hpp"
#include "experiment_setup.hpp"

namespace vcloe::app {

struct CameraOption {
  std::string model = "gaussian";  // gaussian | stereo
  double centroid_noise_px = 0.05;
  std::string rig, markers;        // default: config/rig.yaml, config/markers.yaml
  std::vector<CLI::Option*> stereo_only;  // given with --camera gaussian: refused, not ignored

  // Centroid noise in [0, 10] px (as `calibrate base --noise-px`); the stereo options only with
  // the stereo camera. Called by install_camera, and by `rig run` before it starts a process.
  void validate() const;
};

// The virtual camera's Gaussian pose noise: [0, 0.01] m and [0, 0.1] rad (1e300 made the engine
// diverge; a noise-free camera, 0, is allowed). `run`, `vision serve`, `rig run`.
void check_camera_noise(double position, double angle);

void add_camera_options(CLI::App* cmd, CameraOption& option);

// Installs the chosen camera into the virtual run (seeded by run.seed) and
// returns what to call on the recorded trace afterwards (adds the camera to its metadata).
std::function<void(PoseTrace&)> install_camera(const CameraOption& option, VirtualRun& run);

}  // namespace vcloe::app
