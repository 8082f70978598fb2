#pragma once
// oe_ident/src/output_error.hpp — the output-error residual of eq. (32) for Ceres, in three
// parts: OutputError (pure: one experiment's weighted residuals and their Jacobian), TwinRuns
// (all experiments at a point on N threads, timing, failure counts, the last Jacobian kept) and
// OutputErrorCost (the ceres::CostFunction; its Evaluate calls TwinRuns explicitly).
//
// Not a ceres::EvaluationCallback: PrepareForEvaluation cannot report a failed twin run (the
// step must be rejected through Evaluate returning false), and an explicit call keeps Ceres'
// evaluation sequence exactly as with the former single cost function.
#include <iosfwd>
#include <mutex>
#include <vector>

#include <ceres/cost_function.h>

#include "parameter_map.hpp"
#include "vcloe/oe_ident/problem.hpp"

namespace vcloe::oe_ident {

// r = (measured - twin) / sigma per channel, rows 6 j + c of each experiment in turn (the twin's
// camera read at t_j - the latency offset), and dr/ddelta through simulate_twin_sensitivity. No state: safe to call from several threads.
class OutputError {
 public:
  OutputError(const sim::RobotModel& model, const servo::OuterGains& gains, const std::vector<Experiment>& experiments,
              ParameterMap map, const Vec6d& sigma);

  int num_residuals() const { return rows_; }
  const ParameterMap& map() const { return map_; }
  const std::vector<Experiment>& experiments() const { return exps_; }

  // Experiment e at `lambda` (without its payload) and the pose stream's latency offset (s):
  // its rows of r and, with P = d Lambda / d delta, of J (row-major, map().size() columns; the
  // latency coordinate's through latency_derivative = d offset / d delta_c), the sensitivity on
  // `threads` cores. False if the twin failed (its rows then undefined).
  bool experiment(std::size_t e, const sim::LambdaVector<double>& lambda, double latency_offset,
                  const Eigen::MatrixXd* P, double latency_derivative, int threads, double* r, double* J) const;

 private:
  const sim::RobotModel& model_;
  const servo::OuterGains& gains_;
  const std::vector<Experiment>& exps_;
  ParameterMap map_;
  Vec6d sigma_;
  std::vector<int> offsets_;  // first row of each experiment
  int rows_ = 0;
};

// The shared work at one point delta: every experiment's twin (or sensitivity) run, experiment
// 0 on the calling thread and the others on up to threads - 1 more; wall time and counts per
// kind of run; the last successful Jacobian evaluation (delta, r, J), served again without a run
// when a Jacobian is asked at the same delta (the identifiability analysis at the solution).
class TwinRuns {
 public:
  TwinRuns(OutputError output_error, int threads);

  const OutputError& output_error() const { return oe_; }
  int num_residuals() const { return oe_.num_residuals(); }
  int num_coordinates() const { return oe_.map().size(); }

  // r at delta, and J = dr/ddelta (row-major) when J is non-null. False if a twin run failed.
  bool evaluate(const double* delta, double* r, double* J);
  // The weighted Jacobian at delta as a dense matrix; throws vcloe::Error if the twin fails.
  Eigen::MatrixXd jacobian(const std::vector<double>& delta, const char* where);
  // Seeds the cache with a Jacobian computed elsewhere at delta (e.g. columns of a larger one).
  void seed_cache(const std::vector<double>& delta, const std::vector<double>& r, const std::vector<double>& J);

  const std::vector<double>& cached_residuals() const { return cached_r_; }
  int failed_runs() const { return failed_calls_; }
  double cost_ratio() const;  // wall time of one Jacobian evaluation / one residual evaluation
  void print_timing(std::ostream& os) const;

 private:
  bool serve_from_cache(const double* delta, double* r, double* J) const;
  bool run_experiments(const double* delta, double* r, double* J) const;

  OutputError oe_;
  int threads_;
  std::mutex mutex_;
  double jacobian_time_ = 0, residual_time_ = 0;
  int jacobian_calls_ = 0, residual_calls_ = 0, failed_calls_ = 0;
  std::vector<double> cached_delta_, cached_r_, cached_J_;
};

// All experiments' weighted residuals as one residual block over delta. Evaluate returns false
// when a twin run fails, so that Ceres rejects the step (a diverging twin never crashes the fit).
class OutputErrorCost final : public ceres::CostFunction {
 public:
  explicit OutputErrorCost(TwinRuns& runs);
  bool Evaluate(double const* const* parameters, double* residuals, double** jacobians) const override;

 private:
  TwinRuns& runs_;
};

}  // namespace vcloe::oe_ident
