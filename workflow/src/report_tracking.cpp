// The tracking section's inputs read and checked to belong together (report.hpp).
#include <cmath>
#include <filesystem>

#include "vcloe/control/precorrection_file.hpp"
#include "vcloe/control/prediction_file.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/rig/checked_trace.hpp"
#include "vcloe/core/file_now.hpp"
#include "vcloe/core/provenance.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/workflow/control.hpp"
#include "vcloe/workflow/report.hpp"

namespace vcloe::workflow {

namespace {

const char* option_of(report::RunKind kind) {
  switch (kind) {
    case report::RunKind::servo_alone: return "--servo-alone";
    case report::RunKind::precorrected: return "--precorrected";
    case report::RunKind::learnt: return "--learnt";
  }
  return "";
}

std::string named(const std::string& file, report::RunKind kind) { return file + " (" + option_of(kind) + ")"; }

// The command a pre-corrected run ran, as recorded (its sidecar's `precorrection`: the file as it
// was, SHA-256), read by its one reader: a learnt command (sidecar kind "learnt") is taken only as
// --learnt, on the virtual robot it was learnt on; a model's pre-correction only as --precorrected
// (session 21's probe, L: either was accepted in the place of the other).
void check_command_kind(const std::string& file, report::RunKind kind, const PoseTrace& t) {
  const std::optional<RecordedFile> rec = recorded_file(t, "precorrection", file);  // gone: named
  if (!rec) return;
  if (sha256_file(rec->path) != rec->sha256)
    fail(named(file, kind), "ran the command " + rec->path + ", which has changed since the run (SHA-256 differs from " +
                                sidecar_path(file) + "'s 'precorrection'): what drove the run cannot be told");
  const control::PrecorrectionFile c = control::read_precorrection(rec->path);
  const bool learnt = c.kind == control::kKindLearnt;
  if (learnt && kind == report::RunKind::precorrected)
    fail(named(file, kind), "ran the learnt command " + rec->path + " (kind \"learnt\" in " + sidecar_path(rec->path) +
                                ": vcloe learn on " + c.truth.path + "), not a model's pre-correction: give it as --learnt");
  if (!learnt && kind == report::RunKind::learnt)
    fail(named(file, kind), "ran the pre-correction " + rec->path + " (kind \"" + c.kind + "\" in " +
                                sidecar_path(rec->path) + ": vcloe precorrect of the model " +
                                (c.model.none() ? std::string("(none recorded)") : c.model.path) +
                                "), not a learnt command: give it as --precorrected");
  const std::optional<FileRecord>& truth = t.metadata.truth;
  if (learnt && truth && !truth->none() && truth->sha256 != c.truth.sha256)
    fail(named(file, kind), "ran the command " + rec->path + " learnt on the virtual robot " + c.truth.path + " (SHA-256 " +
                                c.truth.sha256.substr(0, 12) + "…) on another, " + truth->path + " (SHA-256 " +
                                truth->sha256.substr(0, 12) + "…): a learnt command is its robot's");
}

// A run's trace: its sidecar (the reference and robot it ran), its reference columns, and driven
// as the option says.
report::TrackingRun read_run(const std::string& file, report::RunKind kind) {
  report::TrackingRun r{kind, file, "", rig::read_checked_trace(file)};
  const TraceMetadata& m = r.trace.metadata;
  if (!r.trace.has_sidecar)
    fail(named(file, kind), "has no sidecar " + sidecar_path(file) + ": the reference and robot it ran cannot be "
                            "checked; give the trace with the sidecar vcloe run or rig run wrote");
  if (!m.reference || m.reference->none())
    fail(named(file, kind), "its sidecar " + sidecar_path(file) + " records no reference: the runs cannot be checked "
                            "to be of one reference");
  if (r.trace.reference.empty())
    fail(named(file, kind), "has no ref_* columns: the reference the run followed is needed for measured - reference");
  const bool corrected = m.precorrection && !m.precorrection->none();
  if (kind == report::RunKind::servo_alone && corrected)
    fail(named(file, kind), "ran pre-corrected with " + m.precorrection->path + " (its sidecar's 'precorrection'), not "
                            "the visual servo alone: give it as --precorrected or --learnt");
  if (kind != report::RunKind::servo_alone && !corrected)
    fail(named(file, kind), "ran the visual servo alone (its sidecar records no 'precorrection'): give the run of vcloe "
                            "run --precorrection P, or this one as --servo-alone");
  // Its rows cover the run its sidecar records: a trace cut short (session 21's probe, T: 1 s of
  // a 2 s run, its RMS beside full runs') is not the run, whatever it holds.
  if (m.duration_s && m.camera_hz && !r.trace.time.empty() && r.trace.time.back() < *m.duration_s - 1.5 / *m.camera_hz)
    fail(named(file, kind), "holds rows up to t = " + exact_number(r.trace.time.back()) + " s of the " +
                                exact_number(*m.duration_s) + " s its sidecar records (duration_s)" +
                                (m.stopped ? ": the run stopped" : ": a trace cut short") +
                                "; its RMS is not comparable with a whole run's");
  if (corrected) check_command_kind(file, kind, r.trace);
  r.driven_with = corrected ? "pre-corrected with " + std::filesystem::path(m.precorrection->path).filename().string() +
                                  " (SHA-256 " + m.precorrection->sha256.substr(0, 12) + "…)"
                            : "the visual servo alone";
  return r;
}

std::string optional_text(const std::optional<double>& v, const char* unit) {
  return v ? exact_number(*v) + unit : std::string("none recorded");
}

std::string payload_text(const std::optional<PayloadRecord>& p) {
  if (!p) return "no payload";
  return "a payload of " + exact_number(p->mass) + " kg (moments " + exact_number(p->inertia(0)) + ", " +
         exact_number(p->inertia(1)) + ", " + exact_number(p->inertia(2)) + " kg m^2)";
}

// What differs between two runs' conditions other than how they were driven, beyond their
// experiments' files (Together::OneExperiment): the loop's timing they record, which a ratio of
// RMS is about, and the payload carried; "" if none.
std::string conditions_differ(const TraceMetadata& a, const TraceMetadata& b) {
  const std::pair<const char*, std::pair<std::optional<double>, std::optional<double>>> timing[] = {
      {"controller rate", {a.controller_hz, b.controller_hz}}, {"camera rate", {a.camera_hz, b.camera_hz}},
      {"latency", {a.latency_s, b.latency_s}}};
  for (const auto& [what, v] : timing)
    if (v.first != v.second)
      return std::string("its ") + what + " is " + optional_text(v.second, what[0] == 'l' ? " s" : " Hz") + ", not " +
             optional_text(v.first, what[0] == 'l' ? " s" : " Hz");
  const bool pa = a.payload.has_value(), pb = b.payload.has_value();
  if (pa != pb || (pa && (a.payload->mass != b.payload->mass || a.payload->inertia != b.payload->inertia)))
    return "it carried " + payload_text(b.payload) + ", not " + payload_text(a.payload);
  return "";
}

// Every two runs of one reference and of one robot, under one experiment and payload (only
// the driving differs: the ratio of their RMS is the pre-correction's); the pre-corrected and
// learnt not of one command.
void check_runs_together(const std::vector<report::TrackingRun>& runs) {
  for (std::size_t b = 1; b < runs.size(); ++b)
    for (std::size_t a = 0; a < b; ++a) {
      const Provenance pa = provenance_of(runs[a].trace, runs[a].file), pb = provenance_of(runs[b].trace, runs[b].file);
      const std::pair<Together, const char*> together[] = {
          {Together::OneReference, "the runs compared must be of one reference on one robot"},
          {Together::OneRobot, "the runs compared must be of one reference on one robot"},
          {Together::OneExperiment, "the runs compared differ only in how they were driven"}};
      for (const auto& [how, why] : together)
        if (const auto m = provenance_mismatch(pa, pb, how))
          fail(named(runs[b].file, runs[b].kind),
               "does not belong with " + named(runs[a].file, runs[a].kind) + ": " + *m + " (" + why + ")");
      if (const std::string d = conditions_differ(runs[a].trace.metadata, runs[b].trace.metadata); !d.empty())
        fail(named(runs[b].file, runs[b].kind), "does not belong with " + named(runs[a].file, runs[a].kind) + ": " + d +
                                                    " (the runs compared differ only in how they were driven)");
      const auto& ca = runs[a].trace.metadata.precorrection;
      const auto& cb = runs[b].trace.metadata.precorrection;
      if (ca && cb && !ca->none() && ca->sha256 == cb->sha256)
        fail(named(runs[b].file, runs[b].kind), "ran the same command as " + named(runs[a].file, runs[a].kind) + ", " +
                                                    cb->path + " (SHA-256 " + cb->sha256.substr(0, 12) +
                                                    "…): give the run of the pre-corrected and of the learnt command");
    }
}

// The prediction as the report shows it, along the runs' reference.
report::PredictedLoads loads_of(const control::PredictionFile& f, const std::string& file) {
  report::PredictedLoads l;
  l.file = file, l.model = f.model.path, l.band = !f.band.none();
  for (std::size_t n = 0; n < f.load.size(); ++n) {
    l.torque.time.push_back(static_cast<double>(n) * f.period);
    l.torque.identified.push_back(f.load[n].head<6>());
    l.torque.sigma.push_back(f.sigma[n].head<6>());
    l.force.push_back(f.load[n].segment<54>(6));
    l.force_sigma.push_back(f.sigma[n].segment<54>(6));
  }
  return l;
}

// A recorded prediction is what its recorded files predict (probe 31, E: a torque peak edited to
// 777.5 N*m, or a sigma to 0, with the CSV's hash made again, was drawn): when the model, robot,
// reference, experiment and band report it records are there as recorded, the prediction is
// made again (compute_prediction, predict's own, 0.25 CPU-s for 20 s) and every cell compared.
// A robot file, reference or experiment changed since is refused here (the prediction is not what
// they predict now, and cannot be checked); the model and band report changed or gone are refused
// by check_prediction_model (report.cpp), other files gone leave the prediction as recorded.
void check_prediction_reproduced(const control::PredictionFile& f, const std::string& file) {
  const std::pair<const FileRecord*, const char*> inputs[] = {
      {&f.robot, "robot file"}, {&f.reference, "reference"}, {&f.experiment, "experiment"}};
  for (const auto& [r, what] : inputs)
    if (!r->none() && file_now(*r) == FileNow::Changed)
      fail(file + " (--prediction)", "was predicted from the " + std::string(what) + " " + r->path + " (SHA-256 " +
                                         r->sha256.substr(0, 12) + "…), which has changed since: run vcloe predict again");
  for (const FileRecord* r : {&f.model, &f.band, &f.robot, &f.reference, &f.experiment})
    if (!r->none() && file_now(*r) != FileNow::AsRecorded) return;
  if (!f.band.none() && f.band.path != f.model.path + ".report.json") return;
  PredictOptions o;
  o.model = f.model.path, o.robot = f.robot.path, o.experiment = f.experiment.path, o.reference = f.reference.path;
  o.period = f.period;
  const control::Prediction p = compute_prediction(o, !f.band.none()).prediction;
  if (p.load.size() != f.load.size())
    fail(file + " (--prediction)", "has " + std::to_string(f.load.size()) + " rows, the files it records predict " +
                                       std::to_string(p.load.size()) + ": run vcloe predict again");
  for (const bool sigma : {false, true}) {
    const std::vector<control::LoadVector>& now = sigma ? p.sigma : p.load;
    const std::vector<control::LoadVector>& recorded = sigma ? f.sigma : f.load;
    if (now.empty()) continue;
    const control::LoadVector scale = 1e-9 * (control::LoadVector::Ones() + control::max_abs(now));
    for (std::size_t n = 0; n < now.size(); ++n)
      for (int r = 0; r < control::kLoadSize; ++r)
        if (!(std::abs(recorded[n](r) - now[n](r)) <= scale(r)))
          fail(file + ":" + std::to_string(n + 2), "column '" + control::prediction_column(r, sigma) + "': " +
                                                     exact_number(recorded[n](r)) + ", but the files it records predict " +
                                                     exact_number(now[n](r)) + " (edited since vcloe predict wrote it?); "
                                                     "run vcloe predict again");
  }
}

}  // namespace

TrackingInputs read_tracking_inputs(const TrackingFiles& files) {
  TrackingInputs in;
  for (const auto& [file, kind] : {std::pair{&files.servo_alone, report::RunKind::servo_alone},
                                   {&files.precorrected, report::RunKind::precorrected},
                                   {&files.learnt, report::RunKind::learnt}})
    if (!file->empty()) in.runs.push_back(read_run(*file, kind));
  check_runs_together(in.runs);
  if (!files.prediction.empty()) {
    const control::PredictionFile f = control::read_prediction(files.prediction);
    const std::string named_prediction = files.prediction + " (--prediction)";
    if (!in.runs.empty())
      if (const auto m = provenance_mismatch(provenance_of(in.runs.front().trace, in.runs.front().file),
                                             control::provenance_of(f, files.prediction), Together::OneReference))
        fail(named_prediction, "is not along the reference of " + named(in.runs.front().file, in.runs.front().kind) + ": " +
                                   *m + " (vcloe predict --reference the runs ran)");
    // predict has no payload: its loads are of the bare platform, not of a run that carried one (probe 33, r10).
    if (!in.runs.empty() && in.runs.front().trace.metadata.payload)
      fail(named_prediction, "is of the platform without a payload (vcloe predict has none), but " +
                                 named(in.runs.front().file, in.runs.front().kind) + " carried " +
                                 payload_text(in.runs.front().trace.metadata.payload) +
                                 ": its loads are not that run's; draw it beside runs without a payload");
    check_prediction_reproduced(f, files.prediction);
    in.loads = loads_of(f, files.prediction);
    in.prediction_model = f.model;
    in.prediction_band = f.band;
  }
  return in;
}

}  // namespace vcloe::workflow
