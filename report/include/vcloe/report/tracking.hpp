#pragma once
// The report's tracking and load sections (docs/report.md; issue #26, docs/control.md): runs of
// one reference with the visual servo alone, pre-corrected (`vcloe precorrect`) and learnt
// (`vcloe learn`) — their pose error, measured − reference (angles as rotations,
// core/rotation_difference.hpp), over time per kind (positions mm, angles mrad), and a table of
// its RMS per channel beside the camera noise each run's sidecar declares, with the ratios servo
// alone / pre-corrected and servo alone / learnt; and what `vcloe predict` gives along that
// reference: each drive's torque with its σ band, the joint forces' RMS and peak. Every part is
// optional: a run not given is a column left out. The inputs are read and checked to belong
// together (one robot, one reference) by the caller (workflow/report.hpp).
#include <optional>
#include <string>
#include <vector>

#include "vcloe/core/trace.hpp"

namespace vcloe::report {

enum class RunKind { servo_alone, precorrected, learnt };
const char* run_kind_name(RunKind kind);  // "servo alone", "pre-corrected", "learnt"

// A run whose tracking the report shows.
struct TrackingRun {
  RunKind kind = RunKind::servo_alone;
  std::string file, driven_with;  // the trace; what drove it ("the visual servo alone", "pre-corrected with P")
  PoseTrace trace;                // with its reference columns
};

// The drive torques (N·m) along a motion with a 1σ band (zero: none) and, optionally, another
// model's (the priors': empty for none).
struct TorqueSeries {
  std::vector<double> time;
  std::vector<Vec6d> identified, sigma, priors;
};

// What `vcloe predict --out` wrote, as the report shows it (control/prediction_file.hpp).
using JointForces = Eigen::Matrix<double, 54, 1>;  // per leg the B, T, A joints, x y z (N): 9 leg + 3 joint + axis
struct PredictedLoads {
  std::string file, model;  // the prediction, the model it was computed with
  bool band = false;        // sigma from the model's identification report
  TorqueSeries torque;      // `identified`: the model's torques, `priors` empty
  std::vector<JointForces> force, force_sigma;
};

// Measured − reference per channel of a run: its RMS (m, rad) — the one computation of the
// table (core/trace_compare.hpp) — and the RMS per axis over the three of each kind.
struct TrackingRms {
  Vec6d channel = Vec6d::Zero();
  double positions = 0, angles = 0;  // sqrt of the mean of the three channels' squares
};
TrackingRms tracking_rms(const TrackingRun& run);

// The sections as HTML, their figures drawn in `dir`; each empty without its data.
std::string tracking_section(const std::vector<TrackingRun>& runs, const std::string& dir);
std::string loads_section(const std::optional<PredictedLoads>& loads, const std::string& dir);

}  // namespace vcloe::report
