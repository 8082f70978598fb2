#include "ident_report.hpp"

#include <cmath>
#include <iomanip>
#include <ostream>

namespace vcloe::app {

std::pair<double, std::string> IdentifyOutcome::worst_fit_over_noise() const {
  static const char* const kAxis[6] = {"x", "y", "z", "alpha", "beta", "gamma"};
  std::pair<double, std::string> worst{0.0, ""};
  for (std::size_t e = 0; e < result.after_rms.size(); ++e)
    for (int c = 0; c < 6; ++c) {
      const double ratio = result.after_rms[e][static_cast<std::size_t>(c)] * 1e-3 / noise_sigma(c);
      if (ratio > worst.first) worst = {ratio, std::string(kAxis[c]) + " of experiment " + std::to_string(e + 1)};
    }
  return worst;
}

namespace {

// A bound that overflowed (a relative sigma of hundreds: exp(1.96 * 1000)) is null: unbounded.
nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

nlohmann::json adequacy_json(const oe_ident::Adequacy& a) {
  nlohmann::json per = nlohmann::json::array();
  for (const auto& e : a.experiments) {
    nlohmann::json ratio = nlohmann::json::array(), lag1 = nlohmann::json::array(), share = nlohmann::json::array();
    for (const auto& c : e) {
      ratio.push_back(c.rms_over_noise);
      lag1.push_back(c.lag1);
      share.push_back(c.model_share());
    }
    per.push_back({{"rms_over_noise", ratio}, {"lag1", lag1}, {"model_share", share}});
  }
  return {{"verdict", oe_ident::Adequacy::name(a.verdict)},
          {"summary", a.summary()},
          {"worst_channel", a.worst_channel},
          {"worst_model_share", a.worst_share},
          {"mean_model_share", a.mean_share},
          {"chi2_per_dof", a.chi2_per_dof},
          {"sigma_scale", a.sigma_scale()},
          {"experiments", per}};
}

// The correlation matrix of the fitted parameters (those with a sigma), in registry order.
nlohmann::json correlation_json(const oe_ident::IdentificationResult& r) {
  const auto& reg = sim::parameter_registry();
  std::vector<int> fitted;
  for (const auto& p : r.parameters)
    if (p.sigma > 0) fitted.push_back(p.index);
  nlohmann::json names = nlohmann::json::array(), rows = nlohmann::json::array();
  for (int a : fitted) {
    names.push_back(reg[static_cast<std::size_t>(a)].name);
    nlohmann::json row = nlohmann::json::array();
    for (int b : fitted)
      row.push_back(r.covariance(a, b) / std::sqrt(r.covariance(a, a) * r.covariance(b, b)));
    rows.push_back(row);
  }
  return {{"parameters", names}, {"matrix", rows}};
}

}  // namespace

nlohmann::json identification_report_json(const IdentifyOutcome& o) {
  const auto& r = o.result;
  const auto& reg = sim::parameter_registry();
  auto axes = [](const std::array<double, 6>& a) {
    return nlohmann::json{{"mm", {a[0], a[1], a[2]}}, {"mrad", {a[3], a[4], a[5]}}};
  };
  nlohmann::json params = nlohmann::json::array();
  for (const auto& p : r.parameters)
    params.push_back({{"name", reg[static_cast<std::size_t>(p.index)].name},
                      {"unit", reg[static_cast<std::size_t>(p.index)].unit},
                      {"prior", p.prior},
                      {"value", p.value},
                      {"sigma", p.sigma},
                      {"rel_sigma", p.rel_sigma},
                      {"sigma_camera", p.sigma_camera},
                      {"interval95", p.sigma > 0 ? nlohmann::json{finite_or_null(p.interval_low), finite_or_null(p.interval_high)}
                                                 : nlohmann::json()},
                      {"prior_pull", p.prior_pull},
                      {"identified", p.identified},
                      {"flagged", p.flagged},
                      {"status", p.status}});
  return {{"before_rms", axes(r.before_rms.front())},
          {"after_rms", axes(r.after_rms.front())},
          {"before_rms_all", [&] {
             nlohmann::json a = nlohmann::json::array();
             for (const auto& b : r.before_rms) a.push_back(axes(b));
             return a;
           }()},
          {"after_rms_all", [&] {
             nlohmann::json a = nlohmann::json::array();
             for (const auto& b : r.after_rms) a.push_back(axes(b));
             return a;
           }()},
          {"parameters", params},
          {"identified_count", r.identified_count},
          {"anchor", o.anchor},
          {"iterations", r.iterations},
          {"seconds", r.seconds},
          {"jacobian_cost_ratio", r.jacobian_cost_ratio},
          {"rejected_steps", r.rejected_steps},
          {"failed_simulations", r.failed_simulations},
          {"adequacy", adequacy_json(r.adequacy)},
          {"correlation", correlation_json(r)},
          {"singular_values", r.singular_values},
          {"rank_tolerance", r.rank_tolerance},
          {"consistency", r.consistency},
          {"moved_to_consistency", r.moved},
          {"termination", r.termination},
          {"after_over_noise", o.worst_fit_over_noise().first}};
}

void print_identification(const IdentifyOutcome& o, std::ostream& out) {
  const auto& r = o.result;
  const auto& reg = sim::parameter_registry();
  out << std::setprecision(4);
  out << "anchor: " << o.anchor << "\n" << r.termination << "\n"
      << r.iterations << " iterations, " << r.seconds << " s, Jacobian/residual cost " << r.jacobian_cost_ratio << "\n\n";
  out << "RMS of measured - twin (Table 3 form)   x mm     y mm     z mm     a mrad   b mrad   g mrad\n";
  for (std::size_t e = 0; e < r.before_rms.size(); ++e) {
    out << "  experiment " << e + 1 << " before                ";
    for (double v : r.before_rms[e]) out << std::setw(9) << v;
    out << "\n  experiment " << e + 1 << " after                 ";
    for (double v : r.after_rms[e]) out << std::setw(9) << v;
    out << "\n";
  }
  out << "\nmodel adequacy: " << oe_ident::Adequacy::name(r.adequacy.verdict) << ". " << r.adequacy.summary()
      << "\n  residual / camera noise   x      y      z      a      b      g   (lag-1 autocorrelation)\n";
  for (std::size_t e = 0; e < r.adequacy.experiments.size(); ++e) {
    out << "  experiment " << e + 1 << "            ";
    for (const auto& c : r.adequacy.experiments[e]) out << std::setw(7) << c.rms_over_noise;
    out << "   (";
    for (const auto& c : r.adequacy.experiments[e]) out << " " << std::setprecision(2) << c.lag1;
    out << std::setprecision(4) << " )\n";
  }
  out << "\nparameters (Table 2 form): " << r.identified_count << " of 67 identified; sigma covers camera noise, "
         "coloured residuals and sub-fit disagreement (docs/identification.md)\n"
      << "  name      prior         value         sigma     rel    95 % interval              status\n";
  for (const auto& p : r.parameters) {
    out << "  " << std::left << std::setw(8) << reg[static_cast<std::size_t>(p.index)].name << std::right << std::setw(12)
        << p.prior << "  " << std::setw(12) << p.value << "  ";
    if (p.sigma > 0)
      out << std::setw(10) << p.sigma << " " << std::setw(6) << p.rel_sigma * 100 << "%  [" << std::setw(10)
          << p.interval_low << ", " << std::setw(10) << p.interval_high << "]";
    else out << std::setw(45) << " ";
    out << (p.flagged ? " !" : "  ") << " " << p.status << "\n";
  }
  if (!r.moved.empty()) {
    out << "\nmoved to physical consistency (values the poses do not determine; the RMS after is this model's):\n";
    for (const auto& m : r.moved) out << "  " << m << "\n";
  }
  if (!r.consistency.empty()) {
    out << "\nphysical consistency of the result:\n";
    for (const auto& c : r.consistency) out << "  " << c << "\n";
  }
}

}  // namespace vcloe::app
