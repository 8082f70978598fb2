// oe_ident/src/start_search.cpp — prefix costs, family directions and the coordinate search
// (start_search.hpp).
#include "start_search.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace vcloe::oe_ident {

std::vector<Experiment> prefixes(const std::vector<Experiment>& exps, double horizon) {
  std::vector<Experiment> prefix;
  for (const Experiment& e : exps) prefix.push_back(prefix_of(e, horizon));
  return prefix;
}

PrefixCost::PrefixCost(const sim::RobotModel& model, const servo::OuterGains& gains, const std::vector<Experiment>& exps,
                       const ParameterMap& map, const IdentificationOptions& o, double horizon)
    : prefix_(horizon < 1 ? prefixes(exps, horizon) : exps) {
  runs_ = std::make_unique<TwinRuns>(OutputError(model, gains, prefix_, map, o.sigma), o.threads);
  r_.resize(static_cast<std::size_t>(runs_->num_residuals()));
}

double PrefixCost::operator()(const std::vector<double>& delta) {
  ++evaluations_;
  if (!runs_->evaluate(delta.data(), r_.data(), nullptr)) return std::numeric_limits<double>::infinity();
  double cost = 0;
  for (double v : r_) cost += 0.5 * v * v;
  return std::isfinite(cost) ? cost : std::numeric_limits<double>::infinity();
}

namespace {

const char* family_name(sim::ParameterKind k) {
  switch (k) {
    case sim::ParameterKind::Mass: return "masses";
    case sim::ParameterKind::Inertia: return "moments";
    case sim::ParameterKind::Coulomb: return "Coulomb friction";
    case sim::ParameterKind::Viscous: return "viscous friction";
    case sim::ParameterKind::GainP: return "lp";
    case sim::ParameterKind::GainI: return "li";
    case sim::ParameterKind::GainD: return "ld";
    case sim::ParameterKind::FirstMoment: return "first moments";  // signed: not searched by a log factor
  }
  return "";
}

}  // namespace

std::vector<SearchDirection> family_directions(const ParameterMap& map) {
  const auto& reg = sim::parameter_registry();
  const sim::ParameterKind kinds[] = {sim::ParameterKind::GainP,   sim::ParameterKind::GainI, sim::ParameterKind::GainD,
                                      sim::ParameterKind::Mass,    sim::ParameterKind::Inertia,
                                      sim::ParameterKind::Coulomb, sim::ParameterKind::Viscous};
  std::vector<SearchDirection> out;
  SearchDirection common{"common scale", std::vector<double>(static_cast<std::size_t>(map.size()), 0.0)};
  for (sim::ParameterKind kind : kinds) {
    SearchDirection d{family_name(kind), std::vector<double>(static_cast<std::size_t>(map.size()), 0.0)};
    bool any = false;
    for (int c = 0; c < map.size(); ++c)
      if (!map.coords[static_cast<std::size_t>(c)].latency &&  // not a family of Lambda: left where it is
          reg[static_cast<std::size_t>(map.coords[static_cast<std::size_t>(c)].members.front())].kind == kind) {
        d.step[static_cast<std::size_t>(c)] = 1;
        common.step[static_cast<std::size_t>(c)] = 1;
        any = true;
      }
    if (any) out.push_back(std::move(d));
  }
  if (out.size() > 1) out.push_back(std::move(common));
  return out;
}

std::vector<double> search_directions(PrefixCost& cost, const std::vector<SearchDirection>& directions,
                                      std::vector<double> delta, const StartOptions& o, StartRecord& record) {
  double best = cost(delta);
  record.cost_at_priors = best;
  record.factors.assign(directions.size(), 1.0);
  for (const SearchDirection& d : directions) record.directions.push_back(d.name);
  double width = std::log(o.range);
  for (int sweep = 0; sweep < o.sweeps; ++sweep, width *= 0.5)
    for (std::size_t d = 0; d < directions.size(); ++d) {
      double best_t = 0;
      for (int k = -o.points; k <= o.points; ++k) {
        if (k == 0) continue;
        const double t = width * k / o.points;
        std::vector<double> trial = delta;
        for (std::size_t c = 0; c < trial.size(); ++c) trial[c] += t * directions[d].step[c];
        const double f = cost(trial);
        if (f < best) {
          best = f;
          best_t = t;
        }
      }
      for (std::size_t c = 0; c < delta.size(); ++c) delta[c] += best_t * directions[d].step[c];
      record.factors[d] *= std::exp(best_t);
    }
  record.cost_at_start = best;
  record.evaluations = cost.evaluations();
  return delta;
}

namespace {
double search_horizon(const IdentificationOptions& o) { return o.start.horizon > 0 ? o.start.horizon : o.horizons.front(); }
}  // namespace

sim::LambdaVector<double> search_start(const sim::RobotModel& model, const servo::OuterGains& gains,
                                       const std::vector<Experiment>& exps, const IdentificationOptions& o,
                                       const ParameterMap& map, const sim::LambdaVector<double>& base,
                                       StartRecord& record) {
  const double cpu = process_cpu_seconds();
  record.searched = true;
  record.horizon = search_horizon(o);
  PrefixCost cost(model, gains, exps, map, o, record.horizon);
  const std::vector<double> d = search_directions(cost, family_directions(map), map.initial(base), o.start, record);
  record.cpu_seconds = process_cpu_seconds() - cpu;
  return map.lambda(d.data());
}

ConvergenceCheck check_end_point(const sim::RobotModel& model, const servo::OuterGains& gains,
                                 const std::vector<Experiment>& exps, const IdentificationOptions& o,
                                 const ParameterMap& map, const std::vector<double>& end,
                                 const std::vector<double>& r_end, std::vector<double>& better) {
  const double cpu = process_cpu_seconds();
  ConvergenceCheck c;
  for (double v : r_end) c.end_cost += 0.5 * v * v;
  c.noise_cost = 0.5 * static_cast<double>(r_end.size());
  c.end_over_noise = ConvergenceCheck::over_noise(c.end_cost, c.noise_cost);
  c.verdict = o.start.check ? Convergence::Converged : Convergence::NotChecked;
  if (!o.start.check || c.end_over_noise <= o.start.check_above_noise) return c;
  PrefixCost short_cost(model, gains, exps, map, o, search_horizon(o));
  StartRecord second;
  better = search_directions(short_cost, family_directions(map), end, o.start, second);
  PrefixCost whole(model, gains, exps, map, o, 1.0);
  c.second_start_cost = better == end ? c.end_cost : whole(better);
  c.removed_share = ConvergenceCheck::removed(c.end_cost, c.second_start_cost, c.noise_cost);
  if (c.removed_share > o.start.stuck_share) c.verdict = Convergence::Stuck;
  c.cpu_seconds = process_cpu_seconds() - cpu;
  return c;
}

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return s(u.ru_utime) + s(u.ru_stime);
}

}  // namespace vcloe::oe_ident
