// The identification report made from a fit and printed (identification.hpp).
#include "vcloe/report/identification.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>

#include "vcloe/core/trace.hpp"

namespace vcloe::report {

std::optional<FileEntry> file_entry_of(const std::string& path) {
  if (path.empty()) return std::nullopt;
  return file_record(path);
}

std::pair<double, std::string> worst_fit_over_noise(const std::vector<AxesRms>& after_rms_all, const Vec6d& noise_sigma) {
  static const char* const kAxis[6] = {"x", "y", "z", "alpha", "beta", "gamma"};
  std::pair<double, std::string> worst{0.0, ""};
  for (std::size_t e = 0; e < after_rms_all.size(); ++e)
    for (int c = 0; c < 6; ++c) {
      const double ratio = after_rms_all[e][static_cast<std::size_t>(c)] * 1e-3 / noise_sigma(c);
      if (ratio > worst.first) worst = {ratio, std::string(kAxis[c]) + " of experiment " + std::to_string(e + 1)};
    }
  return worst;
}

namespace {

AdequacyEntry adequacy_entry(const oe_ident::Adequacy& a) {
  AdequacyEntry out{oe_ident::Adequacy::name(a.verdict), a.summary(), a.worst_channel, a.worst_share, a.mean_share,
                    a.chi2_per_dof, a.sigma_scale(), {}};
  for (const auto& e : a.experiments) {
    AdequacyEntry::Experiment x;
    for (std::size_t c = 0; c < 6; ++c) {
      x.rms_over_noise[c] = e[c].rms_over_noise;
      x.lag1[c] = e[c].lag1;
      x.model_share[c] = e[c].model_share();
    }
    out.experiments.push_back(x);
  }
  return out;
}

// The correlation matrix of the fitted parameters (those with a sigma), in registry order.
Correlation correlation(const oe_ident::IdentificationResult& r) {
  const auto& reg = sim::parameter_registry();
  std::vector<int> fitted;
  for (const auto& p : r.parameters)
    if (p.sigma > 0) fitted.push_back(p.index);
  Correlation c;
  for (int a : fitted) {
    c.parameters.push_back(reg[static_cast<std::size_t>(a)].name);
    std::vector<double> row;
    // Symmetric and within [-1, 1] as a correlation is: two nearly collinear parameters gave
    // 1.0000000012, and rho_ab and rho_ba 1e-9 apart, by rounding, which the report's own reader
    // then refused (the writer writes what it reads).
    for (int b : fitted) {
      const double cov = 0.5 * (r.covariance(a, b) + r.covariance(b, a));
      row.push_back(a == b ? 1.0 : std::clamp(cov / std::sqrt(r.covariance(a, a) * r.covariance(b, b)), -1.0, 1.0));
    }
    c.matrix.push_back(row);
  }
  return c;
}

ParameterEntry parameter_entry(const oe_ident::ParameterResult& p) {
  const auto& reg = sim::parameter_registry()[static_cast<std::size_t>(p.index)];
  ParameterEntry e{reg.name, reg.unit, p.prior, p.value, p.sigma, p.rel_sigma, p.sigma_camera, std::nullopt,
                   p.prior_pull, p.identified, p.flagged, p.status};
  if (p.sigma > 0) e.interval95 = std::array<double, 2>{p.interval_low, p.interval_high};
  return e;
}

StartEntry start_entry(const oe_ident::StartRecord& s) {
  return {s.searched,    s.horizon,     s.directions,     s.factors,       s.cost_at_priors, s.cost_at_start,
          s.evaluations, s.cpu_seconds, s.latency_starts, s.latency_costs, s.latency_over_noise};
}

ConvergenceEntry convergence_entry(const oe_ident::ConvergenceCheck& c) {
  return {oe_ident::ConvergenceCheck::name(c.verdict), c.summary(), c.end_over_noise, c.end_cost, c.noise_cost,
          c.second_start_cost, c.removed_share, c.escapes, c.cpu_seconds};
}

}  // namespace

IdentificationReport make_identification_report(const oe_ident::IdentificationResult& r, const std::string& anchor,
                                                 const Vec6d& noise_sigma) {
  IdentificationReport out;
  out.before_rms_all = r.before_rms;
  out.after_rms_all = r.after_rms;
  for (const auto& p : r.parameters) out.parameters.push_back(parameter_entry(p));
  out.identified_count = r.identified_count;
  const oe_ident::LatencyResult& l = r.latency;
  out.latency = {l.fitted, l.value, l.sigma, l.sigma_camera, l.low, l.high, l.prior_pull, l.status};
  out.anchor = anchor;
  out.iterations = r.iterations;
  out.seconds = r.seconds;
  out.cpu_seconds = r.cpu_seconds;
  out.start = start_entry(r.start);
  out.convergence = convergence_entry(r.convergence);
  out.jacobian_cost_ratio = r.jacobian_cost_ratio;
  out.rejected_steps = r.rejected_steps;
  out.failed_simulations = r.failed_simulations;
  out.adequacy = adequacy_entry(r.adequacy);
  out.correlation = correlation(r);
  out.singular_values = r.singular_values;
  out.rank_tolerance = r.rank_tolerance;
  out.consistency = r.consistency;
  out.moved_to_consistency = r.moved;
  out.termination = r.termination;
  out.after_over_noise = worst_fit_over_noise(r.after_rms, noise_sigma).first;
  for (std::size_t c = 0; c < 6; ++c) out.noise_sigma[c] = noise_sigma(static_cast<int>(c));
  return out;
}

namespace {

// The start and the verdict on the end point, in words.
void print_convergence(const IdentificationReport& r, std::ostream& out) {
  const StartEntry& s = r.start;
  if (s.searched) {
    out << "start: searched along " << s.directions.size() << " directions on the first " << 100 * s.horizon
        << " % of the records (" << s.evaluations << " twin runs, " << s.cpu_seconds << " CPU-s), cost "
        << s.cost_at_priors << " at the priors -> " << s.cost_at_start << "; factors";
    for (std::size_t k = 0; k < s.directions.size(); ++k) out << (k ? ", " : " ") << s.directions[k] << " x" << s.factors[k];
    out << "\n";
  } else {
    out << "start: the priors (no start search)\n";
  }
  if (s.latency_starts.size() == 1) {
    out << "latency offset: the first horizon from " << 1e3 * s.latency_starts[0] << " ms ended at "
        << s.latency_over_noise << " x the camera noise, within latency.starts_above_noise: no other start\n";
  } else if (!s.latency_starts.empty()) {
    const auto best = std::min_element(s.latency_costs.begin(), s.latency_costs.end()) - s.latency_costs.begin();
    out << "latency offset: the first horizon fitted from " << s.latency_starts.size() << " offsets, cost";
    for (std::size_t k = 0; k < s.latency_starts.size(); ++k)
      out << (k ? ", " : " ") << s.latency_costs[k] << " from " << 1e3 * s.latency_starts[k] << " ms";
    out << "; went on from " << 1e3 * s.latency_starts[static_cast<std::size_t>(best)] << " ms (from "
        << 1e3 * s.latency_starts[0] << " ms: " << s.latency_over_noise << " x the camera noise)\n";
  }
  out << "convergence: " << r.convergence.verdict << ". " << r.convergence.summary << "\n";
}

void print_rms(const IdentificationReport& r, std::ostream& out) {
  out << "RMS of measured - twin (Table 3 form)   x mm     y mm     z mm     a mrad   b mrad   g mrad\n";
  for (std::size_t e = 0; e < r.before_rms_all.size(); ++e) {
    out << "  experiment " << e + 1 << " before                ";
    for (double v : r.before_rms_all[e]) out << std::setw(9) << v;
    out << "\n  experiment " << e + 1 << " after                 ";
    for (double v : r.after_rms_all[e]) out << std::setw(9) << v;
    out << "\n";
  }
  out << "\nmodel adequacy: ";
  if (r.convergence.stuck())  // a stuck fit's residual says nothing about the model
    out << "not judged: the fit is stuck, so the residual below is the optimiser's, not the model's.";
  else out << r.adequacy.verdict << ". " << r.adequacy.summary;
  out << "\n  residual / camera noise   x      y      z      a      b      g   (lag-1 autocorrelation)\n";
  for (std::size_t e = 0; e < r.adequacy.experiments.size(); ++e) {
    out << "  experiment " << e + 1 << "            ";
    for (double v : r.adequacy.experiments[e].rms_over_noise) out << std::setw(7) << v;
    out << "   (";
    for (double v : r.adequacy.experiments[e].lag1) out << " " << std::setprecision(2) << v;
    out << std::setprecision(4) << " )\n";
  }
}

void print_parameters(const IdentificationReport& r, std::ostream& out) {
  out << "\nparameters (Table 2 form): " << r.identified_count << " of " << r.parameters.size() << " identified; sigma covers camera noise, "
         "coloured residuals and sub-fit disagreement (docs/identification.md)\n"
      << "  name      prior         value         sigma     rel    95 % interval              status\n";
  for (const auto& p : r.parameters) {
    out << "  " << std::left << std::setw(8) << p.name << std::right << std::setw(12) << p.prior << "  " << std::setw(12)
        << p.value << "  ";
    if (p.sigma > 0 && p.interval95)
      out << std::setw(10) << p.sigma << " " << std::setw(6) << p.rel_sigma * 100 << "%  [" << std::setw(10)
          << (*p.interval95)[0] << ", " << std::setw(10) << (*p.interval95)[1] << "]";
    else out << std::setw(45) << " ";
    out << (p.flagged ? " !" : "  ") << " " << p.status << "\n";
  }
}

void print_latency(const IdentificationReport& r, std::ostream& out) {
  const LatencyEntry& l = r.latency;
  out << "\nlatency offset (true - configured latency, not one of the 70): " << l.value * 1e3 << " ms";
  if (l.fitted)
    out << " +- " << l.sigma * 1e3 << " ms (camera noise alone " << l.sigma_camera * 1e3 << " ms; bounds "
        << l.low * 1e3 << " ... " << l.high * 1e3 << " ms)";
  out << ", " << l.status << "\n";
}

}  // namespace

void print_identification(const IdentificationReport& r, std::ostream& out) {
  out << std::setprecision(4);
  out << "anchor: " << r.anchor << "\n" << r.termination << "\n"
      << r.iterations << " iterations, " << r.seconds << " s (" << r.cpu_seconds << " CPU-s), Jacobian/residual cost " << r.jacobian_cost_ratio << "\n\n";
  print_convergence(r, out);
  out << "\n";
  print_rms(r, out);
  print_parameters(r, out);
  print_latency(r, out);
  if (!r.moved_to_consistency.empty()) {
    out << "\nmoved to physical consistency (each says why; the RMS after is this model's):\n";
    for (const auto& m : r.moved_to_consistency) out << "  " << m << "\n";
  }
  if (!r.consistency.empty()) {
    out << "\nphysical consistency of the result:\n";
    for (const auto& c : r.consistency) out << "  " << c << "\n";
  }
}

}  // namespace vcloe::report
