// The study's rows and coverage (vcloe/report/study.hpp).
#include "vcloe/report/study.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "vcloe/core/error.hpp"

namespace vcloe::report {

namespace {
const std::vector<std::string> kKey = {"m_p", "Ix_p", "Iy_p", "Iz_p", "lp", "li", "ld"};
}  // namespace

bool ParameterCheck::within_bound() const { return std::abs(error()) <= 0.05 || std::abs(z()) <= 3; }

const ParameterCheck* FitFigures::worst_error() const {
  const auto it = std::max_element(checks.begin(), checks.end(),
                                   [](const auto& a, const auto& b) { return std::abs(a.error()) < std::abs(b.error()); });
  return it == checks.end() ? nullptr : &*it;
}

const ParameterCheck* FitFigures::worst_z() const {
  const auto it = std::max_element(checks.begin(), checks.end(),
                                   [](const auto& a, const auto& b) { return std::abs(a.z()) < std::abs(b.z()); });
  return it == checks.end() ? nullptr : &*it;
}

FitFigures make_fit(const std::string& where, const sim::LambdaVector<double>& truth, const IdentificationReport& report,
                    const std::vector<std::array<double, 6>>& floor, const ValidationResult& validation) {
  FitFigures row;
  row.iterations = report.iterations;
  row.seconds = report.seconds;
  row.cpu_seconds = report.cpu_seconds;
  row.stuck = report.convergence.stuck();
  row.validation_over_floor = validation.worst_ratio;
  row.verdict = report.adequacy.verdict;
  if (report.latency.fitted) row.latency = report.latency.value, row.latency_sigma = report.latency.sigma;
  const auto& after = report.after_rms_all;
  if (after.size() != floor.size()) fail(where, "after_rms_all has another number of experiments than the floors");
  for (std::size_t e = 0; e < floor.size(); ++e)
    for (std::size_t c = 0; c < 6; ++c) row.after_over_floor = std::max(row.after_over_floor, after[e][c] / floor[e][c]);
  const auto& reg = sim::parameter_registry();
  int key = 0;
  for (const ParameterEntry& p : report.parameters) {
    if (!p.identified) continue;
    if (!p.interval95) fail(where, "identified parameter '" + p.name + "' has no interval95");
    const auto k = std::find_if(reg.begin(), reg.end(), [&](const auto& r) { return r.name == p.name; });
    if (k == reg.end()) fail(where, "unknown parameter '" + p.name + "'");
    ParameterCheck c{p.name, truth(static_cast<int>(k - reg.begin())), p.value, p.sigma, p.rel_sigma,
                     (*p.interval95)[0], (*p.interval95)[1]};
    c.moved = std::any_of(report.moved_to_consistency.begin(), report.moved_to_consistency.end(),
                          [&](const std::string& m) { return m.rfind(p.name + " ", 0) == 0; });
    key += std::count(kKey.begin(), kKey.end(), c.name) > 0;
    row.checks.push_back(c);
  }
  row.identified = static_cast<int>(row.checks.size());
  row.key_identified = key == static_cast<int>(kKey.size());
  return row;
}

TruthRow make_row(std::uint64_t seed, const sim::LambdaVector<double>& truth, const IdentificationReport& report,
                  const std::vector<std::array<double, 6>>& floor, const ValidationResult& validation) {
  TruthRow row;
  static_cast<FitFigures&>(row) =
      make_fit("identify report of truth " + std::to_string(seed), truth, report, floor, validation);
  row.seed = seed;
  return row;
}

FitFigures failed_fit(const std::string& why) {
  FitFigures f;
  f.no_result = why.empty() ? "failed" : why;
  return f;
}

TruthRow failed_row(std::uint64_t seed, const std::string& why) {
  TruthRow row;
  row.seed = seed;
  row.failed = why.empty() ? "failed" : why;
  return row;
}

StudySummary summarise(const std::vector<TruthRow>& rows, bool calibrated) {
  StudySummary s;
  std::vector<double> key_rel;
  for (const TruthRow& row : rows) {
    ++s.truths;
    if (!row.failed.empty() || (calibrated && !row.calibrated) ||
        !(calibrated ? row.calibrated->no_result : row.no_result).empty()) {
      ++s.failed;
      continue;
    }
    const FitFigures& r = calibrated ? *row.calibrated : row;
    s.key_identified_runs += r.key_identified;
    s.max_seconds = std::max(s.max_seconds, r.seconds);
    s.max_cpu_seconds = std::max(s.max_cpu_seconds, r.cpu_seconds);
    s.stuck += r.stuck;
    s.max_after_over_floor = std::max(s.max_after_over_floor, r.after_over_floor);
    s.max_validation_over_floor = std::max(s.max_validation_over_floor, r.validation_over_floor);
    for (const ParameterCheck& c : r.checks) {
      ++s.parameters;
      const double z = std::abs(c.z());
      s.within1 += z <= 1;
      s.within2 += z <= 2;
      s.within3 += z <= 3;
      s.in_interval += c.truth >= c.low && c.truth <= c.high;
      s.outside_bound += !c.within_bound();
      if (c.name == "m_p" || c.name == "lp" || c.name == "li" || c.name == "ld") key_rel.push_back(c.rel_sigma);
    }
  }
  if (!key_rel.empty()) {
    std::sort(key_rel.begin(), key_rel.end());
    const std::size_t n = key_rel.size();
    s.median_key_rel_sigma = n % 2 ? key_rel[n / 2] : 0.5 * (key_rel[n / 2 - 1] + key_rel[n / 2]);
  }
  return s;
}

namespace {

// The summary paragraph under a table.
void summary_text(std::ostringstream& t, const StudySummary& s) {
  if (s.parameters == 0) {  // a coverage of nothing is not 0 %: none was measured
    t << "No identified parameter over " << s.truths << " truths: the coverage of σ and of the 95 % interval is not "
      << "measured (n/a).";
    if (s.failed > 0) t << " " << s.failed << " of " << s.truths << " truths have no result (the table says why).";
    t << "\n";
    return;
  }
  auto pct = [&](int k) { return s.parameters ? 100.0 * k / s.parameters : 0.0; };
  t << std::fixed << s.parameters << " identified parameters over " << s.truths << " truths: " << std::setprecision(1)
    << pct(s.within1) << " % within 1σ, " << pct(s.within2) << " % within 2σ, " << pct(s.within3)
    << " % within 3σ of the truth, " << pct(s.in_interval) << " % inside the 95 % interval; " << s.outside_bound
    << " outside max(5 %, 3σ). m_p, platform moments and gains identified in " << s.key_identified_runs << " of "
    << s.truths << " runs; median σ/|value| of m_p and the gains " << std::setprecision(2)
    << 100 * s.median_key_rel_sigma << " %. Stuck fits: " << s.stuck << ". Worst: identify " << std::setprecision(1)
    << s.max_seconds << " s (" << s.max_cpu_seconds << " CPU-s), after/floor " << std::setprecision(2) << s.max_after_over_floor << ", validation/floor "
    << s.max_validation_over_floor << ".";
  if (s.failed > 0) t << " " << s.failed << " of " << s.truths << " truths have no result (the table says why).";
  t << "\n";
}

std::string fixed_text(double v, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << v;
  return o.str();
}

// One line of the realistic table: a fit from the drawn file or from the calibrated one (or why
// that fit has no result).
void realistic_line(std::ostringstream& t, const TruthRow& r, const FitFigures& f, bool calibrated) {
  t << "| " << r.seed << " | " << (calibrated ? "calibrated" : "drawn") << " | "
    << (calibrated && r.calibration ? fixed_text(r.calibration->residual_over_noise, 2) + " × noise, " +
                                          fixed_text(r.calibration->cpu_seconds, 0) + " CPU-s"
                                    : "")
    << " | ";
  if (!f.no_result.empty()) {
    t << "— | — | — | — | — | — | — | — | — | no result: " << f.no_result << " |\n";
    return;
  }
  t << fixed_text(f.after_over_floor, 2) << " | " << fixed_text(f.validation_over_floor, 2) << " | " << f.identified
    << " of " << sim::kNumLambda << " | ";
  int in2 = 0, in3 = 0;
  for (const ParameterCheck& c : f.checks) in2 += std::abs(c.z()) <= 2, in3 += std::abs(c.z()) <= 3;
  if (f.checks.empty()) t << "– | – | – | ";
  else {
    const ParameterCheck* w = f.worst_z();
    const ParameterCheck* e = f.worst_error();
    t << in2 << " / " << in3 << " of " << f.checks.size() << " | " << w->name << " " << fixed_text(w->z(), 1) << " | "
      << fixed_text(100 * e->error(), 1) << " % " << e->name << " | ";
  }
  t << (f.key_identified ? "yes" : "no") << " | ";
  if (f.latency_sigma > 0) t << fixed_text(1e3 * f.latency, 3) << " ± " << fixed_text(1e3 * f.latency_sigma, 3);
  else t << "not fitted";
  t << " (" << fixed_text(1e3 * r.latency_truth, 3) << ") | " << fixed_text(f.cpu_seconds, 0) << " | "
    << (f.stuck ? "STUCK, " : "") << f.verdict << " |\n";
}

// The realistic chain's table: per truth the fit from the drawn file, then from the calibrated one.
std::string realistic_table(const std::vector<TruthRow>& rows, const StudySummary& s) {
  std::ostringstream t;
  t << "| truth seed | priors | calibration residual, CPU | after/floor | validation/floor | identified | within 2σ / 3σ | "
       "worst (σ) | largest relative error | core | latency fitted (truth), ms | identify CPU-s | verdict |\n"
       "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const TruthRow& r : rows) {
    if (!r.failed.empty()) {
      t << "| " << r.seed << " | — | — | — | — | — | — | — | — | — | — | — | no result: " << r.failed << " |\n";
      continue;
    }
    realistic_line(t, r, r, false);
    if (r.calibrated) realistic_line(t, r, *r.calibrated, true);
  }
  t << "\nWithout calibration (identified from the drawn robot file): ";
  summary_text(t, s);
  t << "\nCalibrated first (identified from the calibrated robot file, the drawn file the controller): ";
  summary_text(t, summarise(rows, true));
  return t.str();
}

}  // namespace

std::string markdown_table(const std::vector<TruthRow>& rows, const StudySummary& s) {
  if (std::any_of(rows.begin(), rows.end(), [](const TruthRow& r) { return r.calibrated.has_value(); }))  // (both fits)
    return realistic_table(rows, s);
  std::ostringstream t;
  t << std::fixed;
  t << "| truth seed | iterations | identify s | identify CPU-s | after/floor | validation/floor | identified | worst "
       "error | worst error/σ | stuck | verdict |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const TruthRow& r : rows) {
    if (!r.failed.empty()) {
      t << "| " << r.seed << " | — | — | — | — | — | — | — | — | — | no result: " << r.failed << " |\n";
      continue;
    }
    t << "| " << r.seed << " | " << r.iterations << " | " << std::setprecision(1) << r.seconds << " | " << r.cpu_seconds
      << " | " << std::setprecision(2) << r.after_over_floor << " | " << r.validation_over_floor << " | " << r.identified
      << (r.key_identified ? "" : " (not all of m_p, I_p, gains)") << " | ";
    if (const ParameterCheck* w = r.worst_error()) t << std::setprecision(1) << 100 * w->error() << " % " << w->name;
    t << " | ";
    if (const ParameterCheck* w = r.worst_z()) t << std::setprecision(2) << w->z() << " " << w->name;
    t << " | " << (r.stuck ? "yes" : "no") << " | " << r.verdict << " |\n";
  }
  t << "\n";
  summary_text(t, s);
  return t.str();
}

}  // namespace vcloe::report
