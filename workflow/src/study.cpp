// `vcloe study` (study.hpp).
#include "vcloe/workflow/study.hpp"
#include "vcloe/core/sealed_json.hpp"

#include <ctime>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <utility>

#include "child_step.hpp"
#include "study_files.hpp"
#include "study_reference.hpp"
#include "vcloe/core/defaults.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/core/seed_range.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/oe_ident/config.hpp"
#include "vcloe/core/rotation.hpp"
#include "vcloe/report/calibration.hpp"
#include "vcloe/report/study.hpp"
#include "vcloe/rig/setup.hpp"
#include "vcloe/workflow/calibrate_kinematics.hpp"
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
  if (shard > truths)  // truths k = shard, shard + shards, ...: none; a study of nothing is no study
    return SettingProblem{"--shard", "--shard: shard " + std::to_string(shard) + "/" + std::to_string(shards) + " of --truths " +
                                         std::to_string(truths) + " holds no truth (expected K <= " + std::to_string(truths) + ")"};
  if (auto p = seed_range_problem("--seed", seed, static_cast<std::uint64_t>(truths), std::numeric_limits<std::uint64_t>::max() - 1))
    return p;
  if (departures.realistic) {
    if (auto p = departures.problem()) return p;
    CalibrateKinematicsOptions c = calibration;  // its counts and timings, said as this command's options
    c.robot = c.truth = c.measure_out = "-";
    if (auto p = c.problem()) {
      const std::string option = p->message.substr(0, p->message.find(':'));
      const std::map<std::string, std::string> ours = {{"--count", "--calibration-poses"}, {"--candidates", "--calibration-candidates"},
                                                       {"--move", "--calibration-move"}, {"--settle", "--calibration-settle"},
                                                       {"--hold", "--calibration-hold"}};
      const std::string name = ours.count(option) ? ours.at(option) : option;
      return SettingProblem{name, name + p->message.substr(option.size())};
    }
  }
  if (!(validation_duration >= 1 && validation_duration <= 600))
    return SettingProblem{"--validation-duration", "--validation-duration: expected 1 to 600 s, got " + exact_number(validation_duration)};
  if (slurm.enabled) return slurm_problem(*this);
  return std::nullopt;
}

OutputDirectory StudyOptions::validate(const std::string& where) const {
  throw_if(problem(), where);
  OutputDirectory claimed(dir, force, "--dir", "the study's files");  // removed again if a check below refuses
  // Each file read as its step will read it, before the directory or any step: a trace given
  // as --reference or priors with a negative gain failed inside a child's log.
  (void)sim::load_robot(priors);
  if (!reference.empty()) (void)rig::load_setup(priors, experiment, reference);
  else if (!experiment.empty()) (void)servo::load_experiment(experiment);
  if (!config.empty()) (void)oe_ident::load_identification_config(config);
  // The one input/output check, before the directory or any step: every file the study and its
  // steps will write (study_plan) against every file it reads.
  study_plan(*this).check();
  return claimed;
}

namespace {

using report::TruthRow;

using Traces = std::vector<std::pair<std::string, std::optional<oe_ident::Payload>>>;

// RMS of measured - twin(truth) per experiment: the noise floor the fit is measured against. The
// twin of the truth itself (its geometry, encoder offsets, marker frame and latency offset) under
// the controller the runs had: the priors' (drawn) robot file's.
std::vector<std::array<double, 6>> noise_floors(const StudyOptions& o, const std::string& truth, const Traces& traces) {
  const rig::ExperimentSetup s = rig::load_setup(truth, o.experiment, o.reference, o.priors);
  const double latency = hw::load_virtual_rig(truth).latency_offset;
  std::vector<std::array<double, 6>> floors;
  for (const auto& [trace, payload] : traces)
    floors.push_back(oe_ident::rms_error(s.model, s.lambda, s.experiment.outer,
                                         rig::to_experiment(s, read_trace(trace), trace, payload), "the truth", latency));
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

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

// One truth's chain: its directory and its steps, each a child process (`vcloe NAME ...`).
struct TruthChain {
  const StudyOptions& o;
  std::uint64_t seed;
  TruthFiles f;  // DIR/truth-SEED/

  void step(const std::string& name, std::vector<std::string> args) const {
    if (!o.quiet) std::cerr << "\r  truth " << seed << ": " << name << "        " << std::flush;  // one live line
    const bool identify = name.rfind(kIdentifyStep, 0) == 0;
    if (name.rfind(kValidateStep, 0) != 0) args.push_back("--force");  // (validate writes no file)
    try {
      // identify's stuck fit (exit status 4) is a result: the row says "stuck".
      run_vcloe_step(name + " (truth " + std::to_string(seed) + ")", args, nullptr,
                     {f.log(name), f.errors(name), identify ? kStuckExitStatus : 0});
    } catch (const Error& e) {  // why, in the step's own words
      fail(name, step_error(f.errors(name)).value_or(e.what()));
    }
  }

  // identify from `robot` (the drawn file, or the calibrated one: suffix "-calibrated"), then
  // validate its model on fresh trajectories; the fit's figures against the truth and the floors.
  report::FitFigures fit(const std::string& suffix, const std::string& robot, const Traces& traces,
                         const std::vector<std::array<double, 6>>& floors) const {
    const std::string model = f.model(suffix);
    std::vector<std::string> identify = {"identify", "--measured", traces[0].first, "--robot", robot, "--config",
                                         o.config, "--out", model, "--quiet"};
    if (traces.size() > 1) identify = identify + std::vector<std::string>{"--payload-trace", traces[1].first};
    step(kIdentifyStep + suffix, identify);
    step(kValidateStep + suffix, {"validate", "--model", model, "--truth", f.truth(), "--priors", o.priors,
                               "--experiment", o.experiment,
                               "--n", std::to_string(o.n), "--duration", exact_number(o.validation_duration), "--json"});
    return report::make_fit("identify report of truth " + std::to_string(seed), sim::load_robot(f.truth()).lambda,
                            report::read_identification_report(model + ".report.json"), floors,
                            report::read_validation(f.log(kValidateStep + suffix)));
  }

  // The kinematic calibration of the truth from the drawn file (the library call of `vcloe
  // calibrate kinematics`), its camera-to-base residual the truth's; its text in calibrate.out.
  report::CalibrationFigures calibrate() const {
    if (!o.quiet) std::cerr << "\r  truth " << seed << ": calibrate kinematics        " << std::flush;
    CalibrateKinematicsOptions c = o.calibration;  // its count, candidates and timings
    c.robot = o.priors, c.truth = f.truth(), c.measure_out = f.static_poses(), c.out = f.calibrated();
    c.poses.clear(), c.result = f.calibration(), c.seed = seed, c.force = true, c.quiet = true;
    // The truth holds the pose of the camera's base frame O' in O; the measurement takes O in O'.
    const Vec6d o_in_camera = Rigid<double>::of(hw::load_virtual_rig(c.truth).camera_from_base_error).inverse().pose();
    c.camera_residual.assign(o_in_camera.data(), o_in_camera.data() + 6);
    const std::clock_t cpu = std::clock();  // this process's: the selection, the measurement and the fit
    try {
      write_file_atomically(f.calibration_log(), calibrate_kinematics_files(c).text, true);
    } catch (const Error& e) {
      fail("calibrate kinematics", e.what());
    }
    const double cpu_seconds = static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC;
    return {report::read_calibration_report(c.result).residual.ratio, cpu_seconds};
  }
};

TruthRow study_truth(const StudyOptions& o, const oe_ident::IdentificationConfig& cfg, std::uint64_t seed) {
  const TruthChain chain{o, seed, TruthFiles(o.dir, seed)};
  const TruthFiles& f = chain.f;
  create_inner_directory(f.dir);
  std::vector<std::string> truth_args = {"truth", "random", "--seed", std::to_string(seed), "--out", f.truth(),
                                         "--priors", o.priors};
  if (o.unmodelled) truth_args.push_back("--unmodelled");
  if (o.far) truth_args.push_back("--far");
  chain.step(kTruthStep, truth_args + realistic_words(o));
  const std::vector<std::string> run = {"run", "--truth", f.truth(), "--robot", o.priors, "--experiment",
                                        o.experiment, "--reference", o.reference};
  chain.step(kRunStep, run + std::vector<std::string>{"--seed", "1", "--out", f.measured()});
  Traces traces = {{f.measured(), std::nullopt}};
  if (cfg.options.anchor.kind == oe_ident::AnchorKind::Payload) {
    const oe_ident::Payload& p = *cfg.payload;
    chain.step(kRunPayloadStep, run + std::vector<std::string>{"--seed", "2", "--payload-mass", exact_number(p.mass),
                                                               "--payload-inertia", exact_number(p.inertia(0)),
                                                               exact_number(p.inertia(1)), exact_number(p.inertia(2)),
                                                               "--out", f.measured_payload()});
    traces.emplace_back(f.measured_payload(), p);
  }
  const std::vector<std::array<double, 6>> floors = noise_floors(o, f.truth(), traces);
  TruthRow row;
  row.seed = seed;
  if (!o.departures.realistic) {  // one fit: its failure is the row's
    static_cast<report::FitFigures&>(row) = chain.fit("", o.priors, traces, floors);
    if (!o.quiet) std::cerr << "\r" << std::string(40, ' ') << "\r" << std::flush;
    return row;
  }
  row.calibration = chain.calibrate();  // the static poses: the robot's next motion
  row.latency_truth = hw::load_virtual_rig(f.truth()).latency_offset;
  // The two fits in turn, each failure its own line's "no result": the other fit still stands.
  auto fit_or_why = [&](const std::string& suffix, const std::string& robot) {
    try {
      return chain.fit(suffix, robot, traces, floors);
    } catch (const Error& e) {
      return report::failed_fit(e.what());
    }
  };
  static_cast<report::FitFigures&>(row) = fit_or_why("", o.priors);
  row.calibrated = fit_or_why(kCalibrated, f.calibrated());
  if (!o.quiet) std::cerr << "\r" << std::string(40, ' ') << "\r" << std::flush;
  return row;
}

// The table and the JSON as they stand: written after every truth, so that the rows already
// finished are kept whatever stops the study later.
// `force`: whether a table already there may be replaced (the study's own, after its first truth).
void write_tables(const std::string& dir, const std::vector<TruthRow>& rows, const report::StudySettings& settings, bool force) {
  const report::StudySummary s = report::summarise(rows);
  // One pair, written together: never the table of one state beside the JSON of another.
  const StudyFiles files{dir};
  write_files_atomically({{files.json(), sealed_json_text(report::study_json(rows, s, settings), files.json())},
                          {files.table(), report::markdown_table(rows, s)}},
                         force);
}

}  // namespace

report::StudySettings study_settings(const StudyOptions& o) {
  auto hash = [](const std::string& file) { return file.empty() ? std::string("(none)") : sha256_file(file); };
  std::string family;
  for (const std::string& w : std::vector<std::string>{o.unmodelled ? "--unmodelled" : "", o.far ? "--far" : ""} +
                                  realistic_words(o))
    if (!w.empty()) family += (family.empty() ? "" : " ") + w;
  report::StudySettings s = {
      {"seeds", std::to_string(o.seed) + " to " + std::to_string(o.seed + static_cast<std::uint64_t>(o.truths) - 1)},
      {"shards", std::to_string(o.shards)},
      {"truth_family", family.empty() ? "(truth random's own)" : family},
      {"priors_sha256", hash(o.priors)},
      {"reference_sha256", hash(o.reference)},
      {"experiment_sha256", hash(o.experiment)},
      {"identification_sha256", hash(o.config)},
      {"camera_noise", exact_number(defaults::kCameraNoisePosition) + " m, " + exact_number(defaults::kCameraNoiseAngle) +
                           " rad (run's; seeds 1 and 2)"},
      {"validation", std::to_string(o.n) + " trajectories of " + exact_number(o.validation_duration) + " s"}};
  if (o.departures.realistic) {
    const CalibrateKinematicsOptions& c = o.calibration;
    s["calibration"] = std::to_string(c.count) + " poses of " + std::to_string(c.candidates) + " candidates, move " +
                       exact_number(c.move_s) + " s, settle " + exact_number(c.settle_s) + " s, hold " +
                       exact_number(c.measure_s) + " s";
  }
  return s;
}

std::vector<std::string> realistic_words(const StudyOptions& o) {
  const hw::TruthFamily& f = o.departures;
  if (!f.realistic) return {};
  std::vector<std::string> w = {"--realistic"};
  const std::pair<const char*, double> magnitudes[] = {
      {"--geometry", f.geometry},          {"--encoder", f.encoder},           {"--marker-position", f.marker_position},
      {"--marker-angle", f.marker_angle},  {"--base-position", f.base_position}, {"--base-angle", f.base_angle},
      {"--latency-low", f.latency_low},    {"--latency-high", f.latency_high}, {"--latency-jitter", f.latency_jitter},
      {"--com", f.com}};
  for (const auto& [name, value] : magnitudes) w.insert(w.end(), {name, exact_number(value)});
  return w;
}

void excite_once(StudyOptions& o) {
  if (!o.reference.empty()) return;
  const StudyFiles files{o.dir};
  o.reference = files.excitation();
  std::cout << "optimising the default excitation once for all truths (" << files.excite_log() << ")\n" << std::flush;
  run_vcloe_step("excite", {"excite", "--robot", o.priors, "--out", o.reference, "--force"}, nullptr,
                 {files.excite_log(), files.excite_errors()});
}

void study(StudyOptions o) {
  if (o.slurm.enabled) return study_on_slurm(std::move(o));
  const OutputDirectory dir = o.validate();
  const oe_ident::IdentificationConfig cfg = oe_ident::load_identification_config(o.config);
  excite_once(o);
  const report::StudySettings settings = study_settings(o);  // the reference is the excitation's now
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
    auto line = [](const report::FitFigures& f) {
      if (!f.no_result.empty()) return "no result: " + f.no_result;
      std::ostringstream l;
      l << f.iterations << " iterations, " << f.seconds << " s, " << f.cpu_seconds << " CPU-s, "
        << (f.stuck ? "STUCK, " : "") << "after/floor " << f.after_over_floor << ", validation/floor "
        << f.validation_over_floor << ", " << f.identified << " identified, " << f.verdict;
      return l.str();
    };
    if (r.failed.empty())
      std::cout << "truth " << r.seed << ": " << (r.calibrated ? "drawn: " : "") << line(r)
                << (r.calibrated ? "; calibrated: " + line(*r.calibrated) : "") << "\n";
    else
      std::cout << "truth " << r.seed << ": no result: " << r.failed << "\n";
    std::cout << std::flush;
    write_tables(o.dir, rows, settings, o.force || rows.size() > 1);  // after the first: its own tables
  }
  std::cout << "\n" << report::markdown_table(rows, report::summarise(rows));
  std::cout << "wrote " << StudyFiles{o.dir}.table() << " and " << StudyFiles{o.dir}.json() << "\n";
  if (std::none_of(rows.begin(), rows.end(), [](const TruthRow& r) {
        return r.failed.empty() && (r.no_result.empty() || (r.calibrated && r.calibrated->no_result.empty()));
      }))
    fail(StudyFiles{o.dir}.table(), "no truth has a result (its table says why for each): nothing was measured");
}

std::optional<SettingProblem> StudyMergeOptions::problem() const {
  if (inputs.empty()) return SettingProblem{"inputs", "study merge: expected one or more study directories"};
  if (out.empty()) return SettingProblem{"--out", "--out: expected a directory for the merged table"};
  return std::nullopt;
}

OutputDirectory StudyMergeOptions::validate(const std::string& where) const {
  throw_if(problem(), where);
  for (const std::string& in : inputs) require_input_file(StudyFiles{in}.json());
  // The one input/output check: a shard's table is an input, never replaced even with --force —
  // said first, before --out is claimed (which would advise --force over an input).
  const StudyFiles joined{out};
  IoPlan plan(force);
  for (const std::string& in : inputs) plan.input(StudyFiles{in}.json(), "the table of a study merged");
  plan.planned(joined.table(), "the joined table of --out").planned(joined.json(), "the joined table of --out").check();
  OutputDirectory claimed(out, force, "--out", "the joined tables");
  IoPlan(force).output(joined.table(), "the joined table of --out").output(joined.json(), "the joined table of --out").check();
  return claimed;
}

void study_merge(const StudyMergeOptions& o) {
  const OutputDirectory out = o.validate();
  std::vector<report::StudyResult> parts;
  for (const std::string& in : o.inputs) parts.push_back(report::read_study(StudyFiles{in}.json()));
  std::vector<std::string> names;
  for (const std::string& in : o.inputs) names.push_back(StudyFiles{in}.json());
  report::StudySettings settings = report::common_settings(parts, names);  // one study's shards
  if (settings.empty())
    std::cerr << "vcloe: warning: " << names[0] << (names.size() > 1 ? " and the others record" : " records")
              << " no settings (written by an older vcloe): that their rows are of one study is not checked\n";
  const std::vector<TruthRow> rows = report::merge_rows(parts, names);
  if (!settings.empty())  // the truths the merged study holds, whichever part ran each (report::kTruthSelection)
    settings["seeds"] = report::seeds_of(rows), settings["shards"] = std::to_string(o.inputs.size()) + " studies merged";
  write_tables(o.out, rows, settings, o.force);
  std::cout << report::markdown_table(rows, report::summarise(rows)) << "wrote " << StudyFiles{o.out}.table() << " and "
            << StudyFiles{o.out}.json() << " (" << rows.size() << " truths from " << o.inputs.size() << " studies)\n";
}

}  // namespace vcloe::workflow
