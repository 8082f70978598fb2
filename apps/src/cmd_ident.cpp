// `vcloe identify` and `vcloe validate`: closed-loop output-error identification from measured
// pose traces (seed 004 section 3.2, Tables 2-4) and its validation on fresh trajectories.
#include <glog/logging.h>

#include <filesystem>
#include <iomanip>
#include <iostream>

#include "commands.hpp"
#include "ident_report.hpp"
#include "experiment_setup.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/oe_ident/config.hpp"
#include "vcloe/oe_ident/payload.hpp"

namespace vcloe::app {

namespace {

std::string recorded_path(const PoseTrace& t, const std::string& key, const std::string& trace_file) {
  const std::optional<RecordedFile> f = recorded_file(t, key, trace_file);
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

}  // namespace

IdentifyOutcome run_identification(const IdentifyRequest& q) {
  const PoseTrace measured = read_noting_unbound(q.measured);
  const std::string reference = q.reference.empty() ? recorded_path(measured, "reference", q.measured) : q.reference;
  const std::string experiment =
      q.experiment.empty() ? (recorded_file(measured, "experiment", q.measured) ? recorded_path(measured, "experiment", q.measured)
                                                                                  : std::string())
                           : q.experiment;
  oe_ident::IdentificationConfig cfg = oe_ident::load_identification_config(q.config);
  if (!q.payload_file.empty()) cfg.payload = oe_ident::load_payload(q.payload_file);
  IdentifyOutcome out;
  out.setup = load_setup(q.robot, experiment, reference);
  std::vector<oe_ident::Experiment> exps = {to_experiment(out.setup, measured, q.measured)};
  check_recorded_robot(out.setup, measured, q.measured, q.accept_robot_mismatch);
  check_recorded_payload(measured, q.measured, std::nullopt, "");
  if (!q.payload_trace.empty()) {
    if (!cfg.payload) fail(q.payload_trace, "a payload trace needs the payload (--payload FILE or 'payload' in the config)");
    const PoseTrace pt = read_noting_unbound(q.payload_trace);
    const std::string pref = q.reference.empty() ? recorded_path(pt, "reference", q.payload_trace) : q.reference;
    out.payload_setup = load_setup(q.robot, experiment, pref);
    exps.push_back(to_experiment(*out.payload_setup, pt, q.payload_trace, cfg.payload));
    check_recorded_robot(*out.payload_setup, pt, q.payload_trace, q.accept_robot_mismatch);
    check_recorded_payload(pt, q.payload_trace, cfg.payload, q.payload_file.empty() ? q.config : q.payload_file);
  } else if (cfg.options.anchor.kind == oe_ident::AnchorKind::Payload) {
    fail(q.config, "the payload anchor needs a second trace with the payload (--payload-trace)");
  }
  cfg.options.verbose = q.verbose;
  if (q.verbose) FLAGS_minloglevel = 0;
  out.result = oe_ident::identify(out.setup.model, out.setup.lambda, out.setup.experiment.outer, exps, cfg.options);
  out.anchor = cfg.options.anchor.describe();
  return out;
}

void add_identify_command(CLI::App& app) {
  auto q = std::make_shared<IdentifyRequest>();
  auto flags = std::make_shared<std::pair<bool, bool>>(false, false);  // json, force
  q->robot = default_robot_file();
  q->config = default_config_dir() + "/identify.yaml";
  CLI::App* cmd = app.add_subcommand(
      "identify",
      "Fit inertia, friction and the inner joint PID gains to measured pose traces (closed-loop output error,\n"
      "Levenberg-Marquardt with exact sensitivities). Needs a scale anchor (docs/identification.md).");
  cmd->add_option("--measured", q->measured, "measured trace (vcloe run)")->required();
  cmd->add_option("--payload-trace", q->payload_trace, "second trace, same reference, with a known payload");
  cmd->add_option("--payload", q->payload_file, "payload file: {mass, inertia: [Ix, Iy, Iz]}");
  cmd->add_option("--config", q->config, "identification settings")->capture_default_str();
  cmd->add_option("--robot", q->robot, "robot file with the priors")->capture_default_str();
  cmd->add_option("--reference", q->reference, "reference the trace ran (default: from its sidecar)");
  cmd->add_option("--experiment", q->experiment, "experiment file (default: from its sidecar)");
  cmd->add_option("--out", q->out, "identified robot file to write (+ <out>.report.json)")->required();
  cmd->add_flag("--json", flags->first, "print the report as JSON");
  cmd->add_flag("--force", flags->second, "overwrite existing output");
  cmd->add_flag("--verbose", q->verbose, "print the optimiser's iterations");
  cmd->add_flag("--accept-robot-mismatch", q->accept_robot_mismatch,
                "fit a trace whose recorded robot file differs from --robot or cannot be checked (moved, changed,\n"
                "unreadable, not recorded); a warning is printed instead of the refusal");
  cmd->callback([q, flags] {
    for (const std::string& f : {q->out, q->out + ".report.json"})
      check_output_path(f, flags->second,
                        {q->measured, q->payload_trace, q->config, q->robot, q->reference, q->experiment, q->payload_file});
    const IdentifyOutcome o = run_identification(*q);
    sim::RobotModel identified = o.setup.model;
    identified.name = o.setup.model.name + "-identified";
    write_file_atomically(q->out,
                          "# identified by vcloe identify from " + q->measured + "\n" +
                              sim::robot_to_yaml(identified, o.result.lambda),
                          flags->second);
    const nlohmann::json report = identification_report_json(o);
    write_file_atomically(q->out + ".report.json", report.dump(2) + "\n", flags->second);
    if (flags->first) std::cout << report.dump(2) << "\n";
    else print_identification(o, std::cout);
  });
}

}  // namespace vcloe::app
