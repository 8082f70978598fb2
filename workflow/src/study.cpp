// `vcloe study` (study.hpp).
#include "vcloe/workflow/study.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <utility>

#include "child_step.hpp"
#include "study_reference.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/seed_range.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/oe_ident/config.hpp"
#include "vcloe/report/study.hpp"
#include "vcloe/rig/setup.hpp"
#include "vcloe/workflow/identify.hpp"
#include "vcloe/workflow/study_slurm.hpp"

namespace vcloe::workflow {

std::optional<SettingProblem> StudyOptions::problem() const {
  if (truths < 1 || truths > 1000)
    return SettingProblem{"--truths", "--truths: expected 1 to 1000 truths, got " + std::to_string(truths)};
  if (n < 1 || n > 100)
    return SettingProblem{"--n", "--n: expected 1 to 100 validation trajectories, got " + std::to_string(n)};
  if (shards < 1 || shards > 1000 || shard < 1 || shard > shards)
    return SettingProblem{"--shard", "--shard: expected K/N with 1 <= K <= N <= 1000, got " + std::to_string(shard) + "/" +
                                         std::to_string(shards)};
  if (auto p = seed_range_problem("--seed", seed, static_cast<std::uint64_t>(truths), std::numeric_limits<std::uint64_t>::max() - 1))
    return p;
  if (slurm.enabled) return slurm_problem(*this);
  return std::nullopt;
}

void StudyOptions::validate(const std::string& where) const {
  throw_if(problem(), where);
  if (std::filesystem::exists(dir) && !std::filesystem::is_directory(dir)) fail(dir, "is a file; --dir names a directory");
  if (std::filesystem::exists(dir) && !force) fail(dir, "exists; pass --force to overwrite the study's files in it");
  // Each file read as its step will read it, before the directory or any step: a trace given
  // as --reference or priors with a negative gain failed inside a child's log.
  (void)sim::load_robot(priors);
  if (!reference.empty()) (void)rig::load_setup(priors, experiment, reference);
  else if (!experiment.empty()) (void)servo::load_experiment(experiment);
  if (!config.empty()) (void)oe_ident::load_identification_config(config);
}

namespace {

using report::TruthRow;

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

// The last line of a step's log that is the step's own error ("vcloe: error: " dropped).
std::optional<std::string> step_error(const std::string& log) {
  std::ifstream err(log);
  std::string line, last;
  while (std::getline(err, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  const std::string prefix = "vcloe: error: ";
  if (last.rfind(prefix, 0) != 0) return std::nullopt;
  return last.substr(prefix.size());
}

TruthRow study_truth(const StudyOptions& o, const oe_ident::IdentificationConfig& cfg, std::uint64_t seed) {
  const std::string d = o.dir + "/truth-" + std::to_string(seed) + "/";
  create_output_directory(d);
  auto step = [&](const std::string& name, std::vector<std::string> args) {
    if (!o.quiet) std::cerr << "\r  truth " << seed << ": " << name << "        " << std::flush;  // one live line
    if (name != "validate") args.push_back("--force");  // (validate writes no file)
    try {
      // identify's stuck fit (exit status 4) is a result: the row says "stuck".
      run_vcloe_step(name + " (truth " + std::to_string(seed) + ")", args, nullptr,
                     {d + name + ".out", d + name + ".err", name == "identify" ? kStuckExitStatus : 0});
    } catch (const Error& e) {  // why, in the step's own words
      fail(name, step_error(d + name + ".err").value_or(e.what()));
    }
  };
  std::vector<std::string> truth_args = {"truth", "random", "--seed", std::to_string(seed), "--out", d + "truth.yaml",
                                         "--priors", o.priors};
  if (o.unmodelled) truth_args.push_back("--unmodelled");
  if (o.far) truth_args.push_back("--far");
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
  step("validate", {"validate", "--model", d + "identified.yaml", "--truth", d + "truth.yaml", "--priors", o.priors,
                    "--experiment", o.experiment, "--n", std::to_string(o.n), "--json"});
  if (!o.quiet) std::cerr << "\r" << std::string(40, ' ') << "\r" << std::flush;
  return report::make_row(seed, sim::load_robot(d + "truth.yaml").lambda,
                          report::read_identification_report(d + "identified.yaml.report.json"),
                          noise_floors(o, d + "truth.yaml", traces), report::read_validation(d + "validate.out"));
}

// The table and the JSON as they stand: written after every truth, so that the rows already
// finished are kept whatever stops the study later.
void write_tables(const std::string& dir, const std::vector<TruthRow>& rows) {
  const report::StudySummary s = report::summarise(rows);
  write_file_atomically(dir + "/study.md", report::markdown_table(rows, s), true);
  write_file_atomically(dir + "/study.json", report::study_json(rows, s).dump(2) + "\n", true);
}

}  // namespace

void excite_once(StudyOptions& o) {
  if (!o.reference.empty()) return;
  o.reference = o.dir + "/excitation.yaml";
  std::cout << "optimising the default excitation once for all truths (" << o.dir << "/excite.out)\n" << std::flush;
  run_vcloe_step("excite", {"excite", "--robot", o.priors, "--out", o.reference, "--force"}, nullptr,
                 {o.dir + "/excite.out", o.dir + "/excite.err"});
}

void study(StudyOptions o) {
  if (o.slurm.enabled) return study_on_slurm(std::move(o));
  o.validate();
  create_output_directory(o.dir);
  const oe_ident::IdentificationConfig cfg = oe_ident::load_identification_config(o.config);
  excite_once(o);
  std::vector<TruthRow> rows;
  for (int k = o.shard - 1; k < o.truths; k += o.shards) {
    const std::uint64_t seed = o.seed + static_cast<std::uint64_t>(k);
    try {
      rows.push_back(study_truth(o, cfg, seed));
    } catch (const Error& e) {  // a step stopped: this truth's row says why, the study goes on
      if (!o.quiet) std::cerr << "\r" << std::string(40, ' ') << "\r" << std::flush;
      rows.push_back(report::failed_row(seed, e.what()));
    }
    const TruthRow& r = rows.back();
    if (r.failed.empty())
      std::cout << "truth " << r.seed << ": " << r.iterations << " iterations, " << r.seconds << " s, " << r.cpu_seconds
                << " CPU-s, " << (r.stuck ? "STUCK, " : "") << "after/floor "
                << r.after_over_floor << ", validation/floor " << r.validation_over_floor << ", " << r.identified
                << " identified, " << r.verdict << "\n";
    else
      std::cout << "truth " << r.seed << ": no result: " << r.failed << "\n";
    std::cout << std::flush;
    write_tables(o.dir, rows);
  }
  std::cout << "\n" << report::markdown_table(rows, report::summarise(rows));
  std::cout << "wrote " << o.dir << "/study.md and " << o.dir << "/study.json\n";
}

std::optional<SettingProblem> StudyMergeOptions::problem() const {
  if (inputs.empty()) return SettingProblem{"inputs", "study merge: expected one or more study directories"};
  if (out.empty()) return SettingProblem{"--out", "--out: expected a directory for the merged table"};
  return std::nullopt;
}

void StudyMergeOptions::validate(const std::string& where) const {
  throw_if(problem(), where);
  for (const std::string& in : inputs) require_input_file(in + "/study.json");
  if (std::filesystem::exists(out + "/study.json") && !force) fail(out + "/study.json", "exists; pass --force to replace it");
}

void study_merge(const StudyMergeOptions& o) {
  o.validate();
  std::vector<report::StudyResult> parts;
  for (const std::string& in : o.inputs) parts.push_back(report::read_study(in + "/study.json"));
  std::vector<std::string> names;
  for (const std::string& in : o.inputs) names.push_back(in + "/study.json");
  const std::vector<TruthRow> rows = report::merge_rows(parts, names);
  create_output_directory(o.out);
  write_tables(o.out, rows);
  std::cout << report::markdown_table(rows, report::summarise(rows)) << "wrote " << o.out << "/study.md and " << o.out
            << "/study.json (" << rows.size() << " truths from " << o.inputs.size() << " studies)\n";
}

}  // namespace vcloe::workflow
