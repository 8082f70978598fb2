// oe_ident/src/convergence.cpp — the convergence verdict in words (convergence.hpp).
#include "vcloe/oe_ident/convergence.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace vcloe::oe_ident {

const char* ConvergenceCheck::name(Convergence c) {
  switch (c) {
    case Convergence::Converged: return "converged";
    case Convergence::Stuck: return "stuck";
    case Convergence::NotChecked: return "not checked";
  }
  return "";
}

double ConvergenceCheck::over_noise(double end_cost, double noise_cost) { return std::sqrt(end_cost / std::max(noise_cost, 1.0)); }

double ConvergenceCheck::removed(double end_cost, double second_start_cost, double noise_cost) {
  return (end_cost - second_start_cost) / std::max(end_cost - noise_cost, 1e-300);
}

std::string ConvergenceCheck::summary() const {
  std::ostringstream s;
  s.precision(3);
  const double percent = 100 * removed_share;
  switch (verdict) {
    case Convergence::NotChecked:
      s << "The end point was not checked for a lower minimum (start.check: false)";
      if (end_over_noise > 0) s << ": the fit ends at " << end_over_noise << " x the camera noise";
      s << ".";
      break;
    case Convergence::Converged:
      if (second_start_cost < 0) {
        s << "Converged: the fit ends at " << end_over_noise
          << " x the camera noise (RMS over all channels), close enough to the noise that no better minimum is looked for.";
        break;
      }
      s << "Converged: the fit ends at " << end_over_noise << " x the camera noise and a second start from its end point "
        << "found no clearly lower cost (" << percent
        << " % of the cost above the noise removed); what is left is the model's, not the optimiser's.";
      break;
    case Convergence::Stuck:
      s << "STUCK: the fit ends at " << end_over_noise << " x the camera noise, and a second start from its end point "
        << "removes " << percent << " % of the cost above the noise: the optimiser stopped in a local minimum or a "
        << "crawl, not at the best fit. The values are not an estimate and the residual says nothing about the model.";
      break;
  }
  if (escapes > 0) s << " (After " << escapes << " restart from a better second start.)";
  return s.str();
}

}  // namespace vcloe::oe_ident
