// oe_ident/src/output_error.cpp — weighted output-error residuals, the twin runs behind them,
// and their ceres::CostFunction (output_error.hpp).
#include "output_error.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ostream>
#include <thread>

#include "vcloe/core/error.hpp"
#include "vcloe/oe_ident/sensitivity.hpp"
#include "vcloe/servo/twin.hpp"

namespace vcloe::oe_ident {

using Clock = std::chrono::steady_clock;

OutputError::OutputError(const sim::RobotModel& model, const servo::OuterGains& gains,
                         const std::vector<Experiment>& experiments, ParameterMap map, const Vec6d& sigma)
    : model_(model), gains_(gains), exps_(experiments), map_(std::move(map)), sigma_(sigma) {
  for (const Experiment& e : exps_) {
    offsets_.push_back(rows_);
    rows_ += 6 * static_cast<int>(e.measured.size());
  }
}

bool OutputError::experiment(std::size_t e, const sim::LambdaVector<double>& lambda, double latency_offset,
                             const Eigen::MatrixXd* P, double latency_derivative, int threads, double* r,
                             double* J) const {
  const Experiment& ex = exps_[e];
  const sim::LambdaVector<double> le = with_payload(lambda, ex.payload);
  const int off = offsets_[e];
  const int q = map_.size(), lc = map_.latency.coord;
  if (P != nullptr) {
    const TwinSensitivity s =
        simulate_twin_sensitivity(model_, le, ex.reference, gains_, *P, threads, latency_offset, lc);
    if (!s.trace.ok) return false;
    for (std::size_t j = 0; j < ex.measured.size(); ++j) {
      const std::size_t x = ex.exposure(j);
      const Vec6d d = measured_minus_twin(ex.measured[j], s.trace.measured[x]);
      for (int c = 0; c < 6; ++c) {
        const int row = off + 6 * static_cast<int>(j) + c;
        r[row] = d(c) / sigma_(c);
        for (int k = 0; k < q; ++k) J[row * q + k] = -s.d_pose[x](c, k) / sigma_(c);
        if (lc >= 0) J[row * q + lc] *= latency_derivative;  // d offset / d delta_c
      }
    }
    return true;
  }
  const auto t = servo::simulate_twin<double>(model_, le, ex.reference, gains_, latency_offset);
  if (!t.ok) return false;
  for (std::size_t j = 0; j < ex.measured.size(); ++j) {
    const Vec6d d = measured_minus_twin(ex.measured[j], t.measured[ex.exposure(j)]);
    for (int c = 0; c < 6; ++c) r[off + 6 * static_cast<int>(j) + c] = d(c) / sigma_(c);
  }
  return true;
}

TwinRuns::TwinRuns(OutputError output_error, int threads) : oe_(std::move(output_error)), threads_(std::max(1, threads)) {}

bool TwinRuns::run_experiments(const double* delta, double* r, double* J) const {
  const std::vector<Experiment>& exps = oe_.experiments();
  const sim::LambdaVector<double> lambda = oe_.map().lambda(delta);
  const double offset = oe_.map().latency_offset(delta), offset_derivative = oe_.map().latency_derivative(delta);
  const Eigen::MatrixXd P = J != nullptr ? oe_.map().jacobian(delta) : Eigen::MatrixXd();
  // The sensitivity's own threads: the cores the experiments leave.
  const int inner_threads = std::max(1, threads_ / static_cast<int>(std::min<std::size_t>(exps.size(), threads_)));
  std::atomic<bool> ok{true};
  auto run = [&](std::size_t e) {
    if (!oe_.experiment(e, lambda, offset, J != nullptr ? &P : nullptr, offset_derivative, inner_threads, r, J))
      ok = false;
  };
  // Experiments in parallel (both cores with a payload experiment).
  std::vector<std::thread> pool;
  for (std::size_t e = 1; e < exps.size(); ++e) {
    if (static_cast<int>(pool.size()) + 1 < threads_) pool.emplace_back(run, e);
    else run(e);
  }
  run(0);
  for (auto& t : pool) t.join();
  return ok;
}

bool TwinRuns::evaluate(const double* delta, double* r, double* J) {
  const auto start = Clock::now();
  if (J != nullptr && serve_from_cache(delta, r, J)) return true;
  const bool ok = run_experiments(delta, r, J);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::lock_guard<std::mutex> lock(mutex_);
  (J != nullptr ? jacobian_time_ : residual_time_) += seconds;
  ++(J != nullptr ? jacobian_calls_ : residual_calls_);
  if (!ok) ++failed_calls_;
  if (ok && J != nullptr) {  // kept: the identifiability analysis needs it at the same point
    const int q = num_coordinates();
    cached_delta_.assign(delta, delta + q);
    cached_r_.assign(r, r + num_residuals());
    cached_J_.assign(J, J + static_cast<std::size_t>(num_residuals()) * q);
  }
  return ok;
}

bool TwinRuns::serve_from_cache(const double* delta, double* r, double* J) const {
  const int q = num_coordinates();
  if (static_cast<int>(cached_delta_.size()) != q || cached_J_.empty()) return false;
  for (int k = 0; k < q; ++k)
    if (cached_delta_[static_cast<std::size_t>(k)] != delta[k]) return false;
  std::copy(cached_r_.begin(), cached_r_.end(), r);
  std::copy(cached_J_.begin(), cached_J_.end(), J);
  return true;
}

Eigen::MatrixXd TwinRuns::jacobian(const std::vector<double>& delta, const char* where) {
  const int q = static_cast<int>(delta.size());
  std::vector<double> r(static_cast<std::size_t>(num_residuals()));
  std::vector<double> J(r.size() * static_cast<std::size_t>(q));
  if (!evaluate(delta.data(), r.data(), J.data())) fail("identify", std::string("the twin failed at ") + where);
  return Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(J.data(), num_residuals(), q);
}

void TwinRuns::seed_cache(const std::vector<double>& delta, const std::vector<double>& r, const std::vector<double>& J) {
  std::lock_guard<std::mutex> lock(mutex_);
  cached_delta_ = delta;
  cached_r_ = r;
  cached_J_ = J;
}

double TwinRuns::cost_ratio() const {
  if (jacobian_calls_ == 0 || residual_calls_ == 0) return 0;
  return (jacobian_time_ / jacobian_calls_) / (residual_time_ / residual_calls_);
}

void TwinRuns::print_timing(std::ostream& os) const {
  os << "twin runs: " << residual_calls_ << " in " << residual_time_ << " s; sensitivity runs: " << jacobian_calls_
     << " in " << jacobian_time_ << " s; failed: " << failed_calls_ << "\n";
}

OutputErrorCost::OutputErrorCost(TwinRuns& runs) : runs_(runs) {
  set_num_residuals(runs.num_residuals());
  mutable_parameter_block_sizes()->push_back(runs.num_coordinates());
}

bool OutputErrorCost::Evaluate(double const* const* parameters, double* residuals, double** jacobians) const {
  return runs_.evaluate(parameters[0], residuals, jacobians != nullptr ? jacobians[0] : nullptr);
}

}  // namespace vcloe::oe_ident
