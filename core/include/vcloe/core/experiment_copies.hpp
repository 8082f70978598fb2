#pragma once
// vcloe/core/experiment_copies.hpp — a trace's sidecar copies its experiment (docs/traces.md):
// `controller_hz`, `camera_hz`, `latency_s`, `substeps`, `outer_form` from the experiment file,
// `duration_s` from the reference. The copies are checked three ways, each in one place:
//   - by the experiment file's own rules (LoopTiming::problem), inside the one sidecar reader
//     (trace_metadata_from_json: check_copied_timing);
//   - `duration_s` against the CSV's rows, in the one trace reader (read_trace);
//   - against an experiment: the one the sidecar records (read_trace, when that file is there
//     with its recorded SHA-256), or the one a command is given (identify, through
//     rig::to_experiment): check_experiment_copies.
#include <optional>
#include <string>

#include "vcloe/core/experiment_file.hpp"
#include "vcloe/core/trace_metadata.hpp"

namespace vcloe {

// The sidecar's timing copies against the experiment file's rules; an error naming the sidecar
// (`sidecar`), the key and the rule with the values it got. Nothing without `controller_hz`
// (a sidecar that copies no loop: measure, render, another tool's).
void check_copied_timing(const TraceMetadata& metadata, const std::string& sidecar);

// What an experiment gives the copied values: the experiment file's timing and outer-law form
// (`experiment_file` names it: a path or "the default experiment") and the reference's length
// (`reference_file`; no duration_s: not compared).
struct ExperimentGiven {
  LoopTiming timing;
  bool literal = false;
  std::string experiment_file;
  std::optional<double> duration_s;
  std::string reference_file;
};
ExperimentGiven experiment_given(const ExperimentConfig& experiment, const std::string& experiment_file);

// The sidecar's copies against `given`: the first that differs is refused in one line,
// "m.csv: was recorded with latency_s 0.5 (m.csv.meta.json), but e.yaml gives 0.01: <why>".
void check_experiment_copies(const TraceMetadata& recorded, const ExperimentGiven& given, const std::string& trace,
                             const std::string& why);
// The same against the experiment file the sidecar of `trace` records, when it is still there
// with its recorded SHA-256 (gone or changed since: nothing recorded to compare with).
void check_copies_of_recorded_experiment(const TraceMetadata& recorded, const std::string& trace);

}  // namespace vcloe
