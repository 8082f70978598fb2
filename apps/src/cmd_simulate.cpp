// `vcloe simulate`: the twin (modeled drives + our dynamics) under the visual-servo loop,
// written as a pose trace (rig::simulate_to_file; docs/traces.md).
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/rig/runs.hpp"

namespace vcloe::app {

void add_simulate_command(CLI::App& app) {
  auto o = std::make_shared<rig::SimulateOptions>();
  o->model = defaults::robot_file();
  o->experiment = defaults::experiment_file();
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Run the twin (modeled joint PID + our dynamics) under the visual-servo loop and write its pose trace");
  cmd->add_option("--model", o->model, "robot file with the parameters to simulate")->capture_default_str();
  cmd->add_option("--experiment", o->experiment, "timing and outer controller")->capture_default_str();
  cmd->add_option("--reference", o->reference, "trajectory file (docs/trajectory-file.md)")->required();
  cmd->add_option("--precorrection", o->precorrection,
                  "pre-corrected joint command for this reference (vcloe precorrect; docs/control.md)");
  add_out_option(cmd, o->out, "trace CSV to write (docs/traces.md)")->required();
  add_force_flag(cmd, o->force, "overwrite existing output");
  cmd->callback([o] { rig::simulate_to_file(*o); });
}

}  // namespace vcloe::app
