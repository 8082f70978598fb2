#pragma once
// vcloe/oe_ident/progress.hpp — what identify reports after each Levenberg-Marquardt iteration
// (a live line on the terminal, `vcloe identify`), and the estimate of what is left.
#include <functional>
#include <string>

namespace vcloe::oe_ident {

struct IterationProgress {
  int stage = 0, stages = 1;   // horizon stage (1-based) of how many
  double horizon = 1;          // share of each record fitted in this stage
  int iteration = 0;           // within the stage (0: the start)
  double cost = 0;             // Ceres' cost after the iteration (0.5 * sum of squares)
  bool accepted = true;        // the trial step was taken
  double elapsed_s = 0;        // since identify started
  // Estimated iterations and seconds still to go in this stage (the relative cost decrease
  // extrapolated geometrically down to the stopping rule, capped by the iteration limit; later
  // stages scaled by their horizon). Negative when there is not yet enough to estimate.
  int iterations_left = -1;
  double seconds_left = -1;

  std::string line() const;  // "stage 2/2 (100 %) it 7  cost 1.234e+03  accepted  23.1 s  ~4 it, ~12 s left"
};

using ProgressFunction = std::function<void(const IterationProgress&)>;

// The stage's stopping-rule extrapolation: given the relative cost decreases of the last two
// accepted iterations, how many more until the decrease falls below tol1 (eq. 35), at most
// `cap`; -1 if the trend says nothing (rising, or fewer than two decreases).
int iterations_to_tolerance(double previous_decrease, double last_decrease, double tol1, int cap);

}  // namespace vcloe::oe_ident
