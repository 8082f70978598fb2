// `vcloe calibrate base`: the camera-to-base transform T_C_O from the base markers, cross-checked
// by robot-world/hand-eye calibration (calib::calibrate_base_workflow; docs/vision.md,
// Camera-to-base).
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/calib/workflows.hpp"
#include "vcloe/excitation/pose_path.hpp"

namespace vcloe::app {

void add_calibrate_base_command(CLI::App& parent) {
  auto o = std::make_shared<calib::CalibrateBaseOptions>();
  auto json = std::make_shared<bool>(false);
  o->rig = defaults::rig_file();
  o->markers = defaults::markers_file();
  o->reference = defaults::reference_file();
  CLI::App* cmd = parent.add_subcommand(
      "base",
      "Camera-to-base transform T_C_O from the base markers, cross-checked by robot-world/hand-eye calibration");
  cmd->add_option("--rig", o->rig, "rig file (its camera_from_base is the virtual rig's truth)")->capture_default_str();
  cmd->add_option("--markers", o->markers, "marker file")->capture_default_str();
  cmd->add_option("--images", o->images, "directory of left*/right* marker image pairs (default: the virtual rig)");
  cmd->add_option("--commanded", o->commanded,
                  "with --images: trace whose reference (else measured) poses were commanded for each pair, in "
                  "name order (enables the hand-eye cross-check)");
  cmd->add_option("--reference", o->reference, "without --images (the virtual rig): trajectory the hand-eye poses are taken from")
      ->capture_default_str();
  cmd->add_option("--frames", o->frames, "without --images (the virtual rig): frames of the base markers to average")->capture_default_str();
  cmd->add_option("--poses", o->poses, "without --images (the virtual rig): robot poses for the hand-eye cross-check")->capture_default_str();
  cmd->add_option("--noise-px", o->noise_px, "without --images (the virtual rig): centroid noise sigma (px)")->capture_default_str();
  cmd->add_option("--seed", o->seed, "without --images (the virtual rig): noise seed")->capture_default_str();
  add_out_option(cmd, o->out, "rig file to write with the estimated camera_from_base");
  add_json_flag(cmd, *json, "print the result as JSON");
  add_force_flag(cmd, o->force, "overwrite an existing rig file");
  cmd->callback([o, json] {
    std::cout << calib::calibrate_base_workflow(*o, excitation::load_pose_path).print(*json);
  });
}

}  // namespace vcloe::app
