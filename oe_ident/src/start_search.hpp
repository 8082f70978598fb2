#pragma once
// oe_ident/src/start_search.hpp — the start of the fit independent of the priors, and the
// second start that tells a stuck fit from model error (vcloe/oe_ident/convergence.hpp,
// docs/identification.md): the twin's cost on record prefixes, the search directions (one per
// parameter family and their common scale) and the coordinate search along them.
#include <memory>
#include <string>
#include <vector>

#include "output_error.hpp"
#include "parameter_map.hpp"
#include "vcloe/oe_ident/convergence.hpp"
#include "vcloe/oe_ident/problem.hpp"

namespace vcloe::oe_ident {

// Each experiment's first `horizon` share of frames.
std::vector<Experiment> prefixes(const std::vector<Experiment>& exps, double horizon);

// The twin's output-error cost 0.5 |r|^2 (eq. 32, weighted; no prior) on each experiment's
// first `horizon` of the record at fit coordinates delta; +infinity where the twin fails.
class PrefixCost {
 public:
  PrefixCost(const sim::RobotModel& model, const servo::OuterGains& gains, const std::vector<Experiment>& exps,
             const ParameterMap& map, const IdentificationOptions& o, double horizon);
  double operator()(const std::vector<double>& delta);
  int evaluations() const { return evaluations_; }
  int residuals() const { return runs_->num_residuals(); }

 private:
  std::vector<Experiment> prefix_;
  std::unique_ptr<TwinRuns> runs_;
  std::vector<double> r_;
  int evaluations_ = 0;
};

// A direction in fit coordinates along which every member moves by one log-factor.
struct SearchDirection {
  std::string name;
  std::vector<double> step;  // 1 on the coordinates it moves, 0 elsewhere
};

// One direction per parameter family among the coordinates of `map` (sim::ParameterKind:
// masses, moments, Coulomb, viscous, lp, li, ld), then their common scale (all of them: the
// direction eq. 32 cannot see without an anchor, a long valley with the payload anchor).
// Families without a coordinate are left out.
std::vector<SearchDirection> family_directions(const ParameterMap& map);

// Coordinate search from delta: along each direction in turn the factors range^(k/points),
// k = -points..points, the best kept; `sweeps` passes, each later one on a grid half as wide
// (log). Fills `record` (factors, costs, evaluations) and returns the best point.
std::vector<double> search_directions(PrefixCost& cost, const std::vector<SearchDirection>& directions,
                                      std::vector<double> delta, const StartOptions& o, StartRecord& record);

// The start (StartOptions): the search from the priors `base` over the free entries, on the
// search horizon. Returns the Lambda it found; `record` says how.
sim::LambdaVector<double> search_start(const sim::RobotModel& model, const servo::OuterGains& gains,
                                       const std::vector<Experiment>& exps, const IdentificationOptions& o,
                                       const ParameterMap& map, const sim::LambdaVector<double>& base,
                                       StartRecord& record);

// The stuck test at the fit's end point `end` (its weighted residuals r_end on the whole
// records): within check_above_noise camera sigmas it is converged; else a second start — the
// same search from the end point, on the search horizon — and the whole records' cost at what
// it found. Stuck when that removes more than stuck_share of the cost above the noise level;
// `better` is then the point to restart from.
ConvergenceCheck check_end_point(const sim::RobotModel& model, const servo::OuterGains& gains,
                                 const std::vector<Experiment>& exps, const IdentificationOptions& o,
                                 const ParameterMap& map, const std::vector<double>& end,
                                 const std::vector<double>& r_end, std::vector<double>& better);

// CPU seconds (user + system) of this process so far: what the start and the check cost.
double process_cpu_seconds();

}  // namespace vcloe::oe_ident
