#include "vcloe/oe_ident/progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vcloe::oe_ident {

std::string IterationProgress::line() const {
  char head[160], cost_text[32];
  if (cost < 1e300) std::snprintf(cost_text, sizeof cost_text, "%.4e", cost);
  else std::snprintf(cost_text, sizeof cost_text, "(twin failed)");  // the trial point left the workspace
  std::snprintf(head, sizeof head, "stage %d/%d (%3.0f %%) it %2d  cost %-13s %-8s  %6.1f s", stage, stages,
                horizon * 100, iteration, cost_text, accepted ? "accepted" : "rejected", elapsed_s);
  std::string s = head;
  if (iterations_left >= 0 && seconds_left >= 0) {
    char tail[80];
    std::snprintf(tail, sizeof tail, "  ~%d it, ~%.0f s left", iterations_left, seconds_left);
    s += tail;
  }
  return s;
}

int iterations_to_tolerance(double previous, double last, double tol1, int cap) {
  if (!(last > 0) || !(previous > 0) || cap <= 0) return -1;
  if (last < tol1) return 0;
  const double ratio = last / previous;  // geometric trend of the relative decrease
  if (!(ratio < 1)) return cap;
  const double n = std::ceil(std::log(tol1 / last) / std::log(ratio));
  return static_cast<int>(std::min<double>(n, cap));
}

}  // namespace vcloe::oe_ident
