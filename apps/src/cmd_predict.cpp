// `vcloe predict`: the drive torques and each leg's joint forces along a reference from a model,
// with its identification's sigma band (workflow::predict_to_file; docs/control.md).
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/workflow/control.hpp"

namespace vcloe::app {

void add_predict_command(CLI::App& app) {
  struct Options : workflow::PredictOptions {
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  o->robot = defaults::robot_file();
  o->experiment = defaults::experiment_file();
  CLI::App* cmd = app.add_subcommand(
      "predict", "Drive torques and joint constraint forces along a reference from a model, with its sigma band");
  cmd->add_option("--model", o->model, "robot file with the parameters (its .report.json gives sigma)")->required();
  cmd->add_option("--robot", o->robot, "the robot's file: the model must be of its geometry")->capture_default_str();
  cmd->add_option("--experiment", o->experiment, "timing (the camera period is the default sample period)")
      ->capture_default_str();
  cmd->add_option("--reference", o->reference, "trajectory file (docs/trajectory-file.md)")->required();
  cmd->add_option("--period", o->period, "s between samples (0: the camera period)")->capture_default_str();
  add_out_option(cmd, o->out, "CSV of the prediction and its sidecar <out>.meta.json (docs/control.md; vcloe report --prediction)");
  add_json_flag(cmd, o->json);
  add_force_flag(cmd, o->force);
  cmd->callback([o] { std::cout << workflow::predict_to_file(*o).print(o->json); });
}

}  // namespace vcloe::app
