// oe_ident/src/solution.cpp — the fit's coordinates and what identify() reports at the solution
// (solution.hpp).
#include "solution.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "vcloe/oe_ident/consistency.hpp"
#include "vcloe/oe_ident/spread.hpp"
#include "vcloe/oe_ident/uncertainty.hpp"

namespace vcloe::oe_ident {

std::unique_ptr<TwinRuns> make_runs(const Context& cx, const std::vector<Experiment>& exps, ParameterMap map) {
  return std::make_unique<TwinRuns>(OutputError(cx.model, cx.gains, exps, std::move(map), cx.o.sigma), cx.o.threads);
}

ParameterMap fit_map(const Context& cx, const sim::LambdaVector<double>& base, const FitStatus& st, double latency) {
  ParameterMap map = build_parameter_map(base, st.free, cx.o.spec);
  if (st.latency_free && map.size() > 0) add_latency_coordinate(map, cx.latency.low, cx.latency.high, latency);
  else map.latency.value = latency;
  return map;
}

Uncertainty solution_uncertainty(const Context& cx, const Fit& fit, const Eigen::MatrixXd& J, const std::vector<int>& kept) {
  const Eigen::MatrixXd Jk = kept_columns(J, kept);
  UncertaintyInput in{Jk, fit.runs->cached_residuals(), {}, {}, 1};
  for (const Experiment& e : cx.exps) {
    in.frames.push_back(e.measured.size());
    in.fixes_scale.push_back(cx.o.anchor.kind != AnchorKind::Payload || e.payload.has_value());
  }
  const double frame_period = cx.exps.front().reference.exposure_times.size() > 1
                                  ? cx.exps.front().reference.exposure_times[1] - cx.exps.front().reference.exposure_times[0]
                                  : 1.0;
  in.prior_log_sigma = cx.o.prior_log_sigma;
  in.block_frames = std::max(1, static_cast<int>(std::lround(cx.o.uncertainty_block / frame_period)));
  const CovarianceTerms terms = coordinate_covariance(in);
  Uncertainty u;
  u.total = lambda_covariance(terms.total(), kept, fit.map(), fit.delta);
  u.camera = lambda_covariance(terms.camera, kept, fit.map(), fit.delta);
  Eigen::VectorXd g = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(kept.size()));
  if (cx.o.prior_log_sigma > 0)
    for (std::size_t c = 0; c < kept.size(); ++c) {
      const auto k = static_cast<std::size_t>(kept[c]);
      g(static_cast<Eigen::Index>(c)) = (fit.delta[k] - fit.start[k]) / (cx.o.prior_log_sigma * cx.o.prior_log_sigma);
    }
  const Eigen::VectorXd dd = (Jk.transpose() * Jk).ldlt().solve(g);
  const Eigen::MatrixXd P = fit.map().jacobian(fit.delta.data());
  u.prior_shift = Eigen::VectorXd::Zero(sim::kNumLambda);
  for (std::size_t c = 0; c < kept.size(); ++c) {
    const auto i = static_cast<Eigen::Index>(c);
    u.prior_shift += P.col(kept[c]) * dd(i);
    if (kept[c] != fit.map().latency.coord) continue;  // the latency offset: d offset / d delta_c
    const double s = fit.map().latency_derivative(fit.delta.data());
    u.latency_var = s * s * terms.total()(i, i);
    u.latency_var_camera = s * s * terms.camera(i, i);
    u.latency_prior_shift = s * dd(i);
  }
  return u;
}

std::string fitted_status(bool combination, bool flagged, double prior_pull) {
  if (combination) return "fitted, but only identifiable in combination";
  if (flagged) return "poorly determined (relative sigma above the flag)";
  if (prior_pull > kMaxPriorPull) return "set by the weak prior (the data moves it less than the prior does)";
  return "identified";
}

void report_parameters(const sim::LambdaVector<double>& prior_lambda, const FitStatus& st, const Uncertainty& u,
                       const IdentificationOptions& o, IdentificationResult& result) {
  result.parameters.resize(sim::kNumLambda);
  for (int k = 0; k < sim::kNumLambda; ++k) {
    ParameterResult& pr = result.parameters[k];
    pr.index = k;
    pr.prior = prior_lambda(k);
    pr.value = result.lambda(k);
    if (st.free[k]) {
      const bool combination = st.combination.count(k) != 0;
      pr.sigma = std::sqrt(std::max(0.0, u.total(k, k)));
      pr.sigma_camera = std::sqrt(std::max(0.0, u.camera(k, k)));
      // The one rule the report's reader checks by (spread.hpp): log coordinates, or a first
      // moment judged against at least a 1 mm offset of the centre of mass.
      const ParameterSpread spread = parameter_spread(k, pr.value, pr.sigma, result.lambda(sim::platform_index(0)));
      pr.rel_sigma = spread.rel_sigma;
      pr.interval_low = spread.low;
      pr.interval_high = spread.high;
      pr.prior_pull = pr.sigma > 0 ? std::abs(u.prior_shift(k)) / pr.sigma : 0;
      pr.flagged = pr.rel_sigma > o.rel_sigma_flag;
      pr.status = fitted_status(combination, pr.flagged, pr.prior_pull);
      pr.identified = pr.status == "identified";
      if (o.spec[k].mode == Mode::Tied) pr.status += " (tied)";
    } else {
      pr.status = st.status[k].empty() ? "fixed" : st.status[k];
    }
    result.identified_count += pr.identified;
  }
}


void report_latency(const Context& cx, const Fit& fit, const FitStatus& st, const Uncertainty& u,
                    IdentificationResult& result) {
  LatencyResult& l = result.latency;
  l.value = fit.map().latency_offset(fit.delta.data());
  l.low = cx.latency.low;
  l.high = cx.latency.high;
  if (!cx.o.latency.fit) {
    l.status = "held (latency.fit: false)";
    return;
  }
  if (!st.latency_free || fit.map().latency.coord < 0) {
    l.status = st.latency_status.empty() ? "not fitted (no free parameter of Lambda)" : st.latency_status;
    return;
  }
  l.fitted = true;
  l.sigma = std::sqrt(std::max(0.0, u.latency_var));
  l.sigma_camera = std::sqrt(std::max(0.0, u.latency_var_camera));
  l.prior_pull = l.sigma > 0 ? std::abs(u.latency_prior_shift) / l.sigma : 0;
  l.status = LatencyResult::fitted_status(l.value, l.low, l.high);
}

void make_result_consistent(IdentificationResult& result, const sim::RobotModel& geometry) {
  std::array<bool, sim::kNumLambda> identified{};
  for (const ParameterResult& p : result.parameters) identified[static_cast<std::size_t>(p.index)] = p.identified;
  ConsistentModel c = make_consistent(result.lambda, identified, geometry);
  result.lambda = c.lambda;
  result.moved = std::move(c.moved);
  for (ParameterResult& p : result.parameters) p.value = result.lambda(p.index);
}


}  // namespace vcloe::oe_ident
