// `vcloe validate`: options declared here, the procedure in vcloe/workflow/validate.hpp.
#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/workflow/validate.hpp"

namespace vcloe::app {

void add_validate_command(CLI::App& app) {
  auto o = std::make_shared<workflow::ValidateOptions>();
  o->truth = defaults::truth_file();
  o->priors = defaults::robot_file();
  o->config = defaults::identify_file();
  o->experiment = defaults::experiment_file();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Validate an identified model on fresh random feasible trajectories run on the virtual robot: per-axis RMS\n"
      "against the noise floor (Table 4 form); with --reidentify, the spread of the parameters when each\n"
      "trajectory is used for identification (Table 5 form).");
  cmd->add_option("--model", o->model, "identified robot file (vcloe identify --out)")->required();
  cmd->add_option("--n", o->n, "number of trajectories")->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of the first trajectory (then +1, +2, ...)")->capture_default_str();
  cmd->add_option("--duration", o->duration, "each trajectory's duration (s)")->capture_default_str();
  cmd->add_option("--truth", o->truth, "the virtual robot's truth file")->capture_default_str();
  cmd->add_option("--experiment", o->experiment, "timing and outer controller")->capture_default_str();
  cmd->add_flag("--reidentify", o->reidentify, "identify on each trajectory too (about a minute each)");
  cmd->add_option("--priors", o->priors, "robot file the model was identified on: its geometry is the model's (and the priors for --reidentify)")->capture_default_str();
  cmd->add_option("--config", o->config, "with --reidentify: identification settings")->capture_default_str();
  add_json_flag(cmd, o->json, "print the result as JSON");
  add_out_option(cmd, o->out, "also write the JSON result to this file (for vcloe report)");
  add_quiet_flag(cmd, o->quiet, "no progress line per trajectory");
  add_force_flag(cmd, o->force, "overwrite an existing --out file");
  cmd->callback([o] { workflow::validate(*o); });
}

}  // namespace vcloe::app
