#pragma once
// vcloe/rig/runs.hpp — `vcloe simulate` and `vcloe run` as the command line runs them: one
// reference under the visual-servo loop on the twin or on the virtual robot (hw, with its
// camera), the pose trace written (docs/traces.md), said on stdout, and a warning when the
// robot did not follow its reference.
#include <cstdint>
#include <optional>
#include <string>

#include "vcloe/core/defaults.hpp"
#include "vcloe/oe_ident/payload.hpp"
#include "vcloe/rig/camera.hpp"

namespace vcloe::rig {

struct SimulateOptions {
  std::string model, experiment, reference, out;  // model: robot file with the parameters to simulate
  std::string precorrection;  // a pre-corrected command for this reference (vcloe precorrect), or none
  bool force = false;

  void validate() const;  // the trace and its sidecar: never an input, not over a file without force
};
void simulate_to_file(const SimulateOptions& options);

struct RunOptions {
  std::string robot, truth, experiment, reference, out;  // truth: the virtual robot's (never the twin's)
  std::string precorrection;  // a pre-corrected command for this reference (vcloe precorrect), or none
  std::uint64_t seed = 1;                                // measurement noise
  double noise_position = defaults::kCameraNoisePosition, noise_angle = defaults::kCameraNoiseAngle;
  std::optional<oe_ident::Payload> payload;
  CameraOption camera;
  bool force = false;

  // Every option before any file is read or the robot moves: the camera noise within its bounds
  // (core/defaults.hpp), the camera's options (problem(), pure), then the outputs (validate():
  // the file system). The messages begin with the option (core/settings.hpp).
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where = "") const;
};
void run_virtual_to_file(const RunOptions& options);

}  // namespace vcloe::rig
