// `vcloe study` and `vcloe study merge`: options declared here, the procedures in
// vcloe/workflow/study.hpp.
#include <charconv>
#include <optional>
#include <tuple>
#include <utility>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/workflow/study.hpp"

namespace vcloe::app {

namespace {

// "K/N" as two whole numbers (their range is StudyOptions::problem()'s); nothing otherwise.
std::optional<std::pair<int, int>> shard_of(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  int k = 0, n = 0;
  const char* end = text.data() + text.size();
  const auto a = std::from_chars(text.data(), text.data() + slash, k);
  const auto b = std::from_chars(text.data() + slash + 1, end, n);
  if (slash == 0 || a.ec != std::errc() || a.ptr != text.data() + slash || b.ec != std::errc() || b.ptr != end)
    return std::nullopt;
  return std::pair{k, n};
}

}  // namespace

void add_study_command(CLI::App& app) {
  auto o = std::make_shared<workflow::StudyOptions>();
  o->priors = defaults::robot_file();
  o->config = defaults::identify_file();
  o->experiment = defaults::experiment_file();
  CLI::App* cmd = app.add_subcommand(
      "study",
      "Identification on random virtual robots it was not tuned on: per truth `truth random`, `run` (and with the\n"
      "payload), `identify`, `validate`; one row per truth and the coverage of the reported sigma over all. With\n"
      "--realistic also `calibrate kinematics` and the fit from the calibrated file beside the one from the drawn file.");
  cmd->add_option("--truths", o->truths, "number of truths")->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of the first truth (then +1, +2, ...)")->capture_default_str();
  cmd->add_option("--dir", o->dir, "output directory (must not exist unless --force)")->capture_default_str();
  cmd->add_flag("--unmodelled", o->unmodelled, "truths with effects the twin does not model (vcloe truth random --unmodelled)");
  cmd->add_flag("--far", o->far, "truths far from the priors (vcloe truth random --far)");
  add_realistic_options(cmd, o->departures);  // --realistic: the chain with the calibration (docs/calibration.md)
  const std::pair<const char*, std::pair<double*, const char*>> calibration[] = {
      {"--calibration-move", {&o->calibration.move_s, "time of each move to a static pose (s)"}},
      {"--calibration-settle", {&o->calibration.settle_s, "wait after each move before measuring (s)"}},
      {"--calibration-hold", {&o->calibration.measure_s, "time the camera frames are averaged per pose (s)"}}};
  cmd->add_option("--calibration-poses", o->calibration.count, "with --realistic: static poses of each calibration")
      ->capture_default_str();
  cmd->add_option("--calibration-candidates", o->calibration.candidates,
                  "with --realistic: candidate poses the selection chooses from")->capture_default_str();
  for (const auto& [name, c] : calibration)
    cmd->add_option(name, *c.first, std::string("with --realistic: ") + c.second)->capture_default_str();
  cmd->add_option("--validation-duration", o->validation_duration, "each fresh validation trajectory's duration (s)")
      ->capture_default_str();
  cmd->add_option("--n", o->n, "fresh validation trajectories per truth")->capture_default_str();
  cmd->add_option("--reference", o->reference, "excitation trajectory (default: `vcloe excite` once, into --dir)");
  cmd->add_option("--priors", o->priors, "robot file of priors")->capture_default_str();
  cmd->add_option("--config", o->config, "identification settings")->capture_default_str();
  cmd->add_option("--experiment", o->experiment, "timing and outer controller")->capture_default_str();
  cmd->add_option_function<std::string>(
         "--shard", [o](const std::string& k_of_n) { std::tie(o->shard, o->shards) = *shard_of(k_of_n); },
         "run only the truths k = K-1, K-1+N, ... (e.g. a Slurm job array; join with `study merge`)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            return shard_of(text) ? "" : "expected K/N (whole numbers: this process's share of the truths), got '" + text + "'";
          },
          "K/N"));
  cmd->add_flag("--slurm", o->slurm.enabled,
                "submit the study to Slurm: a job array, one truth per task, then a job that joins their tables in --dir "
                "(docs/identification.md)");
  cmd->add_option("--slurm-option", o->slurm.sbatch_options,
                  "with --slurm: an sbatch option for both jobs, its long name without the dashes: --slurm-option partition=batch "
                  "(repeatable)");
  cmd->add_flag("--wait", o->slurm.wait, "with --slurm: wait for the joined table and print it");
  add_force_flag(cmd, o->force, "reuse an existing directory, overwriting the study's files in it");
  add_quiet_flag(cmd, o->quiet, "no live line of the step running");
  add_study_merge_command(*cmd);
  cmd->callback([o, cmd] {
    if (!cmd->get_subcommands().empty()) return;
    workflow::study(*o);
  });
}

void add_study_merge_command(CLI::App& study) {
  auto o = std::make_shared<workflow::StudyMergeOptions>();
  CLI::App* cmd = study.add_subcommand("merge", "Join the tables of studies run as shards (--shard K/N) into one");
  cmd->add_option("inputs", o->inputs, "study directories (each with its study.json)")->required();
  cmd->add_option("--out", o->out, "directory for the joined study.md and study.json")->required();
  add_force_flag(cmd, o->force, "replace an existing joined table");
  cmd->callback([o] { workflow::study_merge(*o); });
}

}  // namespace vcloe::app
