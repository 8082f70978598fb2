// `vcloe vision serve`: the vision role of the live rig, rig::serve_vision (rig/serve.hpp,
// docs/protocol.md "Processes"): the options declared, those the chosen source does not use
// refused, the pose stream served.
#include "camera_option.hpp"
#include "cli_options.hpp"
#include "commands.hpp"
#include "rig_options.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/rig/serve.hpp"

namespace vcloe::app {

void add_vision_command(CLI::App& app) {
  CLI::App* vision = app.add_subcommand("vision", "The vision role of the live rig (docs/protocol.md)");
  vision->require_subcommand(1);
  auto o = std::make_shared<rig::VisionServeOptions>();
  o->experiment = defaults::experiment_file();
  CLI::App* cmd = vision->add_subcommand("serve", "Publish a pose stream: the virtual camera, image pairs or two cameras");
  cmd->add_option("--source", o->source, "virtual | images:DIR | camera:LEFT,RIGHT")->capture_default_str();
  cmd->add_option("--experiment", o->experiment, "timing (the camera rate)")->capture_default_str();
  cmd->add_option("--seed", o->seed, "virtual camera: measurement-noise seed")->capture_default_str();
  cmd->add_option("--noise-position", o->noise_position, "virtual camera: noise sigma per position channel (m)")
      ->capture_default_str();
  cmd->add_option("--noise-angle", o->noise_angle, "virtual camera: noise sigma per angle channel (rad)")
      ->capture_default_str();
  const std::vector<CLI::Option*> stereo_only = add_camera_options(cmd, o->camera);
  cmd->add_option("--rig", o->rig, "images and cameras: calibrated rig file (default config/rig.yaml)");
  cmd->add_option("--markers", o->markers, "images and cameras: marker file (default config/markers.yaml)");
  cmd->add_option("--robot-timeout", o->robot_timeout, "give up when the robot is silent this long (s)")
      ->capture_default_str();
  cmd->add_option("--start-timeout", o->start_timeout, "wait this long for the robot to start (s; at least 3 handshake periods"
                  " (0.015 s) + one camera period + the move to the start: docs/protocol.md, \"Every timeout\")")->capture_default_str();
  add_endpoint_options(cmd, o->endpoints, "cps");
  cmd->get_option("--camera-stream")->description("virtual camera: the virtual robot's true poses (robot serve's --camera-stream)");
  // An option is for the source its help names ("virtual camera:", "images and cameras:").
  std::vector<CLI::Option*> virtual_only = options_declared_for(cmd, "virtual camera:");
  virtual_only.insert(virtual_only.end(), stereo_only.begin(), stereo_only.end());
  virtual_only.push_back(cmd->get_option("--camera"));
  const std::vector<CLI::Option*> images_only = options_declared_for(cmd, "images and cameras:");
  cmd->callback([o, virtual_only, images_only] {
    // An option the chosen source does not use is refused, not ignored.
    const bool is_virtual = o->source == "virtual";
    refuse_unused_options(is_virtual ? images_only : virtual_only, "--source " + o->source,
                          is_virtual ? "images:DIR and camera:L,R" : "virtual");
    rig::serve_vision(*o);
  });
}

}  // namespace vcloe::app
