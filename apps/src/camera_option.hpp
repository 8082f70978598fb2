#pragma once
// The virtual robot's camera model as a command-line choice (`vcloe run --camera`): Gaussian
// pose noise (hw's default) or the stereo pose pipeline of vision/ on noisy marker centroids
// (docs/vision.md). Composed here, in the rig layer, so hw never depends on vision.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "vcloe/core/trace.hpp"
#include "experiment_setup.hpp"

namespace vcloe::app {

struct CameraOption {
  std::string model = "gaussian";  // gaussian | stereo
  double centroid_noise_px = 0.05;
  std::string rig, markers;        // default: config/rig.yaml, config/markers.yaml

  // Centroid noise in [0, 10] px (as `calibrate base --noise-px`); called by install_camera.
  void validate() const;
};

void add_camera_options(CLI::App* cmd, CameraOption& option);

// Installs the chosen camera into the virtual run (seeded by run.seed) and
// returns what to call on the recorded trace afterwards (adds the camera to its metadata).
std::function<void(PoseTrace&)> install_camera(const CameraOption& option, VirtualRun& run);

}  // namespace vcloe::app
