// `vcloe identify` from files (identify.hpp).
#include "vcloe/workflow/identify.hpp"

#include <glog/logging.h>

#include <iomanip>
#include <iostream>
#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/core/trace_compare.hpp"
#include "vcloe/oe_ident/config.hpp"
#include "vcloe/oe_ident/payload.hpp"
#include "vcloe/report/html.hpp"
#include "vcloe/workflow/report.hpp"

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

// A trace whose sidecar does not record the CSV's hash (written before it was recorded).
PoseTrace read_noting_unbound(const std::string& file) {
  PoseTrace t = read_trace(file);
  if (t.has_sidecar && !t.sidecar_bound)
    std::cerr << "vcloe: note: " << sidecar_path(file) << " records no SHA-256 of " << file
              << " (written by an older vcloe): that the two belong together is not checked\n";
  return t;
}

// Priors far from any robot (a mass or inertia 1000x off) either stop the twin — refused with
// the reason — or leave it unable to follow the reference the measured robot followed: refused
// too, before a fit that would start from nonsense.
void check_priors(const rig::ExperimentSetup& s, const PoseTrace& measured, const std::string& robot,
                  const std::string& trace) {
  PoseTrace twin;
  try {
    twin = rig::twin_trace(s, s.lambda);
  } catch (const Error& e) {
    fail(robot, "the twin cannot run at these priors on the reference of " + trace + ": " + e.what());
  }
  PoseTrace robot_run = twin;
  robot_run.measured.assign(measured.measured.begin(), measured.measured.begin() + static_cast<long>(twin.size()));
  const TrackingError at_priors = tracking_error(twin, robot), measured_error = tracking_error(robot_run, trace);
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

}  // namespace

void IdentifyOptions::validate() const {
  const std::vector<std::string> inputs = {measured, payload_trace, sidecar_path(measured), sidecar_path(payload_trace),
                                           config,   robot,         reference,             experiment,
                                           payload_file};
  for (const std::string& f : {out, out + ".report.json"}) check_output_path(f, force, inputs);
  if (!report.empty()) report::check_report_path(report, force, inputs);
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
  out.setup = rig::load_setup(q.robot, experiment, reference);
  std::vector<oe_ident::Experiment> exps = {rig::to_experiment(out.setup, measured, q.measured)};
  rig::check_recorded_robot(out.setup, measured, q.measured, q.accept_robot_mismatch);
  rig::check_recorded_payload(measured, q.measured, std::nullopt, "");
  check_priors(out.setup, measured, q.robot, q.measured);
  if (!q.payload_trace.empty()) {
    if (!cfg.payload) fail(q.payload_trace, "a payload trace needs the payload (--payload FILE or 'payload' in the config)");
    const PoseTrace pt = read_noting_unbound(q.payload_trace);
    const std::string pref = q.reference.empty() ? recorded_path(pt, "reference", q.payload_trace) : q.reference;
    out.payload_setup = rig::load_setup(q.robot, experiment, pref);
    exps.push_back(rig::to_experiment(*out.payload_setup, pt, q.payload_trace, cfg.payload));
    rig::check_recorded_robot(*out.payload_setup, pt, q.payload_trace, q.accept_robot_mismatch);
    rig::check_recorded_payload(pt, q.payload_trace, cfg.payload, q.payload_file.empty() ? q.config : q.payload_file);
  } else if (cfg.options.anchor.kind == oe_ident::AnchorKind::Payload) {
    fail(q.config, "the payload anchor needs a second trace with the payload (--payload-trace)");
  }
  oe_ident::check_identification_inputs(exps, cfg.options);
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

int identify(const IdentifyOptions& q) {
  q.validate();
  const IdentifyOutcome o = run_identification(q);
  sim::RobotModel identified = o.setup.model;
  identified.name = o.setup.model.name + "-identified";
  // Never a model the loader (or MuJoCo) would refuse: checked before anything is written.
  const bool stuck = o.result.convergence.verdict == oe_ident::Convergence::Stuck;
  write_file_atomically(q.out,
                        "# identified by vcloe identify from " + q.measured + "\n" +
                            (stuck ? "# STUCK FIT: not an estimate (see " + q.out + ".report.json, 'convergence')\n" : "") +
                            sim::loadable_robot_yaml(identified, o.result.lambda, q.out),
                        q.force);
  report::IdentificationReport r = report::make_identification_report(o.result, o.anchor, o.noise_sigma);
  // What was read, for `vcloe report` and for the record (absolute paths and SHA-256).
  r.inputs = {*report::file_entry_of(q.robot),    *report::file_entry_of(q.measured),
                   *report::file_entry_of(o.setup.reference_file), *report::file_entry_of(q.out),
                   report::file_entry_of(q.payload_trace), report::file_entry_of(o.setup.experiment_file),
                   report::file_entry_of(q.config)};
  const std::string text = report::to_json(r).dump(2);
  write_file_atomically(q.out + ".report.json", text + "\n", q.force);
  if (q.json) std::cout << text << "\n";
  else report::print_identification(r, std::cout);
  if (!q.report.empty()) {
    write_report({q.out + ".report.json", "", q.report, q.force});
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
