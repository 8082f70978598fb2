// `vcloe measure`: platform poses T_O_E from stereo image pairs through the pose pipeline, with
// error statistics against a true trace (calib::measure_folder; docs/vision.md, Pipeline).
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/calib/measure.hpp"

namespace vcloe::app {

void add_measure_command(CLI::App& app) {
  auto o = std::make_shared<calib::MeasureOptions>();
  auto json = std::make_shared<bool>(false);
  o->rig = defaults::rig_file();
  o->markers = defaults::markers_file();
  CLI::App* cmd = app.add_subcommand("measure", "Platform poses T_O_E from stereo image pairs (left*/right*, name order)");
  cmd->add_option("--images", o->images, "directory of left*/right* image pairs, or a list file")->required();
  cmd->add_option("--rig", o->rig, "calibrated rig file (with camera_from_base)")->capture_default_str();
  cmd->add_option("--markers", o->markers, "marker file")->capture_default_str();
  cmd->add_option("--rate", o->rate, "frame rate (Hz): frame N (the number in the image names, else the\n"
                                      "pair's position in name order) is at time N / rate")->capture_default_str();
  cmd->add_option("--max-fre-mm", o->max_fre_mm, "poses with a larger registration error are invalid (mm)")
      ->capture_default_str();
  cmd->add_flag("--base-per-frame", o->base_per_frame, "T_C_O from each frame's base markers, not the rig file");
  cmd->add_option("--truth", o->truth, "trace of the true poses (e.g. from vcloe render): error statistics");
  add_out_option(cmd, o->out, "trace CSV of the valid poses (docs/traces.md)");
  add_json_flag(cmd, *json, "print per-frame results as JSON");
  add_force_flag(cmd, o->force, "overwrite an existing trace");
  cmd->callback([o, json] { std::cout << calib::measure_folder(*o).print(*json); });
}

}  // namespace vcloe::app
