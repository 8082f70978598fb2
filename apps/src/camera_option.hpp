#pragma once
// The virtual robot's camera model as command-line options (`vcloe run --camera`, `vision
// serve`, `rig run`); the camera itself is composed in rig/camera.hpp.
#include <CLI/CLI.hpp>
#include <vector>

#include "vcloe/rig/camera.hpp"

namespace vcloe::app {

// Adds --camera and the stereo-only options and records each stereo-only option given (refused with --camera gaussian by validate()).
// Returns the stereo-only options.
std::vector<CLI::Option*> add_camera_options(CLI::App* cmd, rig::CameraOption& option);

}  // namespace vcloe::app
