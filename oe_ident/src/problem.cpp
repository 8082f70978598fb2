#include "vcloe/oe_ident/problem.hpp"

#include <ceres/ceres.h>

#include <Eigen/SVD>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
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
                                const servo::OuterGains& gains, const Experiment& e, const std::string& where) {
  const auto r = servo::simulate_twin<double>(model, with_payload(lambda, e.payload), e.reference, gains);
  if (!r.ok) fail(e.name, "the twin cannot run " + where + ": " + r.failure);
  std::array<double, 6> out{};
  for (std::size_t j = 0; j < r.true_pose.size(); ++j)
    for (int c = 0; c < 6; ++c) out[c] += std::pow(e.measured[j](c) - r.true_pose[j](c), 2);
  for (int c = 0; c < 6; ++c) out[c] = std::sqrt(out[c] / static_cast<double>(r.true_pose.size())) * 1e3;
  return out;
}

namespace {

bool friction_kind(sim::ParameterKind k) { return k == sim::ParameterKind::Coulomb || k == sim::ParameterKind::Viscous; }

// The map from the optimiser's coordinates delta to Lambda: one coordinate per free parameter
// or tie group; log coordinates for every kind (masses, moments and gains stay positive,
// friction non-negative, and no bounds are needed: bounded steps cost Ceres Jacobians in a line
// search); the platform's principal moments, when all three are free, through L = (Iy + Iz - Ix)/2 etc.
// (Ix = Ly + Lz, ...), so any delta gives moments obeying the triangle inequalities.
struct Coordinates {
  struct Coord {
    std::vector<int> members;  // registry indices sharing this value
    bool log = true;
    int platform_moment = -1;  // 0..2 for the platform L coordinates
    double floor = 0;          // smallest starting value (log coordinates of a zero prior)
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
      // A zero friction prior starts at 1e-3 (N*m, N*m*s/rad): the log form needs a positive start.
      d[static_cast<std::size_t>(c)] = co.log ? std::log(std::max(mean, co.floor)) : mean;
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
    c.log = true;  // every kind: masses, moments, gains positive; friction non-negative
    c.floor = friction_kind(reg[k].kind) ? 1e-3 : 0.0;
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
    const bool want = jacobians != nullptr && jacobians[0] != nullptr;
    if (want && serve_from_cache(d, residuals, jacobians[0])) return true;
    const sim::LambdaVector<double> lambda = coords_.lambda(d);
    const bool want_jacobian = want;
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
    if (!ok) ++failed_calls_;
    if (ok && want_jacobian) {  // kept: the identifiability analysis needs it at the same point
      cached_delta_.assign(d, d + q);
      cached_r_.assign(residuals, residuals + num_residuals());
      cached_J_.assign(jacobians[0], jacobians[0] + static_cast<std::size_t>(num_residuals()) * q);
    }
    return ok;  // false: Ceres rejects the step (a diverging twin never crashes the fit)
  }

  // Seeds the cache with a Jacobian computed elsewhere at delta (e.g. columns of a larger one).
  void seed_cache(const std::vector<double>& delta, const std::vector<double>& r, const std::vector<double>& J) {
    cached_delta_ = delta;
    cached_r_ = r;
    cached_J_ = J;
  }
  int failed_calls() const { return failed_calls_; }
  const std::vector<double>& cached_residuals() const { return cached_r_; }
  void print_timing(std::ostream& os) const {
    os << "twin runs: " << residual_calls_ << " in " << residual_time_ << " s; sensitivity runs: " << jacobian_calls_
       << " in " << jacobian_time_ << " s; failed: " << failed_calls_ << "\n";
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
  mutable int jacobian_calls_ = 0, residual_calls_ = 0, failed_calls_ = 0;
  mutable std::vector<double> cached_delta_, cached_r_, cached_J_;

  bool serve_from_cache(const double* d, double* residuals, double* J) const {
    const int q = coords_.size();
    if (static_cast<int>(cached_delta_.size()) != q || cached_J_.empty()) return false;
    for (int k = 0; k < q; ++k)
      if (cached_delta_[static_cast<std::size_t>(k)] != d[k]) return false;
    std::copy(cached_r_.begin(), cached_r_.end(), residuals);
    std::copy(cached_J_.begin(), cached_J_.end(), J);
    return true;
  }
};

// A weak Gaussian prior on the log coordinates around the start.
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

// Mean over experiments and channels of the integrated autocorrelation time
// tau = 1 + 2 sum_{k=1..M} rho_k of the weighted residual series (row 6 j + c of each
// experiment), with Sokal's automatic window: the smallest M >= 5 tau(M).
double correlation_factor(const std::vector<double>& r, const std::vector<Experiment>& exps) {
  double sum = 0;
  int series = 0;
  std::size_t off = 0;
  for (const Experiment& e : exps) {
    const std::size_t n = e.measured.size();
    for (int c = 0; c < 6 && n > 20; ++c) {
      std::vector<double> x(n);
      double mean = 0;
      for (std::size_t j = 0; j < n; ++j) mean += (x[j] = r[off + 6 * j + static_cast<std::size_t>(c)]) / static_cast<double>(n);
      double c0 = 0;
      for (double& v : x) {
        v -= mean;
        c0 += v * v;
      }
      if (!(c0 > 0)) continue;
      double tau = 1;
      for (std::size_t k = 1; k < n / 2 && static_cast<double>(k) < 5 * tau; ++k) {
        double ck = 0;
        for (std::size_t j = k; j < n; ++j) ck += x[j] * x[j - k];
        tau += 2 * ck / c0;
      }
      sum += std::max(1.0, tau);
      ++series;
    }
    off += 6 * n;
  }
  return series ? sum / series : 1.0;
}

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
  if (o.horizons.empty() || o.horizons.back() != 1.0)
    fail("identify", "horizons must end with 1 (the whole record)");
  for (std::size_t i = 0; i < o.horizons.size(); ++i)
    if (!(o.horizons[i] > 0 && o.horizons[i] <= 1) || (i > 0 && !(o.horizons[i] > o.horizons[i - 1])))
      fail("identify", "horizons must increase within (0, 1]");
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

IdentificationResult identify(const sim::RobotModel& prior, const sim::LambdaVector<double>& prior_lambda,
                              const servo::OuterGains& gains, const std::vector<Experiment>& exps,
                              const IdentificationOptions& o) {
  check_experiments(exps, o);
  const auto start = Clock::now();
  const auto& reg = sim::parameter_registry();
  IdentificationResult result;
  result.parameters.resize(sim::kNumLambda);

  sim::LambdaVector<double> base = prior_lambda;
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
  for (const Experiment& e : exps) result.before_rms.push_back(rms_error(prior, base, gains, e, "at the priors"));


  // Structural identifiability at the start: QR (registry order) of the weighted Jacobian's
  // unit-norm columns. Zero columns are not excited; dependent ones identifiable only in
  // combination. Both leave the fit at their starting values and are never reported as
  // identified.
  std::set<int> combination;
  Coordinates coords = build_coordinates(base, free, o.spec);
  if (coords.size() == 0) fail("identify", "no free parameter left to identify");
  std::vector<double> delta = coords.initial(base);
  base = coords.lambda(delta.data());  // the start as the coordinates represent it
  std::unique_ptr<OutputErrorCost> cost(new OutputErrorCost(prior, gains, exps, coords, o.sigma, o.threads));
  {
    const Eigen::MatrixXd J0 = weighted_jacobian(*cost, delta, "the starting point");
    const excitation::ColumnReport rep = excitation::excited_columns(J0, o.qr_eps);
    if (!rep.dropped.empty()) {
      std::set<int> dropped_coords;
      for (const auto& u : rep.dropped) {
        dropped_coords.insert(u.parameter);
        for (int m : coords.coords[static_cast<std::size_t>(u.parameter)].members) {
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
      // Rebuild without the dropped coordinates; the kept ones keep their order, so the
      // starting Jacobian is the old one's kept columns (no second evaluation).
      const int q0 = coords.size();
      const Coordinates old = coords;
      const std::vector<double> r_start = cost->cached_residuals();  // at delta, from J0's evaluation
      std::vector<double> d_new;
      for (int c = 0; c < q0; ++c)
        if (!dropped_coords.count(c)) d_new.push_back(delta[static_cast<std::size_t>(c)]);
      coords = build_coordinates(base, free, o.spec);
      if (coords.size() == 0) fail("identify", "no parameter has an effect on the measured poses");
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> Jk(J0.rows(), coords.size());
      for (int c = 0, kept = 0; c < q0; ++c)
        if (!dropped_coords.count(c)) Jk.col(kept++) = J0.col(c);
      delta = d_new;
      cost.reset(new OutputErrorCost(prior, gains, exps, coords, o.sigma, o.threads));
      bool same_columns = true;  // (a dropped platform moment changes the others' coordinates)
      for (int c = 0, kept = 0; c < q0; ++c)
        if (!dropped_coords.count(c)) {
          const auto& a = old.coords[static_cast<std::size_t>(c)];
          const auto& b = coords.coords[static_cast<std::size_t>(kept++)];
          same_columns = same_columns && a.members == b.members && a.platform_moment == b.platform_moment;
        }
      if (same_columns) cost->seed_cache(delta, r_start, std::vector<double>(Jk.data(), Jk.data() + Jk.size()));
      else delta = coords.initial(base);
    }
  }

  // Levenberg-Marquardt (eq. 35 stopping rules) on growing prefixes of the records (the
  // horizons), each stage starting where the last ended: far from the solution a short record
  // is both cheaper and less non-linear; the last stage is the whole record. A trial step where
  // the twin fails is rejected by Ceres like a step that raises the cost.
  const std::vector<double> start_delta = delta;
  ceres::Solver::Summary summary;
  for (std::size_t stage = 0; stage < o.horizons.size(); ++stage) {
    const bool last = stage + 1 == o.horizons.size();
    std::vector<Experiment> prefix;
    std::unique_ptr<OutputErrorCost> stage_cost;
    if (!last) {
      for (const Experiment& e : exps) {
        Experiment p = e;
        const auto frames = static_cast<std::size_t>(std::ceil(o.horizons[stage] * static_cast<double>(e.measured.size())));
        p.reference = servo::truncate_reference(e.reference, frames);
        p.measured.resize(p.reference.exposure_times.size());
        prefix.push_back(std::move(p));
      }
      stage_cost.reset(new OutputErrorCost(prior, gains, prefix, coords, o.sigma, o.threads));
    }
    OutputErrorCost& c = last ? *cost : *stage_cost;
    ceres::Problem::Options po;
    po.cost_function_ownership = ceres::DO_NOT_TAKE_OWNERSHIP;
    ceres::Problem problem(po);
    // Weak prior: (delta - delta_start) / prior_log_sigma per coordinate. It keeps directions the
    // poses hardly see from running away (log steps of hundreds) and is negligible for the
    // identified ones (their data information is many orders larger).
    std::unique_ptr<ceres::CostFunction> prior_cost;
    if (o.prior_log_sigma > 0) {
      auto* pc = new ceres::DynamicAutoDiffCostFunction<PriorResidual>(new PriorResidual(start_delta, o.prior_log_sigma));
      pc->AddParameterBlock(coords.size());
      pc->SetNumResiduals(coords.size());
      prior_cost.reset(pc);
      problem.AddResidualBlock(pc, nullptr, delta.data());
    }
    problem.AddResidualBlock(&c,
                             o.loss == Loss::Huber    ? static_cast<ceres::LossFunction*>(new ceres::HuberLoss(o.loss_scale))
                             : o.loss == Loss::Cauchy ? new ceres::CauchyLoss(o.loss_scale)
                                                      : nullptr,
                             delta.data());
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
    ceres::Solve(so, &problem, &summary);
    if (o.verbose) {
      std::cerr << "horizon " << o.horizons[stage] << ": " << summary.BriefReport() << " (" << summary.message << ")\n";
      c.print_timing(std::cerr);
    }
    result.iterations += static_cast<int>(summary.iterations.size()) - 1;
    result.rejected_steps += summary.num_unsuccessful_steps;
    result.failed_simulations += c.failed_calls();
  }
  result.jacobian_cost_ratio = cost->cost_ratio();

  // Identifiability at the solution: directions of the weighted Jacobian with singular values
  // below rank_tolerance * the largest are unidentifiable; the coordinate dominating each is
  // reported so (its value is where the damped fit left it, i.e. near the start) and left out
  // of the covariance.
  const Eigen::MatrixXd J = weighted_jacobian(*cost, delta, "the solution");
  std::vector<int> kept;
  {
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(J, Eigen::ComputeThinV);
    const Eigen::VectorXd sv = svd.singularValues();
    std::set<int> null_coords;
    for (int i = 0; i < coords.size(); ++i) {
      if (sv(i) >= o.rank_tolerance * sv(0)) continue;
      int worst = 0;
      svd.matrixV().col(i).cwiseAbs().maxCoeff(&worst);
      null_coords.insert(worst);
    }
    for (int c = 0; c < coords.size(); ++c) {
      if (!null_coords.count(c)) {
        kept.push_back(c);
        continue;
      }
      for (int m : coords.coords[static_cast<std::size_t>(c)].members) {
        free[m] = false;
        status[m] = "unidentifiable at the solution (null space of the Jacobian)";
      }
    }
  }
  // Covariance from whitened residuals: s^2 (J^T J)^-1 over the kept coordinates,
  // s^2 = RSS / (N - q), mapped to Lambda through d Lambda / d delta.
  Eigen::MatrixXd Jk(J.rows(), static_cast<Eigen::Index>(kept.size()));
  for (std::size_t c = 0; c < kept.size(); ++c) Jk.col(static_cast<Eigen::Index>(c)) = J.col(kept[c]);
  const double dof = std::max<double>(1.0, static_cast<double>(cost->num_residuals()) - static_cast<double>(kept.size()));
  // Residuals of a closed loop are coloured (unmodelled dynamics leave slow, correlated
  // errors), so N residuals carry less information than N independent ones: inflate by the
  // integrated autocorrelation time 1 + 2 sum rho_k of each channel (Bartlett window), averaged.
  result.residual_correlation_factor = correlation_factor(cost->cached_residuals(), exps);
  const double s2 = 2.0 * summary.final_cost / dof * result.residual_correlation_factor;
  const Eigen::MatrixXd cov_kept = s2 * (Jk.transpose() * Jk).ldlt().solve(Eigen::MatrixXd::Identity(Jk.cols(), Jk.cols()));
  const Eigen::MatrixXd P_full = coords.jacobian(delta.data());
  Eigen::MatrixXd P(sim::kNumLambda, static_cast<Eigen::Index>(kept.size()));
  for (std::size_t c = 0; c < kept.size(); ++c) P.col(static_cast<Eigen::Index>(c)) = P_full.col(kept[c]);
  const Eigen::MatrixXd cov_lambda = P * cov_kept * P.transpose();

  result.lambda = coords.lambda(delta.data());
  for (int k = 0; k < sim::kNumLambda; ++k) {
    ParameterResult& pr = result.parameters[k];
    pr.index = k;
    pr.prior = prior_lambda(k);
    pr.value = result.lambda(k);
    if (free[k]) {
      pr.sigma = std::sqrt(std::max(0.0, cov_lambda(k, k)));
      pr.rel_sigma = pr.sigma / std::max(std::abs(pr.value), 1e-300);
      pr.flagged = pr.rel_sigma > o.rel_sigma_flag;
      pr.identified = combination.count(k) == 0 && !pr.flagged;
      if (combination.count(k)) pr.status = "fitted, but only identifiable in combination";
      else if (pr.flagged) pr.status = "poorly determined (relative sigma above the flag)";
      else pr.status = "identified";
      if (o.spec[k].mode == Mode::Tied) pr.status += " (tied)";
    } else {
      pr.status = status[k].empty() ? "fixed" : status[k];
    }
    result.identified_count += pr.identified;
  }
  result.termination = summary.BriefReport();

  for (const Experiment& e : exps) result.after_rms.push_back(rms_error(prior, result.lambda, gains, e, "at the result"));
  result.consistency = sim::check_physical_consistency(result.lambda);
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace vcloe::oe_ident
