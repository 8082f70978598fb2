// The identification report's derived fields checked against their primary ones
// (identification_consistency.hpp).
#include "identification_consistency.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "vcloe/core/error.hpp"
#include "vcloe/oe_ident/adequacy.hpp"
#include "vcloe/oe_ident/problem.hpp"
#include "vcloe/oe_ident/spread.hpp"
#include "vcloe/sim/parameters.hpp"

namespace vcloe::report::detail {

// Equal within the rounding of one derivation (the files hold every number to 17 digits).
bool same_figure(double a, double b) {
  return a == b || (std::isfinite(a) && std::isfinite(b) && std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)));
}

std::string adequacy_verdict(const JsonNode& n) {
  using oe_ident::Verdict;
  const std::string v = n.string();
  for (Verdict k : {Verdict::NoiseLevel, Verdict::ModelErrorVisible, Verdict::ModelErrorDominates})
    if (v == oe_ident::Adequacy::name(k)) return v;
  n.refuse("one of the model-adequacy verdicts \"noise level\", \"model error visible\", \"model error dominates\"");
}

namespace {

// The statuses the fit writes (oe_ident: solution.cpp for a fitted parameter, optionally followed
// by " (tied)"; identify.cpp and identifiability.cpp for one left out of the fit).
const char* const kFittedStatuses[] = {"identified", "fitted, but only identifiable in combination",
                                       "poorly determined (relative sigma above the flag)",
                                       "set by the weak prior (the data moves it less than the prior does)"};
const char* const kLeftOutStatuses[] = {"fixed", "fixed (configuration)", "fixed (scale anchor)",
                                        "not excited (no effect on the pose trace)",
                                        "unidentifiable at the solution (null space of the Jacobian)"};
constexpr const char* kCombinationPrefix = "only in combination with ";
constexpr const char* kTied = " (tied)";

std::string fitted_base(const std::string& status) {
  const std::string tied = kTied;
  if (status.size() > tied.size() && status.compare(status.size() - tied.size(), tied.size(), tied) == 0)
    return status.substr(0, status.size() - tied.size());
  return status;
}

bool is_fitted_status(const std::string& status) {
  const std::string base = fitted_base(status);
  return std::any_of(std::begin(kFittedStatuses), std::end(kFittedStatuses), [&](const char* s) { return base == s; });
}

bool is_left_out_status(const std::string& status) {
  return status.rfind(kCombinationPrefix, 0) == 0 ||
         std::any_of(std::begin(kLeftOutStatuses), std::end(kLeftOutStatuses), [&](const char* s) { return status == s; });
}

// A moved parameter's rel_sigma and interval are of its fitted value, before the move
// (oe_ident/src/consistency.cpp names it first in its line of moved_to_consistency).
bool moved(const IdentificationReport& r, const std::string& name) {
  return std::any_of(r.moved_to_consistency.begin(), r.moved_to_consistency.end(),
                     [&](const std::string& m) { return m.rfind(name + " ", 0) == 0; });
}

// The rule identify wrote by (oe_ident/spread.hpp), at the report's own m_p.
oe_ident::ParameterSpread spread_of(const IdentificationReport& r, int k) {
  const ParameterEntry& p = r.parameters[static_cast<std::size_t>(k)];
  return oe_ident::parameter_spread(k, p.value, p.sigma, r.parameters[sim::platform_index(0)].value);
}

void check_interval(const ParameterEntry& p, const oe_ident::ParameterSpread& s, bool gaussian, const JsonNode& n) {
  const auto& i = *p.interval95;
  for (int k = 0; k < 2; ++k) {
    const double want = k == 0 ? s.low : s.high, got = i[static_cast<std::size_t>(k)];
    const std::string sign = k == 0 ? "-" : "+";
    if (!(same_figure(got, want) || (std::isinf(got) && !std::isfinite(want))))
      n["interval95"][static_cast<std::size_t>(k)].refuse(
          std::string(k == 0 ? "the lower" : "the upper") + " bound " +
          (gaussian ? "value " + sign + " 1.96 sigma" : "value * exp(" + sign + "1.96 rel_sigma)") + " = " + exact_number(want) +
          " (value " + exact_number(p.value) + ", " + (gaussian ? "sigma " + exact_number(p.sigma) : "rel_sigma " + exact_number(p.rel_sigma)) + ")");
  }
}

void check_fitted(const IdentificationReport& r, int k, const JsonNode& n) {
  const ParameterEntry& p = r.parameters[static_cast<std::size_t>(k)];
  if (p.sigma > 0 && !p.interval95) n["interval95"].refuse("a 95 % interval: the parameter has a sigma");
  if (!(p.sigma > 0) && p.interval95) n["interval95"].refuse("null: the parameter has no sigma");
  if (moved(r, p.name)) return;
  const oe_ident::ParameterSpread s = spread_of(r, k);
  const bool floored = oe_ident::has_first_moment_floor(k);
  if (!same_figure(p.rel_sigma, s.rel_sigma))
    n["rel_sigma"].refuse(std::string(floored ? "sigma / max(|value|, m_p x 1 mm) = " : "sigma / |value| = ") +
                          exact_number(s.rel_sigma) + " (sigma " + exact_number(p.sigma) + ", value " + exact_number(p.value) +
                          "; of its value before the move if moved_to_consistency lists it)");
  if (p.interval95) check_interval(p, s, floored, n);
}

void check_left_out(const ParameterEntry& p, const JsonNode& n) {
  for (const auto& [key, v] : {std::pair{"sigma", p.sigma}, {"rel_sigma", p.rel_sigma}, {"sigma_camera", p.sigma_camera}})
    if (v != 0) n[key].refuse(std::string("0: the status \"") + p.status + "\" is of a parameter left out of the fit");
  if (p.interval95) n["interval95"].refuse("null: the status \"" + p.status + "\" is of a parameter left out of the fit");
  if (p.flagged) n["flagged"].refuse("false: the parameter was left out of the fit (\"" + p.status + "\")");
}

constexpr const char* kNullSpace = "unidentifiable at the solution (null space of the Jacobian)";

// The weighted Jacobian's singular values (oe_ident/identifiability.cpp, analyse_solution): one per
// coordinate of the fit at the solution — a fitted parameter (a tied group shares one), the latency
// offset when fitted, a coordinate then found in the null space (a tied one unmarked) — largest
// first, and some below rank_tolerance x the largest exactly when something was put in the null space.
void check_singular_values(const IdentificationReport& r, const JsonNode& root) {
  int fitted = 0, tied = 0, null_space = 0;
  for (const ParameterEntry& p : r.parameters) {
    if (p.status == kNullSpace) ++null_space;
    else if (is_fitted_status(p.status)) ++(fitted_base(p.status) != p.status ? tied : fitted);
  }
  const bool latency = r.latency.fitted, latency_null = r.latency.status == kNullSpace;
  const int exact = fitted + latency + latency_null;
  const int low = exact + (tied > 0) + (null_space > 0), high = exact + tied + null_space;
  const std::vector<double>& sv = r.singular_values;
  const int n = static_cast<int>(sv.size());
  if (n < low || n > high) {
    std::string coords = std::to_string(fitted) + " fitted parameters" + (tied ? ", " + std::to_string(tied) + " tied ones" : "") +
                         (null_space ? ", " + std::to_string(null_space) + " in the null space" : "") +
                         (latency || latency_null ? " and the latency offset" : "");
    root["singular_values"].refuse("an array of " + (low == high ? std::to_string(low) : std::to_string(low) + " to " + std::to_string(high)) +
                                   " (one per coordinate of the fit: " + coords + "; this one holds " + std::to_string(n) + ")");
  }
  for (int i = 1; i < n; ++i)
    if (sv[static_cast<std::size_t>(i)] > sv[static_cast<std::size_t>(i - 1)])
      root["singular_values"][static_cast<std::size_t>(i)].refuse("at most singular_values[" + std::to_string(i - 1) + "] = " +
                                                                   exact_number(sv[static_cast<std::size_t>(i - 1)]) + " (largest first)");
  const bool below = n > 0 && sv.back() < r.rank_tolerance * sv.front();
  if (below != (null_space > 0 || latency_null))
    root["singular_values"].refuse(below ? "none below rank_tolerance x the largest: no parameter is \"" + std::string(kNullSpace) + "\""
                                         : "some below rank_tolerance x the largest: a parameter is \"" + std::string(kNullSpace) + "\"");
}

// One line of moved_to_consistency (oe_ident/consistency.cpp): "<parameter> <from> -> <to> <unit>
// (<why>)", the parameter's value now `to` (printed to 4 digits); the parameter's index.
std::size_t check_move_line(const IdentificationReport& r, const JsonNode& n, const std::string& line) {
  const std::string expected = "a line \"<parameter> <from> -> <to> kg*m^2 (<why>)\" of a moment or first moment moved to consistency";
  const std::string name = line.substr(0, line.find(' '));
  std::size_t k = 0;
  while (k < r.parameters.size() && r.parameters[k].name != name) ++k;
  double from = 0, to = 0;
  char unit[16] = {0}, open = 0;
  if (k == r.parameters.size() ||
      std::sscanf(line.c_str() + name.size(), " %lf -> %lf %15s %c", &from, &to, unit, &open) != 4 || open != '(' ||
      (std::string(unit) != "kg*m^2" && std::string(unit) != "kg*m") || line.back() != ')')
    n.refuse(expected);
  const double value = r.parameters[k].value;
  if (!(std::abs(to - value) <= 6e-4 * std::abs(value) + 1e-300))
    n.refuse("a move to parameters[" + std::to_string(k) + "].value (" + name + " = " + exact_number(value) + ")");
  return k;
}

// moved_to_consistency, checked on its own before the figures it explains (a moved parameter's
// rel_sigma is of its value before the move): its lines, once each, and every parameter fixed
// before the fit whose value is not its prior listed (only the move changes it).
void check_moved(const IdentificationReport& r, const JsonNode& root) {
  const JsonNode list = root["moved_to_consistency"];
  std::set<std::size_t> listed;
  for (std::size_t i = 0; i < r.moved_to_consistency.size(); ++i)
    if (!listed.insert(check_move_line(r, list[i], r.moved_to_consistency[i])).second)
      list[i].refuse("one line per parameter (" + r.moved_to_consistency[i].substr(0, r.moved_to_consistency[i].find(' ')) +
                     " is listed twice)");
  for (std::size_t k = 0; k < r.parameters.size(); ++k) {
    const ParameterEntry& p = r.parameters[k];
    if ((p.status == "fixed" || p.status == "fixed (configuration)") && !same_figure(p.value, p.prior) && !listed.count(k))
      list.refuse("a line for " + p.name + ": parameters[" + std::to_string(k) + "] is \"" + p.status + "\", its value " +
                  exact_number(p.value) + " not its prior " + exact_number(p.prior) + ": only a move to consistency changes it");
  }
}

}  // namespace

void check_latency(const LatencyEntry& l, const JsonNode& n) {
  if (l.fitted) {
    const std::string want = oe_ident::LatencyResult::fitted_status(l.value, l.low, l.high);
    if (l.status != want)
      n["status"].refuse("\"" + want + "\", the status of an offset fitted (fitted is true) to " + exact_number(l.value) +
                         " s within [" + exact_number(l.low) + ", " + exact_number(l.high) + "] s");
    return;
  }
  if (l.status != "held (latency.fit: false)" && l.status != "not fitted (no free parameter of Lambda)" && !is_left_out_status(l.status))
    n["status"].refuse("\"held (latency.fit: false)\", \"not fitted (no free parameter of Lambda)\" or the status of a "
                       "coordinate left out of the fit (fitted is false)");
  for (const auto& [key, v] : {std::pair{"sigma", l.sigma}, {"sigma_camera", l.sigma_camera}, {"prior_pull", l.prior_pull}})
    if (v != 0) n[key].refuse("0: the latency offset was not fitted (fitted is false)");
}

void check_parameters_consistent(const IdentificationReport& r, const JsonNode& params, const JsonNode& root) {
  check_moved(r, root);
  check_singular_values(r, root);
  int identified = 0;
  for (std::size_t k = 0; k < r.parameters.size(); ++k) {
    const ParameterEntry& p = r.parameters[k];
    const JsonNode n = params[k];
    const bool fitted = is_fitted_status(p.status);
    if (!fitted && !is_left_out_status(p.status))
      n["status"].refuse("one of the statuses vcloe identify writes (docs/identification.md: \"identified\", \"poorly "
                         "determined (relative sigma above the flag)\", \"fixed (configuration)\", ...)");
    const bool says_identified = fitted_base(p.status) == "identified";
    if (p.flagged && says_identified)
      n["status"].refuse("not \"identified\": the parameter is flagged (its relative sigma above the flag)");
    if (p.identified != says_identified)
      n["identified"].refuse(std::string(says_identified ? "true" : "false") + ": the status is \"" + p.status + "\"");
    if (fitted_base(p.status) == kFittedStatuses[2] && !p.flagged)
      n["flagged"].refuse("true: the status is \"" + p.status + "\"");
    if (fitted && fitted_base(p.status) != kFittedStatuses[1])  // the fit's rule, of flagged and prior_pull
      if (const std::string want = oe_ident::fitted_status(false, p.flagged, p.prior_pull); fitted_base(p.status) != want)
        n["status"].refuse("\"" + want + "\", the status of flagged " + (p.flagged ? "true" : "false") + " and prior_pull " +
                           exact_number(p.prior_pull) + " sigma (set by the weak prior above " +
                           exact_number(oe_ident::kMaxPriorPull) + ")");
    if (fitted) check_fitted(r, static_cast<int>(k), n);
    else check_left_out(p, n);
    identified += p.identified;
  }
  if (identified != r.identified_count)
    root["identified_count"].refuse("the number of parameters marked identified (" + std::to_string(identified) + ")");
}

}  // namespace vcloe::report::detail

namespace vcloe::report {

void check_values_of_file(const IdentificationReport& r, const std::string& file, const std::string& key,
                          const sim::LambdaVector<double>& lambda, const std::string& what) {
  for (std::size_t k = 0; k < r.parameters.size(); ++k) {
    const ParameterEntry& p = r.parameters[k];
    const double in_report = key == "prior" ? p.prior : p.value, in_file = lambda(static_cast<Eigen::Index>(k));
    if (!detail::same_figure(in_report, in_file))
      fail(file, "key 'parameters[" + std::to_string(k) + "]." + key + "' (" + p.name + "): " + exact_number(in_report) +
                     ", but " + what + " holds " + exact_number(in_file) + ": the report does not describe that file "
                     "(edited since written?); run vcloe identify again");
  }
}

}  // namespace vcloe::report
