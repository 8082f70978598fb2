// `vcloe render`: synthetic stereo image pairs of the markers along a trajectory (16-bit PNG)
// and their true poses as a trace, for the virtual rig (vision::render_pairs; docs/vision.md,
// Rendering).
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/excitation/pose_path.hpp"
#include "vcloe/vision/render_pairs.hpp"

namespace vcloe::app {

void add_render_command(CLI::App& app) {
  auto o = std::make_shared<vision::RenderPairsOptions>();
  o->rig = defaults::rig_file();
  o->markers = defaults::markers_file();
  o->reference = defaults::reference_file();
  CLI::App* cmd = app.add_subcommand(
      "render", "Write synthetic stereo image pairs of the markers along a trajectory (16-bit PNG) and their true poses");
  cmd->add_option("--rig", o->rig, "rig file with camera_from_base (the truth)")->capture_default_str();
  cmd->add_option("--markers", o->markers, "marker file")->capture_default_str();
  cmd->add_option("--reference", o->reference, "trajectory the platform follows")->capture_default_str();
  add_out_option(cmd, o->out, "directory for left_NNNN.png, right_NNNN.png and truth.csv")->required();
  cmd->add_option("--frames", o->frames, "number of frames")->capture_default_str();
  cmd->add_option("--rate", o->rate, "frame rate (Hz)")->capture_default_str();
  cmd->add_option("--noise-dn", o->noise_dn, "sensor noise sigma (12-bit DN)")->capture_default_str();
  cmd->add_option("--blur-px", o->blur_px, "blur sigma (px)")->capture_default_str();
  cmd->add_option("--occlude", o->occluded, "marker names hidden in both images");
  cmd->add_option("--seed", o->seed, "noise seed")->capture_default_str();
  add_force_flag(cmd, o->force, "overwrite existing files");
  cmd->callback([o] { std::cout << vision::render_pairs(*o, excitation::load_pose_path, std::cerr).text; });
}

}  // namespace vcloe::app
