#pragma once
// The identification report as ONE self-contained HTML file (docs/report.md): summary, Table 2
// form (every parameter with its 95 % interval and status), Table 3 form (RMS against the
// declared camera noise), the pose traces measured vs twin before and after (Figs. 12-13 form,
// Li et al. 2019), residuals with the camera-noise band and their histogram, the parameters'
// correlation, the Jacobian's singular values with the rank cut, the excitation (Fig. 11 form,
// observability index), the drive torques the model predicts along the excitation (with its σ
// band and the priors'), and, when given, the validation (Tables 4 and 5 form), the kinematic
// calibration the robot file came from, the tracking of runs of one reference (servo alone,
// pre-corrected, learnt: measured − reference) and the loads `vcloe predict` gives along it
// (tracking.hpp). Figures are gnuplot PNGs embedded as data URIs: no network, no
// script framework.
#include <optional>
#include <string>
#include <vector>

#include "vcloe/core/output_file.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/report/calibration.hpp"
#include "vcloe/report/identification.hpp"
#include "vcloe/report/pose_plot.hpp"
#include "vcloe/report/tracking.hpp"
#include "vcloe/report/validation.hpp"

namespace vcloe::report {

// What the report shows, read and typed by its readers.
struct ReportInput {
  std::string identification_file;  // <model>.report.json written by `vcloe identify`
  IdentificationReport identification;
  std::optional<ValidationResult> validation;  // `vcloe validate --out`, optional
  std::string calibration_file;                // `vcloe calibrate kinematics --result`, optional
  std::optional<CalibrationReport> calibration;
  std::vector<TrackingRun> tracking;           // optional: servo alone, pre-corrected, learnt (tracking.hpp)
  std::optional<PredictedLoads> loads;         // optional: `vcloe predict` along the runs' reference
};

// The time plots' data, experiment 1: the measured trace, the twin at the priors and at the
// identified values on its reference; the reference sampled for the excitation figure and its
// observability index (eq. 39) at the priors. Computed by the caller from the report's inputs.
struct ReportTraces {
  PoseTrace measured, before, after;
  PoseSeries reference;
  double observability_index = 0;
  TorqueSeries torque;  // along the excitation: the identified model's, its sigma, the priors' (empty: no section)
};

// The HTML text.
std::string identification_report_html(const ReportInput& input, const ReportTraces& traces);

// An HTML report as a command's IoPlan checks it before any work: its name .html or .htm (a
// report written under report.png opened as a broken image), the file an output named `role`,
// and what its figures need (gnuplot and a temporary directory: IoPlan::program).
void plan_report(IoPlan& plan, const std::string& path, const std::string& role);

}  // namespace vcloe::report
