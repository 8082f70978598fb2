// DIR/study.json: the study's one writer and one typed reader (vcloe/report/study.hpp).
#include <algorithm>
#include <array>
#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/core/sealed_json.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/core/json_node.hpp"
#include "vcloe/oe_ident/spread.hpp"
#include "vcloe/report/study.hpp"
#include "identification_consistency.hpp"

namespace vcloe::report {

namespace {

nlohmann::json fit_json(const FitFigures& r) {
  if (!r.no_result.empty()) return {{"failed", r.no_result}};
  nlohmann::json params = nlohmann::json::array();
  for (const ParameterCheck& c : r.checks)
    params.push_back({{"name", c.name}, {"truth", c.truth}, {"value", c.value}, {"sigma", c.sigma},
                      {"rel_sigma", c.rel_sigma}, {"error", c.error()}, {"z", c.z()}, {"interval95", {c.low, c.high}},
                      {"moved_to_consistency", c.moved}});
  return {{"iterations", r.iterations}, {"seconds", r.seconds}, {"cpu_seconds", r.cpu_seconds}, {"stuck", r.stuck},
          {"after_over_floor", r.after_over_floor}, {"validation_over_floor", r.validation_over_floor},
          {"identified", r.identified}, {"key_identified", r.key_identified}, {"verdict", r.verdict},
          {"latency", {{"value", r.latency}, {"sigma", r.latency_sigma}}}, {"parameters", params}};
}

nlohmann::json summary_json(const StudySummary& s) {
  return {{"truths", s.truths},
          {"failed_truths", s.failed},
          {"parameters", s.parameters},
          {"within_1_sigma", s.within1},
          {"within_2_sigma", s.within2},
          {"within_3_sigma", s.within3},
          {"inside_95_interval", s.in_interval},
          {"outside_bound", s.outside_bound},
          {"key_identified_runs", s.key_identified_runs},
          {"stuck", s.stuck},
          {"median_key_rel_sigma", s.median_key_rel_sigma},
          {"max_seconds", s.max_seconds},
          {"max_cpu_seconds", s.max_cpu_seconds},
          {"max_after_over_floor", s.max_after_over_floor},
          {"max_validation_over_floor", s.max_validation_over_floor}};
}

}  // namespace

nlohmann::json study_json(const std::vector<TruthRow>& rows, const StudySummary& s, const StudySettings& settings) {
  nlohmann::json out = {{"truths", nlohmann::json::array()}};
  if (!settings.empty()) out["settings"] = settings;
  bool realistic = false;
  for (const TruthRow& r : rows) {
    if (!r.failed.empty()) {
      out["truths"].push_back({{"seed", r.seed}, {"failed", r.failed}});
      continue;
    }
    nlohmann::json row = {{"seed", r.seed}};
    if (r.calibrated && !r.no_result.empty()) row["drawn_failed"] = r.no_result;  // the calibrated fit still stands
    else row.update(fit_json(r));
    if (r.calibrated) {  // the realistic chain
      realistic = true;
      row["latency_truth"] = r.latency_truth;
      row["calibrated"] = fit_json(*r.calibrated);
      if (r.calibration)
        row["calibration"] = {{"residual_over_noise", r.calibration->residual_over_noise},
                              {"cpu_seconds", r.calibration->cpu_seconds}};
    }
    out["truths"].push_back(row);
  }
  out["summary"] = summary_json(s);
  if (realistic) out["summary_calibrated"] = summary_json(summarise(rows, true));
  return out;
}

namespace {

const std::array<const char*, 7> kKeyParameters = {"m_p", "Ix_p", "Iy_p", "Iz_p", "lp", "li", "ld"};

// A parameter's figures against each other, as the identification report's reader checks them
// (identification_consistency.cpp): a name of the registry, interval95 = centre * exp(+-1.96
// rel_sigma) with rel_sigma = sigma / centre, and the centre the value unless the value was moved
// to consistency after the fit (then sigma and interval are of the fitted value).
void check_figures(const ParameterCheck& c, const JsonNode& p) {
  const auto& reg = sim::parameter_registry();
  if (std::none_of(reg.begin(), reg.end(), [&](const auto& r) { return r.name == c.name; }))
    p["name"].refuse("the name of a model parameter (m_p, Ix_p, …, lp, li, ld)");
  // A truth no robot has (session 20's probe, K2: an m_p of -19.6 kg was merged as "-200.4 %"):
  // masses, moments, friction and gains are not negative; only the platform's first moments are signed.
  if (!oe_ident::has_first_moment_floor(sim::parameter_index(c.name)) && !(c.truth >= 0))
    p["truth"].refuse("a value " + c.name + " can have (not negative: a mass, moment, friction or gain)");
  if (!(c.low > 0 && c.high >= c.low)) {
    if (!(c.low == 0 || c.low <= c.high)) p["interval95"].refuse("a 95 % interval [low, high] with low <= high");
    return;  // a bound that under- or overflowed: its ratio says nothing
  }
  const double centre = std::sqrt(c.low) * std::sqrt(c.high), width = std::log(c.high / c.low);
  if (!(std::abs(width - 3.92 * c.rel_sigma) <= 1e-9 * std::max(1.0, width)))
    p["interval95"].refuse("value * exp(-+1.96 rel_sigma) (rel_sigma " + exact_number(c.rel_sigma) + ")");
  if (!detail::same_figure(c.rel_sigma, c.sigma / centre))
    p["rel_sigma"].refuse("sigma / value = " + exact_number(c.sigma / centre) + " (sigma " + exact_number(c.sigma) +
                          ", the interval's centre " + exact_number(centre) + ")");
  if (!c.moved && !detail::same_figure(c.value, centre))
    p["value"].refuse("the centre of interval95 [" + exact_number(c.low) + ", " + exact_number(c.high) + "], " +
                      exact_number(centre) + " (the fitted value; moved_to_consistency is false)");
}

ParameterCheck read_check(const JsonNode& p) {
  ParameterCheck c;
  c.name = p.need("name").string();
  c.truth = p.need("truth").number(), c.value = p.need("value").number(), c.sigma = p.need("sigma").non_negative();
  c.rel_sigma = p.need("rel_sigma").non_negative();
  const auto interval = p.need("interval95").fixed<2>();
  c.low = interval[0], c.high = interval[1];
  if (!p["moved_to_consistency"].absent()) c.moved = p["moved_to_consistency"].boolean();  // (since probe 19)
  check_figures(c, p);
  return c;
}

FitFigures read_fit(const JsonNode& t) {
  FitFigures r;
  if (!t["failed"].absent()) {  // this fit's own step failed
    r.no_result = t["failed"].string();
    if (r.no_result.empty()) t["failed"].refuse("why the fit has no result");
    return r;
  }
  r.iterations = t.need("iterations").integer(0, 1 << 30);
  r.seconds = t.need("seconds").non_negative();
  r.cpu_seconds = t.need("cpu_seconds").non_negative();
  r.stuck = t.need("stuck").boolean();
  r.after_over_floor = t.need("after_over_floor").non_negative();
  r.validation_over_floor = t.need("validation_over_floor").non_negative();
  r.identified = t.need("identified").integer(0, sim::kNumLambda);
  r.key_identified = t.need("key_identified").boolean();
  r.verdict = detail::adequacy_verdict(t.need("verdict"));
  if (!t["latency"].absent()) {  // (studies before the latency fit have none)
    r.latency = t["latency"].need("value").number();
    r.latency_sigma = t["latency"].need("sigma").non_negative();
  }
  const JsonNode params = t.need("parameters");
  if (params.array_size() != static_cast<std::size_t>(r.identified)) params.refuse("one entry per identified parameter");
  for (std::size_t k = 0; k < params.array_size(); ++k) {
    r.checks.push_back(read_check(params[k]));
    for (std::size_t i = 0; i < k; ++i)
      if (r.checks[i].name == r.checks[k].name)
        params[k]["name"].refuse("a parameter once: \"" + r.checks[k].name + "\" is also entry " + std::to_string(i));
  }
  const bool key = std::all_of(kKeyParameters.begin(), kKeyParameters.end(), [&](const char* n) {
    return std::any_of(r.checks.begin(), r.checks.end(), [&](const ParameterCheck& c) { return c.name == n; });
  });
  if (r.key_identified != key)
    t["key_identified"].refuse(std::string(key ? "true" : "false") + ": m_p, Ix_p, Iy_p, Iz_p, lp, li and ld are " +
                               (key ? "" : "not ") + "all among the parameters");
  return r;
}

TruthRow read_row(const JsonNode& t) {
  TruthRow r;
  r.seed = t.need("seed").unsigned_integer();
  if (!t["failed"].absent()) {
    r.failed = t["failed"].string();
    if (r.failed.empty()) t["failed"].refuse("why the truth has no result");
    return r;
  }
  if (!t["drawn_failed"].absent()) {  // the realistic chain's fit from the drawn file failed, alone
    r.no_result = t["drawn_failed"].string();
    if (r.no_result.empty() || t["calibrated"].absent())
      t["drawn_failed"].refuse("why the drawn file's fit has no result, beside a \"calibrated\" fit");
  } else
    static_cast<FitFigures&>(r) = read_fit(t);
  if (t["calibrated"].absent()) return r;
  r.calibrated = read_fit(t["calibrated"]);
  r.latency_truth = t.need("latency_truth").number();
  if (!t["calibration"].absent())
    r.calibration = CalibrationFigures{t["calibration"].need("residual_over_noise").non_negative(),
                                       t["calibration"].need("cpu_seconds").non_negative()};
  return r;
}

StudySummary read_summary(const JsonNode& j) {
  StudySummary s;
  auto count = [&](const char* key) { return j.need(key).integer(0, 1 << 30); };
  s.truths = count("truths"), s.failed = count("failed_truths"), s.parameters = count("parameters");
  s.within1 = count("within_1_sigma"), s.within2 = count("within_2_sigma"), s.within3 = count("within_3_sigma");
  s.in_interval = count("inside_95_interval"), s.outside_bound = count("outside_bound");
  s.key_identified_runs = count("key_identified_runs"), s.stuck = count("stuck");
  s.median_key_rel_sigma = j.need("median_key_rel_sigma").non_negative();
  s.max_seconds = j.need("max_seconds").non_negative();
  s.max_cpu_seconds = j.need("max_cpu_seconds").non_negative();
  s.max_after_over_floor = j.need("max_after_over_floor").non_negative();
  s.max_validation_over_floor = j.need("max_validation_over_floor").non_negative();
  return s;
}

}  // namespace

StudyResult study_from_json(const nlohmann::json& document, const std::string& file) {
  const JsonNode root = JsonNode::root(document, file, "(not written by `vcloe study`, or by an older vcloe? run it again)");
  StudyResult out;
  const JsonNode truths = root.need("truths");
  for (std::size_t i = 0; i < truths.array_size(); ++i) {
    out.rows.push_back(read_row(truths[i]));
    // A study draws each truth once (its seed); a seed twice is one truth counted twice.
    for (std::size_t k = 0; k < i; ++k)
      if (out.rows[k].seed == out.rows[i].seed)
        truths[i]["seed"].refuse("a truth once: seed " + std::to_string(out.rows[i].seed) + " is also truths[" +
                                 std::to_string(k) + "]");
  }
  out.summary = read_summary(root.need("summary"));
  if (!root["summary_calibrated"].absent()) out.summary_calibrated = read_summary(root["summary_calibrated"]);
  if (const JsonNode settings = root["settings"]; !settings.absent()) {
    settings.object();
    for (const auto& [key, value] : settings.value().items()) out.settings[key] = settings[key].string();
  }
  if (out.summary.truths != static_cast<int>(out.rows.size()))
    root["summary"]["truths"].refuse("the number of entries in truths (" + std::to_string(out.rows.size()) + ")");
  return out;
}

StudyResult read_study(const std::string& file) {
  return study_from_json(read_sealed_json_file(file, "run vcloe study again"), file);
}

StudySettings common_settings(const std::vector<StudyResult>& parts, const std::vector<std::string>& names) {
  if (parts.empty()) return {};
  const StudySettings& first = parts[0].settings;
  for (std::size_t p = 1; p < parts.size(); ++p) {
    const StudySettings& these = parts[p].settings;
    if (first.empty() != these.empty())
      fail(names[p], std::string(these.empty() ? "records no settings (an older vcloe), " : "records its settings, ") +
                         names[0] + (first.empty() ? " none" : " its settings") +
                         ": their rows cannot be checked to be of one study; run the shards again with one vcloe");
    StudySettings keys = first;
    keys.insert(these.begin(), these.end());
    for (const char* selection : kTruthSelection) keys.erase(selection);  // which truths: each part's own
    for (const auto& [key, unused] : keys) {
      const auto a = first.find(key), b = these.find(key);
      const std::string va = a == first.end() ? "(none)" : a->second, vb = b == these.end() ? "(none)" : b->second;
      if (va != vb)
        fail(names[p], "key 'settings." + key + "' is " + vb + ", in " + names[0] + " " + va +
                           ": the shards of one study have the same settings (their rows are not comparable)");
    }
  }
  return first;
}

std::string seeds_of(const std::vector<TruthRow>& rows) {
  std::string out;
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i;
    while (j + 1 < rows.size() && rows[j + 1].seed == rows[j].seed + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(rows[i].seed) + (j > i ? " to " + std::to_string(rows[j].seed) : "");
    i = j + 1;
  }
  return out;
}

std::vector<TruthRow> merge_rows(const std::vector<StudyResult>& parts, const std::vector<std::string>& names) {
  std::vector<std::pair<TruthRow, std::size_t>> all;  // a row and the part it came from
  for (std::size_t p = 0; p < parts.size(); ++p)
    for (const TruthRow& r : parts[p].rows) all.emplace_back(r, p);
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first.seed < b.first.seed; });
  std::vector<TruthRow> rows;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i > 0 && all[i].first.seed == all[i - 1].first.seed)
      fail(names[all[i].second], "truth " + std::to_string(all[i].first.seed) + " is also in " + names[all[i - 1].second] +
                                     ": shards of one study have no truth in common");
    rows.push_back(all[i].first);
  }
  return rows;
}

}  // namespace vcloe::report
