#pragma once
// `vcloe predict` and `vcloe precorrect` (docs/control.md): what an identified model is for.
// predict: the drive torques and each leg's joint forces along a reference, with the band of the
// model's sigma (its identification report, <model>.report.json, when there is one).
// precorrect: the joint command that makes the drives produce those torques (control/
// precorrect.hpp), checked against the robot's joint range and command rate limit before it is
// written (bridge::SafetyLimits, as the live robot applies them), for `run`/`simulate --precorrection`.
#include <optional>
#include <string>

#include "vcloe/control/predict.hpp"
#include "vcloe/core/report.hpp"
#include "vcloe/report/identification.hpp"
#include "vcloe/rig/setup.hpp"

namespace vcloe::workflow {

struct PredictOptions {
  std::string model, robot, experiment, reference, out;  // out: CSV (optional)
  double period = 0;  // s between samples; 0: the experiment's camera period
  bool force = false;

  void validate() const;  // the period, then the CSV as an output (never an input)
};
Report predict_to_file(const PredictOptions& options);
// The one computation of a prediction (predict_to_file's, and `report`'s check that a recorded
// prediction is what its recorded files predict): the loads along the reference and, with `band`,
// their sigma from the model's identification report (<model>.report.json).
struct Predicted {
  control::Prediction prediction;
  std::optional<control::XiCovariance> covariance;
  std::string band;  // what the sigma are, for the summary
};
Predicted compute_prediction(const PredictOptions& options, bool band);

struct PrecorrectOptions {
  std::string model, robot, experiment, reference, out;  // out: the CSV; its sidecar beside it
  bool force = false;

  void validate() const;
};
Report precorrect_to_file(const PrecorrectOptions& options);

// The covariance of Xi a report gives: sigma_i sigma_j rho_ij over the fitted parameters (the
// correlation matrix), sigma_i^2 alone for the others.
control::XiCovariance xi_covariance(const report::IdentificationReport& report, const std::string& file);

}  // namespace vcloe::workflow
