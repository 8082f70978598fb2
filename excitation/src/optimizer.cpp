#include "vcloe/excitation/optimizer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlopt.hpp>
#include <utility>
#include <vector>

#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/sim/kinematics.hpp"

namespace vcloe::excitation {

namespace {
// Continuous measure of how far a trajectory is from feasible (0 when every sample passes):
// the sum over samples of the relative exceedance of each limit.
double violation(const sim::RobotModel& model, const FourierTrajectory& tr, double period,
                 const MotionLimits& lim) {
  const double span = std::min(1.0 / tr.f0, tr.duration);
  const int n = std::max(1, static_cast<int>(std::lround(span / period)));
  double v = 0;
  sim::Kinematics<double> k;
  sim::RobotModel limits = model;
  limits.min_transmission = std::max(model.min_transmission, lim.min_transmission);
  limits.min_parallel_conditioning = std::max(model.min_parallel_conditioning, lim.min_parallel_conditioning);
  for (int i = 0; i <= n; ++i) {
    const TrajectorySample s = tr.sample(span * i / n);
    if (!sim::compute_kinematics<double>(model, s.chi, s.v, k)) {
      v += 1.0;
      continue;
    }
    v += pose_exceedance(limits, s.chi);
    const Vec6d qd = k.J_ad() * s.v, qdd = k.J_ad() * s.v_dot + k.J_ad_dot() * s.v;
    v += std::max(0.0, qd.cwiseAbs().maxCoeff() / lim.max_joint_velocity - 1);
    v += std::max(0.0, qdd.cwiseAbs().maxCoeff() / lim.max_joint_acceleration - 1);
  }
  return v;
}

// Decision vector x in [-1, 1]^(12 n) (+ f0): coefficient = x * bound, where the bound keeps
// each harmonic's excursion |s|/(2 pi f0 l) within the axis amplitude.
struct Encoding {
  const ExcitationProblem& p;
  Vec6d home;
  int size() const { return 12 * p.harmonics + (p.optimize_f0 ? 1 : 0); }
  double f0_of(const std::vector<double>& x) const {
    return p.optimize_f0 ? p.f0_min + 0.5 * (x.back() + 1) * (p.f0_max - p.f0_min) : p.f0;
  }
  FourierTrajectory decode(const std::vector<double>& x) const {
    FourierTrajectory tr;
    tr.f0 = f0_of(x);
    tr.duration = p.duration;
    tr.offset = home;
    tr.s.resize(6, p.harmonics);
    tr.c.resize(6, p.harmonics);
    for (int i = 0; i < 6; ++i)
      for (int l = 0; l < p.harmonics; ++l) {
        const double amp = i < 3 ? p.max_position_amplitude : p.max_angle_amplitude;
        const double bound = amp * kTwoPi * tr.f0 * (l + 1) / p.harmonics;
        tr.s(i, l) = x[static_cast<std::size_t>(12 * l + i)] * bound;
        tr.c(i, l) = x[static_cast<std::size_t>(12 * l + 6 + i)] * bound;
      }
    return tr;
  }
  std::vector<double> encode(const FourierTrajectory& tr) const {
    std::vector<double> x(static_cast<std::size_t>(size()), 0.0);
    for (int i = 0; i < 6; ++i)
      for (int l = 0; l < p.harmonics; ++l) {
        const double amp = i < 3 ? p.max_position_amplitude : p.max_angle_amplitude;
        const double bound = amp * kTwoPi * p.f0 * (l + 1) / p.harmonics;
        x[static_cast<std::size_t>(12 * l + i)] = std::clamp(tr.s(i, l) / bound, -1.0, 1.0);
        x[static_cast<std::size_t>(12 * l + 6 + i)] = std::clamp(tr.c(i, l) / bound, -1.0, 1.0);
      }
    if (p.optimize_f0) x.back() = std::clamp(2 * (p.f0 - p.f0_min) / (p.f0_max - p.f0_min) - 1, -1.0, 1.0);
    return x;
  }
};

// Objective to minimise: -log O_in or -log det (maximise), log cond (minimise); infeasible
// trajectories get a penalty above every feasible value that decreases towards feasibility.
double to_cost(Criterion c, double value) {
  if (!(value > 0) && c != Criterion::LogDet) return 1e6;
  switch (c) {
    case Criterion::ObservabilityIndex:
      return -std::log(value);
    case Criterion::LogDet:
      return -value;
    case Criterion::ConditionNumber:
      return std::log(value);
  }
  return 1e6;
}

}  // namespace

double trajectory_criterion(const sim::RobotModel& model, const FourierTrajectory& tr, const ExcitationProblem& p,
                            const std::vector<int>& columns) {
  if (violation(model, tr, p.check_period, p.limits) > 0) return 0;
  Eigen::MatrixXd H;
  if (!stack_regressor(model, tr, p.regressor_period, H)) return 0;
  return evaluate_criteria(H, columns, p.scale_columns).value(p.criterion);
}

namespace {

// Baseline: random feasible trajectories with the same harmonics.
std::vector<FourierTrajectory> baseline_trajectories(const sim::RobotModel& model, const ExcitationProblem& p) {
  RandomTrajectoryOptions ro;
  ro.harmonics = p.harmonics;
  ro.f0 = p.f0;
  ro.duration = p.duration;
  ro.limits = p.limits;
  std::vector<FourierTrajectory> baseline;
  try {
    for (int i = 0; i < p.baseline_trajectories; ++i)
      baseline.push_back(random_feasible_trajectory(model, p.seed * 1000003ULL + static_cast<std::uint64_t>(i), ro));
  } catch (const Error& e) {  // the seeds are internal (never given): the message says the file's key
    std::string why = e.what();
    const std::size_t at = why.find(" for seed "), end = at == std::string::npos ? at : why.find(' ', at + 10);
    if (end != std::string::npos)
      why.replace(at, end - at, " for the baselines drawn from seed " + std::to_string(p.seed) + " (key 'seed')");
    fail(p.source, "its limits (limits.*, harmonics, f0) let no baseline trajectory through: " + why);
  }
  return baseline;
}

struct BaselineScore {
  double median = 0;      // of the baseline's criterion values
  std::size_t best = 0;   // the baseline trajectory of the lowest cost (the search starts there)
};

BaselineScore score_baseline(const sim::RobotModel& model, const ExcitationProblem& p,
                             const std::vector<FourierTrajectory>& baseline, const std::vector<int>& columns) {
  std::vector<double> base_values;
  int best_baseline = 0;
  for (int i = 0; i < p.baseline_trajectories; ++i) {
    base_values.push_back(trajectory_criterion(model, baseline[static_cast<std::size_t>(i)], p, columns));
    if (to_cost(p.criterion, base_values.back()) < to_cost(p.criterion, base_values[static_cast<std::size_t>(best_baseline)]))
      best_baseline = i;
  }
  std::vector<double> sorted = base_values;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  return {n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]), static_cast<std::size_t>(best_baseline)};
}

// The objective nlopt minimises (through call) and its record of the best point seen.
struct Search {
  const sim::RobotModel& model;
  const ExcitationProblem& p;
  const Encoding& enc;
  const std::vector<int>& columns;
  const ExcitationProgress& progress;
  const TwinLoop* loop;  // the twin's motion checked too (only a candidate that would be the best)
  std::vector<double> best_x;
  std::string stage = "global";
  int evaluations = 0;
  TrackingEffort tracking{};  // the twin checks of would-be best candidates
  double best_cost = 1e300;
  // Deferred twin checks (the local stage): would-be best candidates become the best unchecked
  // and are kept in order; settle_deferred() then keeps the last one the twin carries.
  bool defer_tracking = false;
  std::vector<std::pair<std::vector<double>, double>> unchecked{};
  std::vector<double> checked_x{};
  double checked_cost = 1e300;

  // The twin's verdict on a candidate (TrackingCheck::FirstFailure: a refusal costs little).
  bool twin_carries(const FourierTrajectory& tr, double& cost) {
    const auto t0 = std::chrono::steady_clock::now();
    const TrackingReport t = check_tracking(model, *loop, tr, p.tracking, TrackingCheck::FirstFailure);
    tracking.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++tracking.checks;
    if (t.ok) return true;
    ++tracking.refused;
    cost = 1e3 + t.exceedance;
    return false;
  }

  double cost(const std::vector<double>& x) {
    ++evaluations;
    const FourierTrajectory tr = enc.decode(x);
    double cost;
    const double v = violation(model, tr, p.check_period, p.limits);
    if (v > 0) {
      cost = 1e3 + v;
    } else {
      Eigen::MatrixXd Hx;
      cost = stack_regressor(model, tr, p.regressor_period, Hx)
                 ? to_cost(p.criterion, evaluate_criteria(Hx, columns, p.scale_columns).value(p.criterion))
                 : 1e6;
      if (cost < best_cost && cost < 1e3 && loop && p.tracking.enabled) {
        if (defer_tracking)
          unchecked.emplace_back(x, cost);
        else
          twin_carries(tr, cost);
      }
    }
    if (cost < best_cost) {
      best_cost = cost;
      best_x = x;
    }
    if (progress && evaluations % 250 == 0) progress(stage, evaluations, best_cost);
    return cost;
  }

  // From now on, would-be best candidates are checked after the search (settle_deferred).
  void defer() {
    defer_tracking = true;
    checked_x = best_x;
    checked_cost = best_cost;
  }

  // A deferred candidate the twin carries becomes the best, else the best checked before
  // deferring. The chain of deferred candidates (each better than the last) starts where the
  // twin carried the motion and may end past it; the best first (often carried), then a
  // bisection for the last carried one: a handful of checks instead of one per candidate.
  void settle_deferred() {
    defer_tracking = false;
    best_x = checked_x;
    best_cost = checked_cost;
    auto carried = [&](std::size_t i) {
      double cost = unchecked[i].second;
      return twin_carries(enc.decode(unchecked[i].first), cost);
    };
    std::size_t lo = 0, hi = unchecked.size();  // [0, lo) carried as far as known, hi the first refused one
    if (hi > 0 && carried(hi - 1)) lo = hi;
    else if (hi > 0) hi -= 1;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (carried(mid)) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) {
      best_x = unchecked[lo - 1].first;
      best_cost = unchecked[lo - 1].second;
    }
    unchecked.clear();
  }

  static double call(unsigned dim, const double* x, double*, void* data) {
    return static_cast<Search*>(data)->cost(std::vector<double>(x, x + dim));
  }

  // One nlopt run of `budget` evaluations from the best point so far.
  void run(nlopt::algorithm algorithm, int budget) {
    if (budget <= 0) return;
    const unsigned dim = static_cast<unsigned>(enc.size());
    nlopt::opt opt(algorithm, dim);
    opt.set_lower_bounds(std::vector<double>(dim, -1.0));
    opt.set_upper_bounds(std::vector<double>(dim, 1.0));
    opt.set_min_objective(&Search::call, this);
    opt.set_maxeval(budget);
    opt.set_xtol_rel(1e-8);
    if (algorithm == nlopt::LN_SBPLX) opt.set_initial_step(std::vector<double>(dim, 0.05));
    std::vector<double> x0 = best_x;
    double f = 0;
    try {
      opt.optimize(x0, f);
    } catch (const nlopt::roundoff_limited&) {
      // converged as far as floating point allows: keep the best point seen
    }
  }
};

// Fine re-check (and the twin's motion, with a loop); shrink towards the offset until both pass.
FourierTrajectory shrink_until_feasible(const sim::RobotModel& model, FourierTrajectory tr, const ExcitationProblem& p,
                                        const TwinLoop* loop, ExcitationResult& result) {
  FeasibilityReport& feasibility = result.feasibility;
  for (int attempt = 0; attempt < 50; ++attempt) {
    feasibility = check_feasibility(model, tr, p.limits);
    if (feasibility.feasible && loop && p.tracking.enabled) {
      result.tracking = check_tracking(model, *loop, tr, p.tracking);
      ++result.tracking_effort.checks;
      if (!result.tracking->ok) {
        feasibility.feasible = false;
        feasibility.reason = result.tracking->reason;
      }
    }
    if (feasibility.feasible) break;
    tr.s *= 0.99;
    tr.c *= 0.99;
  }
  if (!feasibility.feasible) fail("excitation", "optimised trajectory fails the final check: " + feasibility.reason);
  return tr;
}

}  // namespace

ExcitationResult optimize_excitation(const sim::RobotModel& model, const ExcitationProblem& p,
                                     const ExcitationProgress& progress, const TwinLoop* loop) {
  p.validate(p.source);
  const auto start = std::chrono::steady_clock::now();
  ExcitationResult result;

  // The baseline also fixes the column set, so every criterion value below is on the same parameters.
  const std::vector<FourierTrajectory> baseline = baseline_trajectories(model, p);
  Eigen::MatrixXd H;
  if (!stack_regressor(model, baseline.front(), p.regressor_period, H))
    fail("excitation", "baseline trajectory not reachable");
  result.columns = excited_columns(H, p.qr_eps);
  const std::vector<int>& columns = result.columns.kept;
  const BaselineScore score = score_baseline(model, p, baseline, columns);
  result.initial = score.median;

  const Encoding enc{p, model.home};
  Search search{model, p, enc, columns, progress, loop, enc.encode(baseline[score.best])};
  nlopt::srand(p.seed);
  search.run(nlopt::GN_CRS2_LM, p.global_evaluations);
  // The local stage refines the global best within a small step: there the twin's verdict rarely
  // changes, so its would-be best candidates are checked after it, from its best backwards
  // (docs/excitation-file.md, "What the twin check costs").
  search.stage = "local";
  search.defer();
  search.run(nlopt::LN_SBPLX, p.local_evaluations);
  search.settle_deferred();
  if (search.best_cost >= 1e3)
    fail(p.source, "no feasible trajectory found within its limits (limits.*, amplitude.*, tracking.*) in " +
                       std::to_string(p.global_evaluations + p.local_evaluations) + " evaluations (evaluations.*)");

  result.tracking_effort = search.tracking;
  result.trajectory = shrink_until_feasible(model, enc.decode(search.best_x), p, loop, result);
  Eigen::MatrixXd Hf;
  stack_regressor(model, result.trajectory, p.regressor_period, Hf);
  result.values = evaluate_criteria(Hf, columns, p.scale_columns);
  result.final = result.values.value(p.criterion);
  result.evaluations = search.evaluations;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace vcloe::excitation
