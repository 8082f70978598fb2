// `vcloe identify` from files (identify.hpp).
#include "vcloe/workflow/identify.hpp"
#include "vcloe/core/sealed_json.hpp"
#include "vcloe/core/input_file.hpp"

#include <glog/logging.h>

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <tuple>
#include <iostream>
#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/rig/checked_trace.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/core/provenance.hpp"
#include "vcloe/core/trace_compare.hpp"
#include "vcloe/oe_ident/config.hpp"
#include "vcloe/oe_ident/payload.hpp"
#include "vcloe/report/html.hpp"
#include "vcloe/servo/timing.hpp"
#include "vcloe/workflow/report.hpp"
#include "vcloe/oe_ident/plausible.hpp"

namespace vcloe::workflow {

namespace {

std::string recorded_path(const PoseTrace& t, const std::string& key, const std::string& trace_file) {
  const std::optional<RecordedFile> f = recorded_file(t, key, trace_file);
  if (!f && !t.has_sidecar)
    fail(trace_file, "has no sidecar recording its " + key + " file (" + sidecar_path(trace_file) + "); pass --" + key);
  if (!f) fail(trace_file, "its sidecar does not record the " + key + " file; pass --" + key);
  if (sha256_file(f->path) != f->sha256)
    fail(f->path, "changed since " + trace_file + " was recorded (SHA-256 differs); pass the original with --" + key);
  return f->path;
}

// The experiment given (--experiment) against the one the trace's sidecar records: the same
// bytes, or the same outer controller (gains and form; the timing is compared by
// rig::to_experiment). A file 10 % off in one gain ran another loop than the one measured.
void check_recorded_experiment(const PoseTrace& t, const std::string& trace, const std::string& given) {
  std::optional<RecordedFile> rec;
  try {
    rec = recorded_file(t, "experiment", trace);
  } catch (const Error&) {
    return;  // a recorded file missing: the given one is all there is
  }
  if (given.empty() || !rec || rec->sha256.empty() || sha256_file(given) == rec->sha256) return;
  if (sha256_file_now(rec->path) != rec->sha256) return;  // changed since: nothing recorded to compare with
  const servo::OuterGains a = servo::load_experiment(given).outer, b = servo::load_experiment(rec->path).outer;
  for (const auto& [key, x, y] : {std::tuple{"outer_pid.kp", &a.kp, &b.kp}, {"outer_pid.ki", &a.ki, &b.ki}, {"outer_pid.kd", &a.kd, &b.kd}})
    for (int c = 0; c < 6; ++c)
      if ((*x)(c) != (*y)(c))
        fail(given, std::string(key) + "[" + std::to_string(c) + "] is " + exact_number((*x)(c)) + ", but " + trace +
                        " was recorded with " + exact_number((*y)(c)) + " (" + rec->path + ", recorded in " + sidecar_path(trace) +
                        "): the twin would run another controller than the one measured (give the experiment the trace ran)");
  if (a.literal != b.literal)
    fail(given, "outer_pid.literal differs from " + rec->path + ", the experiment recorded in " + sidecar_path(trace) +
                    ": the twin would run another controller than the one measured");
}

// A trace whose sidecar does not record the CSV's hash (written before it was recorded).
PoseTrace read_noting_unbound(const std::string& file) {
  PoseTrace t = rig::read_checked_trace(file);
  if (t.has_sidecar && !t.sidecar_bound)
    std::cerr << "vcloe: note: " << sidecar_path(file) << " records no SHA-256 of " << file
              << " (written by an older vcloe): that the two belong together is not checked\n";
  return t;
}

// Priors far from any robot (a mass or inertia 1000x off) either stop the twin — refused with
// the reason — or leave it unable to follow the reference the measured robot followed: refused
// too, before a fit that would start from nonsense.
void check_priors(const rig::ExperimentSetup& s, const oe_ident::Experiment& measured, const std::string& robot,
                  const std::string& trace) {
  PoseTrace twin;
  try {
    twin = rig::twin_trace(s, s.lambda);
  } catch (const Error& e) {
    fail(robot, "the twin cannot run at these priors on the reference of " + trace + ": " + e.what());
  }
  PoseTrace robot_run;  // the measured poses with the reference at their exposures
  for (std::size_t j = 0; j < measured.measured.size(); ++j) {
    const std::size_t x = measured.exposure(j);
    robot_run.time.push_back(twin.time[x]), robot_run.reference.push_back(twin.reference[x]);
    robot_run.measured.push_back(measured.measured[j]);
  }
  const TrackingError at_priors = tracking_error(twin, robot), measured_error = tracking_error(robot_run, trace);
  check_plausible_tracking(measured_error, trace);  // in mm or degrees: not this robot's poses
  if (!at_priors.followed() && measured_error.followed()) {
    std::ostringstream m;
    m << std::setprecision(3) << "the twin at these priors does not follow the reference of " << trace << " (error up to "
      << at_priors.max_position_m * 1e3 << " mm, " << at_priors.max_angle_rad * 1e3 << " mrad: "
      << 100 * std::max(at_priors.share_position(), at_priors.share_angle()) << " % of the motion), the measured robot does ("
      << 100 * std::max(measured_error.share_position(), measured_error.share_angle())
      << " %): the priors are far from this robot (a mass, inertia or gain off by orders of magnitude?)";
    fail(robot, m.str());
  }
}

// The two experiments of one identification are of one robot (their sidecars' truth, source),
// along one reference (`--payload-trace`: "second trace, same reference"; the report records one)
// and under one experiment (one outer controller: the twin runs one; probe 27, class E):
// refused naming both traces and what each records, before any fit (probe 24's D: a payload trace
// of another reference was fitted on it, and the report recorded only the first).
void check_one_identification(const PoseTrace& measured, const PoseTrace& payload, const IdentifyOptions& q) {
  const Provenance a = provenance_of(measured, q.measured), b = provenance_of(payload, q.payload_trace);
  for (const Together how : {Together::OneRobot, Together::OneReference, Together::OneExperiment})
    if (const auto m = provenance_mismatch(a, b, how))
      fail(q.payload_trace, "does not belong with " + q.measured + " (--measured): " + *m +
                                (how == Together::OneReference ? ": one reference was expected" : "") +
                                " (the two experiments of one identification)");
}

}  // namespace

void IdentifyOptions::validate() const {
  IoPlan plan(force);
  plan.input_trace(measured, "--measured").input_trace(payload_trace, "--payload-trace").input(config, "--config")
      .input(robot, "--robot").input(reference, "--reference").input(experiment, "--experiment")
      .input(payload_file, "--payload");
  // The files the traces' sidecars record are inputs too (IoPlan::input: files_recorded_in).
  plan.output(out, "--out").output(out + ".report.json", "the report of --out");
  report::plan_report(plan, report, "--report");
  plan.check();
}

std::pair<double, std::string> IdentifyOutcome::worst_fit_over_noise() const {
  return report::worst_fit_over_noise(result.after_rms, noise_sigma);
}

IdentifyOutcome run_identification(const IdentifyOptions& q) {
  const PoseTrace measured = read_noting_unbound(q.measured);
  const std::string reference = q.reference.empty() ? recorded_path(measured, "reference", q.measured) : q.reference;
  const std::string experiment =
      q.experiment.empty() ? (recorded_file(measured, "experiment", q.measured) ? recorded_path(measured, "experiment", q.measured)
                                                                                  : std::string())
                           : q.experiment;
  oe_ident::IdentificationConfig cfg = oe_ident::load_identification_config(q.config);
  if (!q.payload_file.empty()) cfg.payload = oe_ident::load_payload(q.payload_file);
  IdentifyOutcome out;
  // A calibrated robot file is the plant; the run's controller ran on the file it was calibrated from.
  out.setup = rig::load_setup(q.robot, experiment, reference, rig::controller_of_run(q.robot, measured, q.measured));
  rig::use_recorded_precorrection(out.setup, measured, q.measured);  // the command its robot got
  check_recorded_experiment(measured, q.measured, q.experiment);
  std::vector<oe_ident::Experiment> exps = {rig::to_experiment(out.setup, measured, q.measured)};
  rig::check_recorded_robot(out.setup, measured, q.measured, q.accept_robot_mismatch);
  rig::check_recorded_payload(measured, q.measured, std::nullopt, "");
  check_priors(out.setup, exps.front(), q.robot, q.measured);
  if (!q.payload_trace.empty()) {
    if (!cfg.payload) fail(q.payload_trace, "a payload trace needs the payload (--payload FILE or 'payload' in the config)");
    const PoseTrace pt = read_noting_unbound(q.payload_trace);
    check_one_identification(measured, pt, q);
    const std::string pref = q.reference.empty() ? recorded_path(pt, "reference", q.payload_trace) : q.reference;
    out.payload_setup = rig::load_setup(q.robot, experiment, pref, rig::controller_of_run(q.robot, pt, q.payload_trace));
    rig::use_recorded_precorrection(*out.payload_setup, pt, q.payload_trace);
    exps.push_back(rig::to_experiment(*out.payload_setup, pt, q.payload_trace, cfg.payload));
    rig::check_recorded_robot(*out.payload_setup, pt, q.payload_trace, q.accept_robot_mismatch);
    rig::check_recorded_payload(pt, q.payload_trace, cfg.payload, q.payload_file.empty() ? q.config : q.payload_file);
  } else if (cfg.options.anchor.kind == oe_ident::AnchorKind::Payload) {
    fail(q.config, "the payload anchor needs a second trace with the payload (--payload-trace)");
  }
  oe_ident::check_identification_inputs(exps, cfg.options);
  // The payload and the known value against the priors (grams typed as kg), before any fit.
  if (const std::string why = oe_ident::implausible_for_robot(
          out.setup.lambda, q.robot, q.payload_trace.empty() ? std::nullopt : cfg.payload,
          q.payload_file.empty() ? q.config : q.payload_file, cfg.options.anchor, q.config);
      !why.empty())
    throw Error(why);
  // After every input check (an input error is then the only line). Inconsistent priors (Table 1's cranks and links are) are allowed as a start; the model
  // written moves the values the poses do not determine (docs/identification.md).
  if (const auto issues = sim::check_physical_consistency(out.setup.lambda); !issues.empty())
    std::cerr << "vcloe: warning: " << q.robot << ": the priors are not physically consistent (" << issues.size()
              << " violations, e.g. " << issues.front()
              << "); the identified model moves what the poses do not determine to consistent values\n";
  cfg.options.verbose = q.verbose;
  if (q.verbose) FLAGS_minloglevel = 0;
  // A live line per LM iteration on the terminal (stderr), unless asked for silence or for
  // Ceres' own table (--verbose).
  if (!q.quiet && !q.verbose)
    cfg.options.progress = [](const oe_ident::IterationProgress& p) { std::cerr << p.line() << "\n" << std::flush; };
  out.result = oe_ident::identify(out.setup.model, out.setup.lambda, out.setup.experiment.outer, exps, cfg.options);
  out.anchor = cfg.options.anchor.describe();
  out.noise_sigma = cfg.options.sigma;
  return out;
}

namespace {

// A model identified from a calibrated robot file is that calibration's plant: its head names the
// robot file the calibration was made from, as the calibrated file's does (sim::calibrated_from),
// so that validate and control find its controller (rig::controller_of, check_model_of_robot).
std::string calibrated_plant_lines(const std::string& robot) {
  const FileRecord from = sim::calibrated_from(read_input_file(robot, InputKind::Yaml));
  if (from.none()) return "";
  return "# the plant of the kinematic calibration " + robot + "; its controller runs on the robot file it was calibrated\n" +
         sim::calibrated_from_line(from);
}

}  // namespace

int identify(const IdentifyOptions& q) {
  q.validate();
  const IdentifyOutcome o = run_identification(q);
  sim::RobotModel identified = o.setup.model;
  identified.name = o.setup.model.name + "-identified";
  // Never a model the loader (or MuJoCo) would refuse: checked before anything is written; a
  // refusal names the traces fitted (data no robot of this kind makes), not the draft's lines.
  std::vector<std::string> traces = {q.measured};
  if (!q.payload_trace.empty()) traces.push_back(q.payload_trace);
  const bool stuck = o.result.convergence.verdict == oe_ident::Convergence::Stuck;
  const std::string plant = calibrated_plant_lines(q.robot);
  const std::string drafted = "# identified by vcloe identify from " + q.measured + "\n" +
                           (stuck ? "# STUCK FIT: not an estimate (see " + q.out + ".report.json, 'convergence')\n" : "") +
                           plant + sim::loadable_robot_yaml(identified, o.result.lambda, q.out, traces);
  // A file with a calibration head is read only sealed (sim::check_calibrated_seal).
  const std::string model_text = plant.empty() ? drafted : sim::sealed_calibrated_text(drafted);
  report::IdentificationReport r = report::make_identification_report(o.result, o.anchor, o.noise_sigma);
  // What was read (the hashes of the bytes parsed, core/input_ledger.hpp) and the model written,
  // for `vcloe report` and for the record (absolute paths and SHA-256).
  const FileRecord model{std::filesystem::absolute(q.out).lexically_normal().string(), sha256(model_text)};
  r.inputs = {*report::file_entry_of(q.robot),          *report::file_entry_of(q.measured),
              *report::file_entry_of(o.setup.reference_file), model,
              report::file_entry_of(q.payload_trace), report::file_entry_of(o.setup.experiment_file),
              report::file_entry_of(q.config)};
  const std::string text = sealed_json_text(report::to_json(r), q.out + ".report.json");
  // One write of the pair, the report (which records the model's hash) renamed first: a model
  // and a report of two fits are never left side by side unnoticed.
  write_files_atomically({{q.out + ".report.json", text}, {q.out, model_text}}, q.force);
  if (q.json) std::cout << text;
  else report::print_identification(r, std::cout);
  if (!q.report.empty()) {
    try {  // after the model: a report that fails (a file-size limit, a full disk) says the model is there
      write_report({q.out + ".report.json", "", q.report, "", {}, q.force});
    } catch (const Error& e) {
      throw Error(std::string(e.what()) + "; the model " + q.out + " and its report " + q.out + ".report.json were written");
    }
    std::cerr << "wrote " << q.report << "\n";
  }
  if (stuck) {  // the residual is the optimiser's: no word on the model, a non-zero exit
    std::cerr << "vcloe: warning: " << o.result.convergence.summary() << "\n";
    return kStuckExitStatus;
  }
  if (o.result.adequacy.verdict == oe_ident::Verdict::ModelErrorDominates)
    std::cerr << "vcloe: warning: " << o.result.adequacy.summary() << "\n";
  if (const auto [ratio, where] = o.worst_fit_over_noise(); ratio > IdentifyOutcome::kMaxFitOverNoise)
    std::cerr << std::setprecision(3) << "vcloe: warning: the fit ends at " << ratio << " x the camera noise on "
              << where << " (limit " << IdentifyOutcome::kMaxFitOverNoise << " x noise_sigma of " << q.config
              << "): the priors (" << q.robot
              << "), the model or the traces are far from each other; the parameters are not trustworthy\n";
  return 0;
}

}  // namespace vcloe::workflow
