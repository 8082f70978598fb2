// `vcloe simulate`: the twin (modeled drives + our dynamics) under the visual-servo loop,
// written as a pose trace (docs/traces.md).
#include <iostream>

#include "commands.hpp"
#include "vcloe/rig/setup.hpp"

namespace vcloe::app {

void add_simulate_command(CLI::App& app) {
  struct Options {
    std::string model, experiment, reference, out;
    bool force = false;
  };
  auto o = std::make_shared<Options>();
  o->model = default_robot_file();
  o->experiment = default_config_dir() + "/experiment.yaml";
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Run the twin (modeled joint PID + our dynamics) under the visual-servo loop and write its pose trace");
  cmd->add_option("--model", o->model, "robot file with the parameters to simulate")->capture_default_str();
  cmd->add_option("--experiment", o->experiment, "timing and outer controller")->capture_default_str();
  cmd->add_option("--reference", o->reference, "trajectory file (docs/trajectory-file.md)")->required();
  cmd->add_option("--out", o->out, "trace CSV to write (docs/traces.md)")->required();
  cmd->add_flag("--force", o->force, "overwrite existing output");
  cmd->callback([o] {
    check_output_path(o->out, o->force, {o->model, o->experiment, o->reference});
    check_output_path(sidecar_path(o->out), o->force, {o->model, o->experiment, o->reference});
    const rig::ExperimentSetup s = rig::load_setup(o->model, o->experiment, o->reference);
    const PoseTrace t = rig::twin_trace(s, s.lambda);
    write_trace(o->out, t, o->force);
    rig::print_written(o->out, t);
    rig::warn_if_not_following(t, o->out);
  });
}

}  // namespace vcloe::app
