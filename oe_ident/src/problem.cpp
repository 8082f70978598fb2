#include "vcloe/oe_ident/problem.hpp"

#include <ceres/ceres.h>

#include <Eigen/SVD>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "vcloe/core/error.hpp"
#include "vcloe/excitation/criteria.hpp"
#include "vcloe/oe_ident/sensitivity.hpp"
#include "vcloe/servo/twin.hpp"

namespace vcloe::oe_ident {

using Clock = std::chrono::steady_clock;

std::string Anchor::describe() const {
  switch (kind) {
    case AnchorKind::None:
      return "none";
    case AnchorKind::KnownParameter:
      return "known " + sim::parameter_registry()[parameter].name + " = " + std::to_string(value) + " " +
             sim::parameter_registry()[parameter].unit;
    case AnchorKind::Payload:
      return "payload experiment";
  }
  return "?";
}

sim::LambdaVector<double> with_payload(const sim::LambdaVector<double>& lambda, const std::optional<Payload>& payload) {
  sim::LambdaVector<double> l = lambda;
  if (payload) {
    l(sim::platform_index(0)) += payload->mass;
    for (int k = 0; k < 3; ++k) l(sim::platform_index(1 + k)) += payload->inertia(k);
  }
  return l;
}

std::array<double, 6> rms_error(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                                const servo::OuterGains& gains, const Experiment& e) {
  const auto r = servo::simulate_twin<double>(model, with_payload(lambda, e.payload), e.reference, gains);
  if (!r.ok) fail(e.name, "twin failed: " + r.failure);
  std::array<double, 6> out{};
  for (std::size_t j = 0; j < r.true_pose.size(); ++j)
    for (int c = 0; c < 6; ++c) out[c] += std::pow(e.measured[j](c) - r.true_pose[j](c), 2);
  for (int c = 0; c < 6; ++c) out[c] = std::sqrt(out[c] / static_cast<double>(r.true_pose.size())) * 1e3;
  return out;
}

namespace {

bool positive_kind(sim::ParameterKind k) { return k != sim::ParameterKind::Coulomb && k != sim::ParameterKind::Viscous; }

// The map from the optimiser's coordinates delta to Lambda: one coordinate per free parameter
// or tie group; log coordinates for positive kinds, linear (bounded below by 0) for friction;
// the platform's principal moments, when all three are free, through L = (Iy + Iz - Ix)/2 etc.
// (Ix = Ly + Lz, ...), so any delta gives moments obeying the triangle inequalities.
struct Coordinates {
  struct Coord {
    std::vector<int> members;  // registry indices sharing this value
    bool log = true;
    int platform_moment = -1;  // 0..2 for the platform L coordinates
  };
  std::vector<Coord> coords;
  sim::LambdaVector<double> base;  // fixed values

  int size() const { return static_cast<int>(coords.size()); }

  sim::LambdaVector<double> lambda(const double* d) const {
    sim::LambdaVector<double> l = base;
    Vec3d L = Vec3d::Zero();
    bool platform = false;
    for (int c = 0; c < size(); ++c) {
      const Coord& co = coords[c];
      if (co.platform_moment >= 0) {
        L(co.platform_moment) = std::exp(d[c]);
        platform = true;
        continue;
      }
      const double v = co.log ? std::exp(d[c]) : d[c];
      for (int m : co.members) l(m) = v;
    }
    if (platform) {
      l(sim::platform_index(1)) = L(1) + L(2);
      l(sim::platform_index(2)) = L(0) + L(2);
      l(sim::platform_index(3)) = L(0) + L(1);
    }
    return l;
  }

  // d Lambda / d delta (67 x q).
  Eigen::MatrixXd jacobian(const double* d) const {
    Eigen::MatrixXd P = Eigen::MatrixXd::Zero(sim::kNumLambda, size());
    for (int c = 0; c < size(); ++c) {
      const Coord& co = coords[c];
      if (co.platform_moment >= 0) {
        const double Lk = std::exp(d[c]);
        for (int a = 0; a < 3; ++a)
          if (a != co.platform_moment) P(sim::platform_index(1 + a), c) = Lk;  // I_a = sum of the other L's
        continue;
      }
      const double dv = co.log ? std::exp(d[c]) : 1.0;
      for (int m : co.members) P(m, c) = dv;
    }
    return P;
  }

  std::vector<double> initial(const sim::LambdaVector<double>& prior) const {
    std::vector<double> d(static_cast<std::size_t>(size()));
    const double Ix = prior(sim::platform_index(1)), Iy = prior(sim::platform_index(2)), Iz = prior(sim::platform_index(3));
    const Vec3d L(0.5 * (Iy + Iz - Ix), 0.5 * (Ix + Iz - Iy), 0.5 * (Ix + Iy - Iz));
    const double floor = 1e-3 * (Ix + Iy + Iz);
    for (int c = 0; c < size(); ++c) {
      const Coord& co = coords[c];
      if (co.platform_moment >= 0) {
        d[static_cast<std::size_t>(c)] = std::log(std::max(L(co.platform_moment), floor));
        continue;
      }
      double mean = 0;
      for (int m : co.members) mean += prior(m) / static_cast<double>(co.members.size());
      d[static_cast<std::size_t>(c)] = co.log ? std::log(mean) : std::max(mean, 0.0);
    }
    return d;
  }
};

Coordinates build_coordinates(const sim::LambdaVector<double>& base, const std::vector<bool>& free,
                              const std::vector<ParameterSpec>& spec) {
  Coordinates cs;
  cs.base = base;
  const auto& reg = sim::parameter_registry();
  const int Ix = sim::platform_index(1), Iy = sim::platform_index(2), Iz = sim::platform_index(3);
  const bool platform_moments = free[Ix] && free[Iy] && free[Iz] && spec[Ix].mode == Mode::Free &&
                                spec[Iy].mode == Mode::Free && spec[Iz].mode == Mode::Free;
  std::map<int, int> group_coord;
  for (int k = 0; k < sim::kNumLambda; ++k) {
    if (!free[k]) continue;
    if (platform_moments && (k == Ix || k == Iy || k == Iz)) {
      Coordinates::Coord c;
      c.members = {k};
      c.platform_moment = k - Ix;
      cs.coords.push_back(c);
      continue;
    }
    if (spec[k].mode == Mode::Tied) {
      auto it = group_coord.find(spec[k].tie_group);
      if (it != group_coord.end()) {
        cs.coords[static_cast<std::size_t>(it->second)].members.push_back(k);
        continue;
      }
      group_coord[spec[k].tie_group] = cs.size();
    }
    Coordinates::Coord c;
    c.members = {k};
    c.log = positive_kind(reg[k].kind);
    cs.coords.push_back(c);
  }
  return cs;
}

// All experiments' weighted residuals r = (measured - twin) / sigma, and optionally J = dr/ddelta.
class OutputErrorCost final : public ceres::CostFunction {
 public:
  OutputErrorCost(const sim::RobotModel& model, const servo::OuterGains& gains, const std::vector<Experiment>& exps,
                  const Coordinates& coords, const Vec6d& sigma, int threads)
      : model_(model), gains_(gains), exps_(exps), coords_(coords), sigma_(sigma), threads_(std::max(1, threads)) {
    int rows = 0;
    for (const Experiment& e : exps_) {
      offsets_.push_back(rows);
      rows += 6 * static_cast<int>(e.measured.size());
    }
    set_num_residuals(rows);
    mutable_parameter_block_sizes()->push_back(coords_.size());
  }

  bool Evaluate(double const* const* parameters, double* residuals, double** jacobians) const override {
    const auto start = Clock::now();
    const double* d = parameters[0];
    const sim::LambdaVector<double> lambda = coords_.lambda(d);
    const bool want_jacobian = jacobians != nullptr && jacobians[0] != nullptr;
    const Eigen::MatrixXd P = want_jacobian ? coords_.jacobian(d) : Eigen::MatrixXd();
    const int q = coords_.size();
    std::atomic<bool> ok{true};
    auto run = [&](std::size_t e) {
      const Experiment& ex = exps_[e];
      const sim::LambdaVector<double> le = with_payload(lambda, ex.payload);
      const int off = offsets_[e];
      if (want_jacobian) {
        const int inner_threads = std::max(1, threads_ / static_cast<int>(std::min<std::size_t>(exps_.size(), threads_)));
        const TwinSensitivity s = simulate_twin_sensitivity(model_, le, ex.reference, gains_, P, inner_threads);
        if (!s.trace.ok) return void(ok = false);
        for (std::size_t j = 0; j < ex.measured.size(); ++j)
          for (int c = 0; c < 6; ++c) {
            const int row = off + 6 * static_cast<int>(j) + c;
            residuals[row] = (ex.measured[j](c) - s.trace.true_pose[j](c)) / sigma_(c);
            for (int k = 0; k < q; ++k) jacobians[0][row * q + k] = -s.d_pose[j](c, k) / sigma_(c);
          }
      } else {
        const auto r = servo::simulate_twin<double>(model_, le, ex.reference, gains_);
        if (!r.ok) return void(ok = false);
        for (std::size_t j = 0; j < ex.measured.size(); ++j)
          for (int c = 0; c < 6; ++c)
            residuals[off + 6 * static_cast<int>(j) + c] = (ex.measured[j](c) - r.true_pose[j](c)) / sigma_(c);
      }
    };
    // Experiments in parallel (both cores with a payload experiment).
    std::vector<std::thread> pool;
    for (std::size_t e = 1; e < exps_.size(); ++e) {
      if (static_cast<int>(pool.size()) + 1 < threads_) pool.emplace_back(run, e);
      else run(e);
    }
    run(0);
    for (auto& t : pool) t.join();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::lock_guard<std::mutex> lock(mutex_);
    (want_jacobian ? jacobian_time_ : residual_time_) += seconds;
    ++(want_jacobian ? jacobian_calls_ : residual_calls_);
    return ok;  // false: Ceres rejects the step (a diverging twin never crashes the fit)
  }

  double cost_ratio() const {
    if (jacobian_calls_ == 0 || residual_calls_ == 0) return 0;
    return (jacobian_time_ / jacobian_calls_) / (residual_time_ / residual_calls_);
  }

 private:
  const sim::RobotModel& model_;
  const servo::OuterGains& gains_;
  const std::vector<Experiment>& exps_;
  const Coordinates& coords_;
  Vec6d sigma_;
  int threads_;
  std::vector<int> offsets_;
  mutable std::mutex mutex_;
  mutable double jacobian_time_ = 0, residual_time_ = 0;
  mutable int jacobian_calls_ = 0, residual_calls_ = 0;
};

// The weighted Jacobian at delta as a dense matrix (rows: residuals, columns: coordinates).
Eigen::MatrixXd weighted_jacobian(const OutputErrorCost& cost, const std::vector<double>& delta, const char* where) {
  const int q = static_cast<int>(delta.size());
  std::vector<double> r(static_cast<std::size_t>(cost.num_residuals()));
  std::vector<double> J(r.size() * static_cast<std::size_t>(q));
  const double* params[1] = {delta.data()};
  double* jac[1] = {J.data()};
  if (!cost.Evaluate(params, r.data(), jac)) fail("identify", std::string("the twin failed at ") + where);
  return Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(J.data(), cost.num_residuals(), q);
}

void check_experiments(const std::vector<Experiment>& exps, const IdentificationOptions& o) {
  if (exps.empty()) fail("identify", "no experiment given");
  for (const Experiment& e : exps) {
    if (e.measured.size() != e.reference.exposure_times.size())
      fail(e.name, "measured trace has " + std::to_string(e.measured.size()) + " poses but the experiment exposes " +
                       std::to_string(e.reference.exposure_times.size()) + " frames");
    for (std::size_t j = 0; j < e.measured.size(); ++j)
      if (!e.measured[j].allFinite()) fail(e.name, "non-finite measured pose at frame " + std::to_string(j));
  }
  for (int c = 0; c < 6; ++c)
    if (!(o.sigma(c) > 0)) fail("identify", "noise sigma must be positive on every channel");
  switch (o.anchor.kind) {
    case AnchorKind::None:
      fail("identify",
           "no scale anchor: pose data alone cannot fix the scale (multiplying every inertia, mass, friction "
           "coefficient and the three joint PID gains by one factor leaves every pose trace unchanged, seed 004 "
           "eq. 32). Give a known mass (anchor: {parameter: m_p, value: ...}), a known gain, or a second "
           "experiment with a known payload");
    case AnchorKind::KnownParameter: {
      const auto k = sim::parameter_registry()[static_cast<std::size_t>(o.anchor.parameter)].kind;
      if (k != sim::ParameterKind::Mass && k != sim::ParameterKind::GainP && k != sim::ParameterKind::GainI &&
          k != sim::ParameterKind::GainD)
        fail("identify", "the anchor must be a mass or a joint PID gain");
      if (!(o.anchor.value > 0)) fail("identify", "the anchor value must be positive");
      break;
    }
    case AnchorKind::Payload: {
      int with = 0, without = 0;
      for (const Experiment& e : exps) (e.payload ? with : without)++;
      if (with == 0 || without == 0)
        fail("identify", "a payload anchor needs one experiment with the known payload and one without");
      for (const Experiment& e : exps)
        if (e.payload && !(e.payload->mass > 0)) fail(e.name, "payload mass must be positive");
      break;
    }
  }
}

}  // namespace

std::vector<ParameterSpec> default_specification() {
  std::vector<ParameterSpec> spec(sim::kNumLambda);
  for (int i = 0; i < sim::kLegs; ++i) {
    spec[sim::wrench_index(i, 0)].mode = Mode::Fixed;
    spec[sim::link_index(i, 0)].mode = Mode::Fixed;
    spec[sim::link_index(i, 1)] = {Mode::Tied, 100 + i};
    spec[sim::link_index(i, 2)] = {Mode::Tied, 100 + i};
  }
  return spec;
}

IdentificationResult identify(const sim::RobotModel& prior, const servo::OuterGains& gains,
                              const std::vector<Experiment>& exps, const IdentificationOptions& o) {
  check_experiments(exps, o);
  const auto start = Clock::now();
  const auto& reg = sim::parameter_registry();
  IdentificationResult result;
  result.parameters.resize(sim::kNumLambda);

  sim::LambdaVector<double> base = prior.lambda;
  std::vector<bool> free(sim::kNumLambda, true);
  std::vector<std::string> status(sim::kNumLambda);
  for (int k = 0; k < sim::kNumLambda; ++k)
    if (o.spec[static_cast<std::size_t>(k)].mode == Mode::Fixed) {
      free[k] = false;
      status[k] = "fixed (configuration)";
    }
  if (o.anchor.kind == AnchorKind::KnownParameter) {
    base(o.anchor.parameter) = o.anchor.value;
    free[o.anchor.parameter] = false;
    status[o.anchor.parameter] = "fixed (scale anchor)";
  }
  for (const Experiment& e : exps) {
    const auto r = servo::simulate_twin<double>(prior, with_payload(base, e.payload), e.reference, gains);
    if (!r.ok) fail(e.name, "the twin cannot run at the priors: " + r.failure);
    result.before_rms.push_back(rms_error(prior, base, gains, e));
  }

  // Identifiability: QR (registry order) of the relative-sensitivity Jacobian at the current
  // point; dependent columns are fixed and everything in their relation is reported as
  // identifiable only in combination. Repeated at the solution (SVD) until nothing is left.
  std::set<int> combination;  // registry indices identifiable only in combination
  std::vector<double> delta;
  Coordinates coords;
  int total_iterations = 0;
  double ratio = 0;
  ceres::Solver::Summary summary;
  for (int round = 0; round < 4; ++round) {
    coords = build_coordinates(base, free, o.spec);
    if (coords.size() == 0) fail("identify", "no free parameter left to identify");
    if (delta.empty() || static_cast<int>(delta.size()) != coords.size()) delta = coords.initial(base);
    OutputErrorCost* cost = new OutputErrorCost(prior, gains, exps, coords, o.sigma, o.threads);

    // Structural analysis at the starting point.
    {
      const excitation::ColumnReport rep =
          excitation::excited_columns(weighted_jacobian(*cost, delta, "the starting point"), o.qr_eps);
      if (!rep.dropped.empty()) {
        for (const auto& u : rep.dropped) {
          const auto& dropped = coords.coords[static_cast<std::size_t>(u.parameter)];
          for (int m : dropped.members) {
            free[m] = false;
            if (u.zero_column) {
              status[m] = "not excited (no effect on the pose trace)";
            } else {
              std::string with;
              for (int c : u.combined_with)
                for (int m2 : coords.coords[static_cast<std::size_t>(c)].members) {
                  with += (with.empty() ? "" : ", ") + reg[m2].name;
                  combination.insert(m2);
                }
              status[m] = "only in combination with " + with;
            }
          }
        }
        delete cost;
        delta.clear();
        continue;  // rebuild without the dropped coordinates
      }
    }

    ceres::Problem problem;
    problem.AddResidualBlock(cost,
                             o.loss == Loss::Huber    ? static_cast<ceres::LossFunction*>(new ceres::HuberLoss(o.loss_scale))
                             : o.loss == Loss::Cauchy ? new ceres::CauchyLoss(o.loss_scale)
                                                      : nullptr,
                             delta.data());
    for (int c = 0; c < coords.size(); ++c)
      if (!coords.coords[static_cast<std::size_t>(c)].log) problem.SetParameterLowerBound(delta.data(), c, 0.0);
    ceres::Solver::Options so;
    so.minimizer_type = ceres::TRUST_REGION;
    so.trust_region_strategy_type = ceres::LEVENBERG_MARQUARDT;
    so.linear_solver_type = ceres::DENSE_QR;
    so.function_tolerance = o.tol1;   // eq. (35), first rule
    so.parameter_tolerance = o.tol2;  // eq. (35), second rule
    so.gradient_tolerance = 1e-14;
    so.max_num_iterations = o.max_iterations;
    so.minimizer_progress_to_stdout = o.verbose;
    so.num_threads = 1;
    ceres::Solve(so, &problem, &summary);
    total_iterations += static_cast<int>(summary.iterations.size()) - 1;
    ratio = cost->cost_ratio();
    if (o.verbose) std::cerr << summary.BriefReport() << "\n";

    // Null space at the solution.
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(weighted_jacobian(*cost, delta, "the solution"), Eigen::ComputeThinV);
    const Eigen::VectorXd sv = svd.singularValues();
    bool dropped_any = false;
    for (int i = 0; i < coords.size(); ++i) {
      if (sv(i) >= o.rank_tolerance * sv(0)) continue;
      int worst = 0;
      svd.matrixV().col(i).cwiseAbs().maxCoeff(&worst);
      for (int m : coords.coords[static_cast<std::size_t>(worst)].members) {
        free[m] = false;
        status[m] = "unidentifiable at the solution (null space of the Jacobian)";
      }
      dropped_any = true;
    }
    if (dropped_any) {
      base = coords.lambda(delta.data());  // keep the fitted values of the others as the new start
      for (int k = 0; k < sim::kNumLambda; ++k)
        if (!free[k] && status[k].rfind("unidentifiable", 0) == 0) base(k) = prior.lambda(k);
      delta.clear();
      continue;
    }

    // Covariance from whitened residuals: s^2 (J^T J)^-1, s^2 = RSS / (N - q).
    const double dof = std::max(1, cost->num_residuals() - coords.size());
    const double s2 = 2.0 * summary.final_cost / dof;
    const Eigen::MatrixXd V = svd.matrixV();
    const Eigen::MatrixXd cov_delta = s2 * V * sv.array().square().inverse().matrix().asDiagonal() * V.transpose();
    const Eigen::MatrixXd P = coords.jacobian(delta.data());
    const Eigen::MatrixXd cov_lambda = P * cov_delta * P.transpose();
    result.lambda = coords.lambda(delta.data());
    for (int k = 0; k < sim::kNumLambda; ++k) {
      ParameterResult& pr = result.parameters[k];
      pr.index = k;
      pr.prior = prior.lambda(k);
      pr.value = result.lambda(k);
      if (free[k]) {
        pr.sigma = std::sqrt(std::max(0.0, cov_lambda(k, k)));
        pr.rel_sigma = pr.sigma / std::max(std::abs(pr.value), 1e-300);
        pr.identified = combination.count(k) == 0;
        pr.flagged = pr.rel_sigma > o.rel_sigma_flag;
        pr.status = pr.identified ? "identified" : "fitted, but only identifiable in combination";
        if (o.spec[k].mode == Mode::Tied) pr.status += " (tied)";
      } else {
        pr.status = status[k].empty() ? "fixed" : status[k];
      }
      result.identified_count += pr.identified;
    }
    result.termination = summary.BriefReport();
    break;
  }
  if (result.parameters[0].status.empty()) fail("identify", "identifiability analysis did not converge");

  for (const Experiment& e : exps) result.after_rms.push_back(rms_error(prior, result.lambda, gains, e));
  result.consistency = sim::check_physical_consistency(result.lambda);
  result.iterations = total_iterations;
  result.jacobian_cost_ratio = ratio;
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace vcloe::oe_ident
