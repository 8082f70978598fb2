// `vcloe calibrate stereo`: stereo intrinsics and extrinsics from chessboard image pairs, written
// as a rig file (calib::calibrate_stereo_files; docs/vision.md, Stereo calibration).
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/calib/workflows.hpp"

namespace vcloe::app {

void add_calibrate_stereo_command(CLI::App& parent) {
  auto o = std::make_shared<calib::CalibrateStereoOptions>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = parent.add_subcommand(
      "stereo", "Stereo intrinsics and extrinsics from left*/right* chessboard image pairs; writes a rig file");
  cmd->add_option("--images", o->images, "directory of left*/right* images, or a list file of 'LEFT RIGHT' lines")
      ->required();
  cmd->add_option("--board", o->board, "inner corners COLSxROWS, e.g. 9x6")->required();
  cmd->add_option("--square", o->square, "square size (m)")->required();
  add_out_option(cmd, o->out, "rig file to write (docs/vision.md)")->required();
  cmd->add_option("--max-view-rms", o->max_view_rms, "reject views above this per-view RMS (px)")->capture_default_str();
  cmd->add_flag("--fix-k3", o->fix_k3, "estimate k1, k2, p1, p2 only (k3 = 0), for narrow fields of view");
  add_json_flag(cmd, *json, "print the result as JSON");
  add_force_flag(cmd, o->force, "overwrite an existing rig file");
  cmd->callback([o, json] { std::cout << calib::calibrate_stereo_files(*o).print(*json); });
}

}  // namespace vcloe::app
