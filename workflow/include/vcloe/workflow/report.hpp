#pragma once
// `vcloe report` (docs/report.md): the identify report and the validation read by their typed
// readers, the twin re-run on the first experiment from the files the report's inputs name (the
// time plots), the HTML report written (vcloe/report/html.hpp).
// With runs of one reference — the visual servo alone, pre-corrected, learnt — and what `vcloe
// predict` gives along it, the tracking and load sections (report/tracking.hpp), their inputs
// checked first to belong together.
#include <optional>
#include <string>
#include <vector>

#include "vcloe/core/file_record.hpp"
#include "vcloe/report/tracking.hpp"

namespace vcloe::workflow {

// The tracking section's inputs, each optional: traces (`vcloe run`, `rig run`; with their
// sidecars) of one reference run with the visual servo alone, pre-corrected (`--precorrection`
// of `vcloe precorrect`) and with the learnt command (`--precorrection` of `vcloe learn`), and
// the CSV of `vcloe predict --out` along it.
struct TrackingFiles {
  std::string servo_alone, precorrected, learnt, prediction;
  bool empty() const { return servo_alone.empty() && precorrected.empty() && learnt.empty() && prediction.empty(); }
};

struct ReportOptions {
  std::string identification, validation, out;  // validation optional
  std::string calibration;                      // optional: `vcloe calibrate kinematics --result`
  TrackingFiles tracking;                       // optional
  bool force = false;

  void validate() const;  // out: an .html name, not overwritten without force, not an input
};

// The runs and the prediction read by their readers and checked, before anything is drawn: each
// run's trace has its sidecar and reference columns, and was driven as its option says (the
// servo alone: no `precorrection` in its sidecar; pre-corrected and learnt: one, not the same);
// every two of them, and the prediction, are of one reference and every two runs of one robot
// (core/provenance.hpp: the SHA-256 their sidecars record). Each refusal one line naming the
// file(s) and the option.
struct TrackingInputs {
  std::vector<report::TrackingRun> runs;  // servo alone, pre-corrected, learnt: those given
  std::optional<report::PredictedLoads> loads;
  FileRecord prediction_model;  // the model the prediction records (its geometry is checked by the caller)
  FileRecord prediction_band;   // the identification report its sigma band is of (none: no band)
};
TrackingInputs read_tracking_inputs(const TrackingFiles& files);

// Writes the report to options.out, checked first.
void write_report(const ReportOptions& options);

}  // namespace vcloe::workflow
