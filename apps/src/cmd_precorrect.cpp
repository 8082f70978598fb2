// `vcloe precorrect`: the pre-corrected joint command for a reference through the inverse of the
// model's drive law (workflow::precorrect_to_file; docs/control.md), for run/simulate --precorrection.
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/workflow/control.hpp"

namespace vcloe::app {

void add_precorrect_command(CLI::App& app) {
  struct Options : workflow::PrecorrectOptions {
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  o->robot = defaults::robot_file();
  o->experiment = defaults::experiment_file();
  CLI::App* cmd = app.add_subcommand(
      "precorrect", "The pre-corrected joint command for a reference (inverse dynamics through the inverse drive law)");
  cmd->add_option("--model", o->model, "robot file with the parameters (identified model)")->required();
  cmd->add_option("--robot", o->robot, "the robot's file: the model must be of its geometry")->capture_default_str();
  cmd->add_option("--experiment", o->experiment, "timing and outer controller")->capture_default_str();
  cmd->add_option("--reference", o->reference, "trajectory file (docs/trajectory-file.md)")->required();
  add_out_option(cmd, o->out, "CSV of the command; its sidecar .meta.json beside it")->required();
  add_json_flag(cmd, o->json);
  add_force_flag(cmd, o->force);
  cmd->callback([o] { std::cout << workflow::precorrect_to_file(*o).print(o->json); });
}

}  // namespace vcloe::app
