// `vcloe study`: options declared here, the procedure in vcloe/workflow/study.hpp.
#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/workflow/study.hpp"

namespace vcloe::app {

void add_study_command(CLI::App& app) {
  auto o = std::make_shared<workflow::StudyOptions>();
  o->priors = defaults::robot_file();
  o->config = defaults::identify_file();
  o->experiment = defaults::experiment_file();
  CLI::App* cmd = app.add_subcommand(
      "study",
      "Identification on random virtual robots it was not tuned on: per truth `truth random`, `run` (and with the\n"
      "payload), `identify`, `validate`; one row per truth and the coverage of the reported sigma over all.");
  cmd->add_option("--truths", o->truths, "number of truths")->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of the first truth (then +1, +2, ...)")->capture_default_str();
  cmd->add_option("--dir", o->dir, "output directory (must not exist unless --force)")->capture_default_str();
  cmd->add_flag("--unmodelled", o->unmodelled, "truths with effects the twin does not model (vcloe truth random --unmodelled)");
  cmd->add_option("--n", o->n, "fresh validation trajectories per truth")->capture_default_str();
  cmd->add_option("--reference", o->reference, "excitation trajectory (default: `vcloe excite` once, into --dir)");
  cmd->add_option("--priors", o->priors, "robot file of priors")->capture_default_str();
  cmd->add_option("--config", o->config, "identification settings")->capture_default_str();
  cmd->add_option("--experiment", o->experiment, "timing and outer controller")->capture_default_str();
  add_force_flag(cmd, o->force, "reuse an existing directory, overwriting the study's files in it");
  add_quiet_flag(cmd, o->quiet, "no live line of the step running");
  cmd->callback([o] { workflow::study(*o); });
}

}  // namespace vcloe::app
