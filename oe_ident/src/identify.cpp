// oe_ident/src/identify.cpp — identify(): checks, the start (coordinates, QR analysis),
// Levenberg-Marquardt on growing record prefixes, the solution's identifiability and
// covariance, and the per-parameter report.
#include <ceres/ceres.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>

#include "identifiability.hpp"
#include "output_error.hpp"
#include "parameter_map.hpp"
#include "progress_callback.hpp"
#include "solution.hpp"
#include "start_search.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/oe_ident/problem.hpp"

namespace vcloe::oe_ident {

namespace {

// Restarts the fit without the coordinates the start analysis dropped. The kept ones keep
// their order, so the starting Jacobian is the old one's kept columns (no second evaluation) —
// unless a dropped platform moment changed the others' coordinates: then they start again.
void drop_coordinates(const Context& cx, const std::set<int>& dropped, const Eigen::MatrixXd& J0,
                      const sim::LambdaVector<double>& base, const FitStatus& st, Fit& fit) {
  const ParameterMap old = fit.map();
  const int q0 = old.size();
  const std::vector<double> r_start = fit.runs->cached_residuals();  // at delta, from J0's evaluation
  std::vector<double> d_new;
  for (int c = 0; c < q0; ++c)
    if (!dropped.count(c)) d_new.push_back(fit.delta[static_cast<std::size_t>(c)]);
  ParameterMap map = fit_map(cx, base, st, old.latency_offset(fit.delta.data()));
  if (map.size() == 0) fail("identify", "no parameter has an effect on the measured poses");
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> Jk(J0.rows(), map.size());
  for (int c = 0, kept = 0; c < q0; ++c)
    if (!dropped.count(c)) Jk.col(kept++) = J0.col(c);
  fit.delta = d_new;
  bool same_columns = true;  // (a dropped platform moment changes the others' coordinates)
  for (int c = 0, kept = 0; c < q0; ++c)
    if (!dropped.count(c)) {
      const auto& a = old.coords[static_cast<std::size_t>(c)];
      const auto& b = map.coords[static_cast<std::size_t>(kept++)];
      same_columns = same_columns && a.members == b.members && a.platform_moment == b.platform_moment &&
                     a.latency == b.latency;
    }
  fit.runs = make_runs(cx, cx.exps, std::move(map));
  if (same_columns) fit.runs->seed_cache(fit.delta, r_start, std::vector<double>(Jk.data(), Jk.data() + Jk.size()));
  else fit.delta = fit.map().initial(base);
}

// The start: coordinates for the free entries at `base` and the latency offset, the QR analysis
// of the starting Jacobian (identifiability.hpp), and without what it drops.
Fit start_fit(const Context& cx, sim::LambdaVector<double> base, FitStatus& st) {
  ParameterMap map = fit_map(cx, base, st, cx.o.latency.offset);
  if (map.size() == 0) fail("identify", "no free parameter left to identify");
  Fit fit;
  fit.delta = map.initial(base);
  base = map.lambda(fit.delta.data());  // the start as the coordinates represent it
  fit.runs = make_runs(cx, cx.exps, std::move(map));
  const Eigen::MatrixXd J0 = fit.runs->jacobian(fit.delta, "the starting point");
  const std::set<int> dropped = analyse_start(J0, fit.map(), cx.o.qr_eps, st);
  if (!dropped.empty()) drop_coordinates(cx, dropped, J0, base, st, fit);
  return fit;
}

// A weak Gaussian prior on the coordinates around the start: the logs of Lambda, and the latency
// offset's (0.7 of the coordinate: a few ms at the start, nothing beside the data's information).
struct PriorResidual {
  PriorResidual(std::vector<double> start, double sigma) : start_(std::move(start)), sigma_(sigma) {}
  template <typename T>
  bool operator()(T const* const* d, T* r) const {
    for (std::size_t c = 0; c < start_.size(); ++c) r[c] = (d[0][c] - start_[c]) / sigma_;
    return true;
  }
  std::vector<double> start_;
  double sigma_;
};

ceres::Solver::Options solver_options(const IdentificationOptions& o, std::size_t stage) {
  const bool last = stage + 1 == o.horizons.size();
  ceres::Solver::Options so;
  so.minimizer_type = ceres::TRUST_REGION;
  so.trust_region_strategy_type = ceres::LEVENBERG_MARQUARDT;
  so.linear_solver_type = ceres::DENSE_QR;
  so.function_tolerance = last ? o.tol1 : o.stage_tol1;  // eq. (35), first rule
  so.parameter_tolerance = o.tol2;                         // eq. (35), second rule
  so.gradient_tolerance = 1e-14;
  so.max_num_iterations = o.max_iterations;
  // Start strongly damped: far from the solution the closed loop (Coulomb friction, the
  // integrators) is far from linear, and full Gauss-Newton steps from the priors were
  // accepted with tiny gain ratios, each costing a Jacobian. Steps that realise less than
  // min_relative_decrease of the predicted decrease are rejected for one twin run.
  so.initial_trust_region_radius = stage == 0 ? o.initial_trust_region : 1.0;
  so.min_relative_decrease = o.min_relative_decrease;
  so.minimizer_progress_to_stdout = o.verbose;
  so.num_threads = 1;
  return so;
}

// One stage: the output error of `runs` (and the weak prior) minimised from delta, in place.
// max_iterations: 0 for the options' own.
ceres::Solver::Summary solve_stage(const Context& cx, std::size_t stage, TwinRuns& runs,
                                   const std::vector<double>& start_delta, std::vector<double>& delta, int max_iterations = 0) {
  const IdentificationOptions& o = cx.o;
  const int q = runs.num_coordinates();
  OutputErrorCost cost(runs);
  // Weak prior: (delta - delta_start) / prior_log_sigma per coordinate. It keeps directions the
  // poses hardly see from running away (log steps of hundreds) and is negligible for the
  // identified ones (their data information is many orders larger).
  std::unique_ptr<ceres::DynamicAutoDiffCostFunction<PriorResidual>> prior_cost;
  if (o.prior_log_sigma > 0) {
    prior_cost.reset(new ceres::DynamicAutoDiffCostFunction<PriorResidual>(new PriorResidual(start_delta, o.prior_log_sigma)));
    prior_cost->AddParameterBlock(q);
    prior_cost->SetNumResiduals(q);
  }
  ceres::Problem::Options po;
  po.cost_function_ownership = ceres::DO_NOT_TAKE_OWNERSHIP;
  ceres::Problem problem(po);
  if (prior_cost) problem.AddResidualBlock(prior_cost.get(), nullptr, delta.data());
  problem.AddResidualBlock(&cost,
                           o.loss == Loss::Huber    ? static_cast<ceres::LossFunction*>(new ceres::HuberLoss(o.loss_scale))
                           : o.loss == Loss::Cauchy ? new ceres::CauchyLoss(o.loss_scale)
                                                    : nullptr,
                           delta.data());
  ceres::Solver::Options so = solver_options(o, stage);
  if (max_iterations > 0) so.max_num_iterations = max_iterations;
  ProgressCallback progress(cx.o, cx.start, stage);
  if (o.progress) so.callbacks.push_back(&progress);
  ceres::Solver::Summary summary;
  ceres::Solve(so, &problem, &summary);
  return summary;
}

// The first stage from the configured latency offset and, when it ends above
// latency.starts_above_noise x the camera noise, from each other start (the cost is not convex in
// the offset: truth 823 of the realistic study ended at 2.2 x the noise 2.4 ms off from 0 ms, and
// at 1.4 x within 0.01 ms from the true offset; docs/identification.md), the Lambda coordinates
// from the same start each time, each other start for at most latency.start_iterations; delta
// becomes the end of the lowest cost (taken on to the stage's own rule if its start was cut
// short), the offsets and costs recorded.
ceres::Solver::Summary first_stage_from_latency_starts(const Context& cx, TwinRuns& runs, const std::vector<double>& start_delta,
                                                       Fit& fit, IdentificationResult& result) {
  const LatencyOptions& lo = cx.o.latency;
  const ParameterMap& map = fit.map();
  const std::vector<double> offsets = latency_starts(map.latency, lo.starts);
  auto count = [&](const ceres::Solver::Summary& s) {
    result.iterations += static_cast<int>(s.iterations.size()) - 1;
    result.rejected_steps += s.num_unsuccessful_steps;
  };
  ceres::Solver::Summary best;
  std::vector<double> best_delta;
  std::size_t best_k = 0;
  for (std::size_t k = 0; k < offsets.size(); ++k) {
    std::vector<double> delta = fit.delta;
    map.set_latency_offset(delta, offsets[k]);
    const ceres::Solver::Summary summary = solve_stage(cx, 0, runs, start_delta, delta, k == 0 ? 0 : lo.start_iterations);
    count(summary);
    result.start.latency_starts.push_back(offsets[k]);
    result.start.latency_costs.push_back(summary.final_cost);
    const bool failed = summary.termination_type == ceres::FAILURE || !std::isfinite(summary.final_cost);
    if (best_delta.empty() || (!failed && !(summary.final_cost >= best.final_cost))) best = summary, best_delta = delta, best_k = k;
    if (k == 0) {  // the configured start: near the noise, the others are not tried
      result.start.latency_over_noise = std::sqrt(2 * summary.final_cost / runs.num_residuals());
      if (lo.starts_above_noise > 0 && !failed && result.start.latency_over_noise <= lo.starts_above_noise) break;
    }
  }
  fit.delta = best_delta;
  if (best_k > 0 && lo.start_iterations > 0 && best.termination_type == ceres::NO_CONVERGENCE) {
    best = solve_stage(cx, 0, runs, start_delta, fit.delta);  // the cut-short start taken on to the stage's rule
    count(best);
    result.start.latency_costs[best_k] = best.final_cost;
  }
  return best;
}

// Levenberg-Marquardt (eq. 35 stopping rules) on growing prefixes of the records (the
// horizons), each stage starting where the last ended: far from the solution a short record
// is both cheaper and less non-linear; the last stage is the whole record. A trial step where
// the twin fails is rejected by Ceres like a step that raises the cost. Returns the last
// stage's summary.
ceres::Solver::Summary fit_horizons(const Context& cx, Fit& fit, IdentificationResult& result) {
  const IdentificationOptions& o = cx.o;
  const std::vector<double> start_delta = fit.start = fit.delta;
  ceres::Solver::Summary summary;
  for (std::size_t stage = 0; stage < o.horizons.size(); ++stage) {
    const bool last = stage + 1 == o.horizons.size();
    std::vector<Experiment> prefix;
    std::unique_ptr<TwinRuns> stage_runs;
    if (!last) {
      prefix = prefixes(cx.exps, o.horizons[stage]);
      stage_runs = make_runs(cx, prefix, fit.map());
    }
    TwinRuns& runs = last ? *fit.runs : *stage_runs;
    const bool several = stage == 0 && !last && fit.map().latency.coord >= 0 && o.latency.starts > 1;
    if (several) summary = first_stage_from_latency_starts(cx, runs, start_delta, fit, result);
    else summary = solve_stage(cx, stage, runs, start_delta, fit.delta);
    if (o.verbose) {
      std::cerr << "horizon " << o.horizons[stage] << ": " << summary.BriefReport() << " (" << summary.message << ")\n";
      runs.print_timing(std::cerr);
    }
    if (!several) {  // (counted per start there)
      result.iterations += static_cast<int>(summary.iterations.size()) - 1;
      result.rejected_steps += summary.num_unsuccessful_steps;
    }
    result.failed_simulations += runs.failed_runs();
  }
  result.jacobian_cost_ratio = fit.runs->cost_ratio();
  return summary;
}

void check_stage(const ceres::Solver::Summary& summary) {
  if (summary.termination_type == ceres::FAILURE || !std::isfinite(summary.final_cost))
    fail("identification", "the fit failed (" + summary.message + ", cost " + exact_number(summary.final_cost) +
                               "): no model is written; check the traces for values the camera cannot have measured");
}

// Stuck or not (convergence.hpp): the second start from the end point; when it finds a clearly
// lower cost, the last stage once more from there, and the test again. J: the Jacobian at the
// end point, replaced by the one at the new end point after a restart.
void check_convergence(const Context& cx, Fit& fit, Eigen::MatrixXd& J, IdentificationResult& result) {
  std::vector<double> better;
  result.convergence = check_end_point(cx.model, cx.gains, cx.exps, cx.o, fit.map(), fit.delta,
                                       fit.runs->cached_residuals(), better);
  if (result.convergence.verdict != Convergence::Stuck) return;
  const double cpu = result.convergence.cpu_seconds, cpu_restart = process_cpu_seconds();
  fit.delta = better;
  const ceres::Solver::Summary again = solve_stage(cx, cx.o.horizons.size() - 1, *fit.runs, fit.start, fit.delta);
  check_stage(again);
  result.iterations += static_cast<int>(again.iterations.size()) - 1;
  J = fit.runs->jacobian(fit.delta, "the solution");
  ConvergenceCheck second = check_end_point(cx.model, cx.gains, cx.exps, cx.o, fit.map(), fit.delta,
                                            fit.runs->cached_residuals(), better);
  second.escapes = 1;
  second.cpu_seconds += cpu + (process_cpu_seconds() - cpu_restart);
  result.convergence = second;
}

// Ceres' report, unless the fit is stuck: then that first, Ceres' CONVERGENCE only as the rule
// that stopped the optimiser.
std::string termination(const ceres::Solver::Summary& summary, const ConvergenceCheck& c) {
  if (c.verdict != Convergence::Stuck) return summary.BriefReport();
  return kStuckTermination + summary.message + ")";
}

// Fixed entries (configuration, anchor) at their values in `base`; the rest free, and the latency
// offset as the options say.
FitStatus initial_status(const IdentificationOptions& o, sim::LambdaVector<double>& base) {
  FitStatus st;
  for (int k = 0; k < sim::kNumLambda; ++k)
    if (o.spec[static_cast<std::size_t>(k)].mode == Mode::Fixed) {
      st.free[k] = false;
      st.status[k] = "fixed (configuration)";
    }
  if (o.anchor.kind == AnchorKind::KnownParameter) {
    base(o.anchor.parameter) = o.anchor.value;
    st.free[o.anchor.parameter] = false;
    st.status[o.anchor.parameter] = "fixed (scale anchor)";
  }
  st.latency_free = o.latency.fit;
  return st;
}

// The residual at the solution against each experiment's declared camera noise (adequacy.hpp).
Adequacy fit_adequacy(const Context& cx, const Fit& fit) {
  std::vector<std::size_t> frames;
  std::vector<std::array<double, 6>> scale;
  for (const Experiment& e : cx.exps) {
    frames.push_back(e.measured.size());
    const Vec6d declared = e.declared_noise.value_or(cx.o.sigma);
    scale.push_back({});
    for (int c = 0; c < 6; ++c) scale.back()[static_cast<std::size_t>(c)] = cx.o.sigma(c) / declared(c);
  }
  return assess_adequacy(fit.runs->cached_residuals(), frames, scale);
}

}  // namespace

IdentificationResult identify(const sim::RobotModel& prior, const sim::LambdaVector<double>& prior_lambda,
                              const servo::OuterGains& gains, const std::vector<Experiment>& exps,
                              const IdentificationOptions& o) {
  check_identification_inputs(exps, o);
  const auto start = Clock::now();
  const double cpu_start = process_cpu_seconds();
  const Context cx{prior, gains, exps, o, start, latency_bounds(exps)};
  IdentificationResult result;
  sim::LambdaVector<double> base = prior_lambda;
  FitStatus st = initial_status(o, base);
  for (const Experiment& e : exps)
    result.before_rms.push_back(rms_error(prior, base, gains, e, "at the priors", o.latency.offset));

  if (o.start.search) {  // the start independent of the priors (convergence.hpp); the latency offset held
    ParameterMap lambda_only = build_parameter_map(base, st.free, o.spec);
    lambda_only.latency.value = o.latency.offset;
    base = search_start(prior, gains, exps, o, lambda_only, base, result.start);
  }
  Fit fit = start_fit(cx, base, st);
  const ceres::Solver::Summary summary = fit_horizons(cx, fit, result);
  check_stage(summary);
  Eigen::MatrixXd J = fit.runs->jacobian(fit.delta, "the solution");
  check_convergence(cx, fit, J, result);

  // At the solution: null space, then the uncertainty of what is left — camera noise, coloured
  // residuals and the disagreement of sub-fits (uncertainty.hpp) — and the model's adequacy.
  const std::vector<int> kept = analyse_solution(J, fit.map(), o.rank_tolerance, st, &result.singular_values);
  result.rank_tolerance = o.rank_tolerance;
  result.adequacy = fit_adequacy(cx, fit);
  result.lambda = fit.map().lambda(fit.delta.data());
  Uncertainty u = solution_uncertainty(cx, fit, J, kept);
  const double scale2 = result.adequacy.sigma_scale() * result.adequacy.sigma_scale();
  u.total *= scale2;  // the model error common to all parts
  u.latency_var *= scale2;
  report_parameters(prior_lambda, st, u, o, result);
  report_latency(cx, fit, st, u, result);
  result.covariance = u.total;
  result.termination = termination(summary, result.convergence);
  make_result_consistent(result, prior);

  for (const Experiment& e : exps)
    result.after_rms.push_back(rms_error(prior, result.lambda, gains, e, "at the result", result.latency.value));
  result.consistency = sim::check_physical_consistency(result.lambda);
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.cpu_seconds = process_cpu_seconds() - cpu_start;
  return result;
}

}  // namespace vcloe::oe_ident
