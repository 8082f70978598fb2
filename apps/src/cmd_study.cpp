// `vcloe study`: the identification checked on virtual robots it was not tuned on (issue #13;
// docs/identification.md, "Truths it was not tuned on"). Per truth, each step the command a user
// would type, run as a child process with its output in DIR/truth-SEED/: `truth random`, `run`
// without and with the known payload, `identify`, `validate` on fresh trajectories. Then one
// row per truth and the coverage of the reported sigma over all (study_table.hpp), printed and
// written to DIR/study.json and DIR/study.md.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "child_step.hpp"
#include "commands.hpp"
#include "vcloe/rig/setup.hpp"
#include "study_table.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/oe_ident/config.hpp"

namespace vcloe::app {

namespace {

struct StudyOptions {
  std::string dir = "vcloe-study", reference, priors, config, experiment;
  int truths = 10, n = 3;
  std::uint64_t seed = 1;
  bool unmodelled = false, force = false, quiet = false;

  void validate() const {
    if (truths < 1 || truths > 1000) fail("--truths", "expected 1 to 1000 truths, got " + std::to_string(truths));
    if (n < 1 || n > 100) fail("--n", "expected 1 to 100 validation trajectories, got " + std::to_string(n));
    if (std::filesystem::exists(dir) && !std::filesystem::is_directory(dir)) fail(dir, "is a file; --dir names a directory");
    if (std::filesystem::exists(dir) && !force) fail(dir, "exists; pass --force to overwrite the study's files in it");
    // Each file read as its step will read it, before the directory or any step: a trace given
    // as --reference or priors with a negative gain failed inside a child's log.
    (void)sim::load_robot(priors);
    if (!reference.empty()) (void)rig::load_setup(priors, experiment, reference);
    else if (!experiment.empty()) (void)servo::load_experiment(experiment);
    if (!config.empty()) (void)oe_ident::load_identification_config(config);
  }
};


// RMS of measured - twin(truth) per experiment: the noise floor the fit is measured against.
std::vector<std::array<double, 6>> noise_floors(const StudyOptions& o, const std::string& truth,
                                                const std::vector<std::pair<std::string, std::optional<oe_ident::Payload>>>& traces) {
  const rig::ExperimentSetup s = rig::load_setup(truth, o.experiment, o.reference);
  std::vector<std::array<double, 6>> floors;
  for (const auto& [trace, payload] : traces)
    floors.push_back(oe_ident::rms_error(s.model, s.lambda, s.experiment.outer,
                                         rig::to_experiment(s, read_trace(trace), trace, payload), "the truth"));
  return floors;
}

TruthRow study_truth(const StudyOptions& o, const oe_ident::IdentificationConfig& cfg, std::uint64_t seed) {
  const std::string d = o.dir + "/truth-" + std::to_string(seed) + "/";
  create_output_directory(d);
  auto step = [&](const std::string& name, std::vector<std::string> args) {
    if (!o.quiet) std::cerr << "\r  truth " << seed << ": " << name << "        " << std::flush;  // one live line
    if (name != "validate") args.push_back("--force");  // (validate writes no file)
    run_vcloe_step(name + " (truth " + std::to_string(seed) + ")", args, nullptr, {d + name + ".out", d + name + ".err"});
  };
  std::vector<std::string> truth_args = {"truth", "random", "--seed", std::to_string(seed), "--out", d + "truth.yaml",
                                         "--priors", o.priors};
  if (o.unmodelled) truth_args.push_back("--unmodelled");
  step("truth", truth_args);
  const std::vector<std::string> run = {"run", "--truth", d + "truth.yaml", "--robot", o.priors, "--experiment",
                                        o.experiment, "--reference", o.reference};
  auto with = [](std::vector<std::string> a, const std::vector<std::string>& more) {
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  step("run", with(run, {"--seed", "1", "--out", d + "measured.csv"}));
  std::vector<std::string> identify = {"identify", "--measured", d + "measured.csv", "--robot", o.priors, "--config",
                                       o.config, "--out", d + "identified.yaml", "--quiet"};
  std::vector<std::pair<std::string, std::optional<oe_ident::Payload>>> traces = {{d + "measured.csv", std::nullopt}};
  if (cfg.options.anchor.kind == oe_ident::AnchorKind::Payload) {
    const oe_ident::Payload& p = *cfg.payload;
    step("run-payload", with(run, {"--seed", "2", "--payload-mass", exact_number(p.mass), "--payload-inertia",
                                   exact_number(p.inertia(0)), exact_number(p.inertia(1)), exact_number(p.inertia(2)),
                                   "--out", d + "measured-payload.csv"}));
    identify.insert(identify.end(), {"--payload-trace", d + "measured-payload.csv"});
    traces.emplace_back(d + "measured-payload.csv", p);
  }
  step("identify", identify);
  step("validate", {"validate", "--model", d + "identified.yaml", "--truth", d + "truth.yaml", "--experiment",
                    o.experiment, "--n", std::to_string(o.n), "--json"});
  if (!o.quiet) std::cerr << "\r" << std::string(40, ' ') << "\r" << std::flush;
  return make_row(seed, sim::load_robot(d + "truth.yaml").lambda, read_json_file(d + "identified.yaml.report.json"),
                  noise_floors(o, d + "truth.yaml", traces), read_json_file(d + "validate.out"));
}

void run_study(StudyOptions o) {
  o.validate();
  create_output_directory(o.dir);
  const oe_ident::IdentificationConfig cfg = oe_ident::load_identification_config(o.config);
  if (o.reference.empty()) {
    o.reference = o.dir + "/excitation.yaml";
    std::cout << "optimising the default excitation once for all truths (" << o.dir << "/excite.out)\n" << std::flush;
    run_vcloe_step("excite", {"excite", "--robot", o.priors, "--out", o.reference, "--force"}, nullptr,
                   {o.dir + "/excite.out", o.dir + "/excite.err"});
  }
  std::vector<TruthRow> rows;
  for (int k = 0; k < o.truths; ++k) {
    rows.push_back(study_truth(o, cfg, o.seed + static_cast<std::uint64_t>(k)));
    const TruthRow& r = rows.back();
    std::cout << "truth " << r.seed << ": " << r.iterations << " iterations, " << r.seconds << " s, after/floor "
              << r.after_over_floor << ", validation/floor " << r.validation_over_floor << ", " << r.identified
              << " identified, " << r.verdict << "\n"
              << std::flush;
  }
  const StudySummary s = summarise(rows);
  const std::string table = markdown_table(rows, s);
  std::cout << "\n" << table;
  write_file_atomically(o.dir + "/study.md", table, true);
  write_file_atomically(o.dir + "/study.json", study_json(rows, s).dump(2) + "\n", true);
  std::cout << "wrote " << o.dir << "/study.md and " << o.dir << "/study.json\n";
}

}  // namespace

void add_study_command(CLI::App& app) {
  auto o = std::make_shared<StudyOptions>();
  o->priors = default_robot_file();
  o->config = default_config_dir() + "/identify.yaml";
  o->experiment = default_config_dir() + "/experiment.yaml";
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
  cmd->add_flag("--force", o->force, "reuse an existing directory, overwriting the study's files in it");
  cmd->add_flag("--quiet", o->quiet, "no live line of the step running");
  cmd->callback([o] { run_study(*o); });
}

}  // namespace vcloe::app
