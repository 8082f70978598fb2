#pragma once
// vcloe/oe_ident/convergence.hpp — where the fit starts and whether it got anywhere
// (docs/identification.md, "A start independent of the priors" and "Stuck or model error").
//
// The start: a search over one log-scale factor per parameter family (masses, moments, Coulomb
// and viscous friction, each drive gain) and their common scale, scored by the twin's cost on
// the short first horizon, so that priors 0.3-3x off do not decide which minimum
// Levenberg-Marquardt ends in. The verdict: a fit that ends far above the camera noise is
// searched again from its end point; if that search finds a clearly lower cost of the same
// objective the fit was stuck (a local minimum or a crawl), else its residual is the model's.
#include <string>
#include <vector>

namespace vcloe::oe_ident {

struct StartOptions {
  bool search = false;  // true: the search below (measured, not yet better than the priors: docs/identification.md)
  double horizon = 0;   // share of each record the search scores; 0: the first of `horizons`
  double range = 4;     // the largest factor searched along a direction (and its inverse)
  int points = 3;       // grid points per side along a direction (factors range^(k/points))
  int sweeps = 2;       // passes over the directions (later ones on a grid half as wide)
  // The second start (the stuck test) runs when the fit ends above this many camera sigmas;
  // check false: never (the verdict is then "not checked", whatever the fit's end).
  double check_above_noise = 2.0;
  bool check = true;
  // Stuck: the second start removes more than this share of the cost above the noise level.
  double stuck_share = 0.25;
};

// What the start search did (on its horizon; costs are Ceres' 0.5 * sum of squares).
struct StartRecord {
  bool searched = false;
  double horizon = 0;
  std::vector<std::string> directions;  // "masses", "moments", "Coulomb friction", ..., "common scale"
  std::vector<double> factors;          // the factor found along each direction (product over sweeps)
  double cost_at_priors = 0, cost_at_start = 0;
  int evaluations = 0;
  double cpu_seconds = 0;
  // The latency offset's starts (LatencyOptions::starts): each offset (s) the first horizon was
  // fitted from and the cost it ended at; the fit went on from the lowest. Empty: one start.
  std::vector<double> latency_starts, latency_costs;
  // The first horizon's end from the configured offset in camera sigmas (sqrt(2 cost /
  // residuals)), which decides whether the other starts run (LatencyOptions::starts_above_noise).
  double latency_over_noise = 0;
};

enum class Convergence { Converged, Stuck, NotChecked };

// How a stuck fit's termination begins (Ceres' own rule then follows, in parentheses): the
// writer's (identify.cpp) and the report reader's one wording.
inline constexpr const char* kStuckTermination =
    "STUCK: the fit stopped where a second start finds a lower cost; not an estimate (the optimiser's own rule: ";

// The verdict on the end point of the fit.
struct ConvergenceCheck {
  Convergence verdict = Convergence::NotChecked;
  double end_over_noise = 0;        // sqrt(2 cost / residuals): the end point's RMS in camera sigmas
  double second_start_cost = -1;    // full-record cost at the second start's best point (-1: not run)
  double end_cost = 0;              // full-record cost at the end point
  double noise_cost = 0;            // the cost of residuals at exactly the camera noise (residuals / 2)
  double removed_share = 0;         // share of (end_cost - noise_cost) the second start removed
  int escapes = 0;                  // times the fit was restarted from a better second start
  double cpu_seconds = 0;           // of the check (and any restart)
  std::string summary() const;      // in words, one or two sentences
  static const char* name(Convergence c);  // "converged", "stuck", "not checked"
  // The derived figures, of the costs (check_end_point; the report's reader checks by them):
  // sqrt(end_cost / max(noise_cost, 1)), and the share of end_cost - noise_cost the second start removed.
  static double over_noise(double end_cost, double noise_cost);
  static double removed(double end_cost, double second_start_cost, double noise_cost);
};

}  // namespace vcloe::oe_ident
