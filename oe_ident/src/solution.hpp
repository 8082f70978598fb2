#pragma once
// oe_ident/src/solution.hpp — what identify() reads at every stage (Context), the fit in its
// coordinates (Fit), and what it reports at the solution: the uncertainty of the values and of
// the latency offset, the per-parameter report, the move to physical consistency.
#include <chrono>
#include <memory>
#include <vector>

#include "identifiability.hpp"
#include "output_error.hpp"
#include "parameter_map.hpp"
#include "vcloe/oe_ident/problem.hpp"

namespace vcloe::oe_ident {

using Clock = std::chrono::steady_clock;

// What every step of identify() reads.
struct Context {
  const sim::RobotModel& model;
  const servo::OuterGains& gains;
  const std::vector<Experiment>& exps;
  const IdentificationOptions& o;
  Clock::time_point start;
  LatencyBounds latency;  // where a fitted latency offset is kept
};

// The fit in its current coordinates: delta and the twin runs of the full records (whose
// output error holds the parameter map).
struct Fit {
  std::vector<double> delta;
  std::vector<double> start;  // delta at the start (the weak prior's centre)
  std::unique_ptr<TwinRuns> runs;
  const ParameterMap& map() const { return runs->output_error().map(); }
};

std::unique_ptr<TwinRuns> make_runs(const Context& cx, const std::vector<Experiment>& exps, ParameterMap map);

// The fit's coordinates: the free entries of Lambda at `base` (build_parameter_map), then the
// latency offset — a coordinate starting at `latency` when st.latency_free and Lambda has a
// free entry, else held at `latency`.
ParameterMap fit_map(const Context& cx, const sim::LambdaVector<double>& base, const FitStatus& st, double latency);

// The solution's uncertainty (uncertainty.hpp) in Lambda and for the latency offset, and how
// far the weak prior moved each value, in its sigma: dd = -H^-1 g_prior with
// g_prior = (delta - delta_start) / prior_log_sigma^2.
struct Uncertainty {
  Eigen::MatrixXd total, camera;  // 70 x 70
  Eigen::VectorXd prior_shift;    // 70, in Lambda units
  double latency_var = 0, latency_var_camera = 0, latency_prior_shift = 0;  // s^2, s^2, s
};

Uncertainty solution_uncertainty(const Context& cx, const Fit& fit, const Eigen::MatrixXd& J, const std::vector<int>& kept);

// The 70 parameters' entries of the result (and identified_count), then the latency offset's.
void report_parameters(const sim::LambdaVector<double>& prior_lambda, const FitStatus& st, const Uncertainty& u,
                       const IdentificationOptions& o, IdentificationResult& result);
void report_latency(const Context& cx, const Fit& fit, const FitStatus& st, const Uncertainty& u,
                    IdentificationResult& result);

// Moments the poses do not determine moved to the nearest consistent values (consistency.hpp);
// the report's values follow, and says what moved.
void make_result_consistent(IdentificationResult& result, const sim::RobotModel& geometry);

}  // namespace vcloe::oe_ident
