// The identification report's one writer and one reader (identification.hpp). The reader checks
// in the order the HTML report did before it was typed (the keys it needs, then the 70
// parameters, then the rest), so that its first complaint stays the same.
#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

#include "vcloe/core/json_node.hpp"
#include "vcloe/core/sealed_json.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/report/identification.hpp"
#include "vcloe/sim/parameters.hpp"
#include "identification_consistency.hpp"

namespace vcloe::report {

using nlohmann::json;
using Node = vcloe::JsonNode;

// What a missing key says: the file was not written by this vcloe.
// How far below zero a correlation matrix's smallest eigenvalue may be from rounding alone: the
// report's 70 x 70 at most, each entry written to 17 digits, is positive semi-definite to ~1e-14.
constexpr double kCorrelationEigenTolerance = 1e-6;

constexpr const char* kNotFromIdentify = "(not written by `vcloe identify`, or by an older vcloe? run it again)";

namespace {

json axes_json(const AxesRms& a) { return {{"mm", {a[0], a[1], a[2]}}, {"mrad", {a[3], a[4], a[5]}}}; }

json file_json(const std::optional<FileEntry>& f) { return f ? to_json(*f) : json(); }

json parameter_json(const ParameterEntry& p) {
  return {{"name", p.name},
          {"unit", p.unit},
          {"prior", p.prior},
          {"value", p.value},
          {"sigma", p.sigma},
          {"rel_sigma", p.rel_sigma},
          {"sigma_camera", p.sigma_camera},
          // a bound that overflowed (exp(1.96 * 1000)) is null: unbounded
          {"interval95", p.interval95 ? json{finite_or_null((*p.interval95)[0]), finite_or_null((*p.interval95)[1])} : json()},
          {"prior_pull", p.prior_pull},
          {"identified", p.identified},
          {"flagged", p.flagged},
          {"status", p.status}};
}

json adequacy_json(const AdequacyEntry& a) {
  json per = json::array();
  for (const auto& e : a.experiments)
    per.push_back({{"rms_over_noise", e.rms_over_noise}, {"lag1", e.lag1}, {"model_share", e.model_share}});
  return {{"verdict", a.verdict},
          {"summary", a.summary},
          {"worst_channel", a.worst_channel},
          {"worst_model_share", a.worst_model_share},
          {"mean_model_share", a.mean_model_share},
          {"chi2_per_dof", a.chi2_per_dof},
          {"sigma_scale", a.sigma_scale},
          {"experiments", per}};
}

json start_json(const StartEntry& s) {
  return {{"searched", s.searched},         {"horizon", s.horizon},
          {"directions", s.directions},     {"factors", s.factors},
          {"cost_at_priors", finite_or_null(s.cost_at_priors)}, {"cost_at_start", finite_or_null(s.cost_at_start)},
          {"evaluations", s.evaluations},   {"cpu_seconds", s.cpu_seconds},
          {"latency_starts", s.latency_starts}, {"latency_costs", s.latency_costs},
          {"latency_over_noise", s.latency_over_noise}};
}

json convergence_json(const ConvergenceEntry& c) {
  return {{"verdict", c.verdict},
          {"summary", c.summary},
          {"end_over_noise", c.end_over_noise},
          {"end_cost", c.end_cost},
          {"noise_cost", c.noise_cost},
          {"second_start_cost", c.second_start_cost},
          {"removed_share", c.removed_share},
          {"escapes", c.escapes},
          {"cpu_seconds", c.cpu_seconds}};
}

json latency_json(const LatencyEntry& l) {
  return {{"fitted", l.fitted},         {"value", l.value}, {"sigma", l.sigma},
          {"sigma_camera", l.sigma_camera}, {"low", l.low},   {"high", l.high},
          {"prior_pull", l.prior_pull}, {"status", l.status}};
}

json rms_rows_json(const std::vector<AxesRms>& rows) {
  json a = json::array();
  for (const auto& r : rows) a.push_back(axes_json(r));
  return a;
}

}  // namespace

json to_json(const IdentificationReport& r) {
  json params = json::array();
  for (const auto& p : r.parameters) params.push_back(parameter_json(p));
  const ReportInputs& in = r.inputs;
  return {{"before_rms", r.before_rms_all.empty() ? json() : axes_json(r.before_rms_all.front())},
          {"after_rms", r.after_rms_all.empty() ? json() : axes_json(r.after_rms_all.front())},
          {"before_rms_all", rms_rows_json(r.before_rms_all)},
          {"after_rms_all", rms_rows_json(r.after_rms_all)},
          {"parameters", params},
          {"identified_count", r.identified_count},
          {"latency_offset", latency_json(r.latency)},
          {"anchor", r.anchor},
          {"iterations", r.iterations},
          {"seconds", r.seconds},
          {"cpu_seconds", r.cpu_seconds},
          {"start", start_json(r.start)},
          {"convergence", convergence_json(r.convergence)},
          {"jacobian_cost_ratio", r.jacobian_cost_ratio},
          {"rejected_steps", r.rejected_steps},
          {"failed_simulations", r.failed_simulations},
          {"adequacy", adequacy_json(r.adequacy)},
          {"correlation", {{"parameters", r.correlation.parameters}, {"matrix", r.correlation.matrix}}},
          {"singular_values", r.singular_values},
          {"rank_tolerance", r.rank_tolerance},
          {"consistency", r.consistency},
          {"moved_to_consistency", r.moved_to_consistency},
          {"termination", r.termination},
          {"after_over_noise", r.after_over_noise},
          {"noise_sigma", r.noise_sigma},
          {"inputs", {{"robot", file_json(in.robot)},
                      {"measured", file_json(in.measured)},
                      {"payload_trace", file_json(in.payload_trace)},
                      {"reference", file_json(in.reference)},
                      {"experiment", file_json(in.experiment)},
                      {"config", file_json(in.config)},
                      {"model", file_json(in.model)}}}};
}

namespace {

AxesRms read_axes(const Node& n) {
  const auto mm = n["mm"].fixed<3>(true), mrad = n["mrad"].fixed<3>(true);
  return {mm[0], mm[1], mm[2], mrad[0], mrad[1], mrad[2]};
}

std::vector<AxesRms> read_rms_rows(const Node& n) {
  std::vector<AxesRms> rows(n.array_size());
  if (rows.empty()) n.refuse("one row per experiment");
  for (std::size_t e = 0; e < rows.size(); ++e) rows[e] = read_axes(n[e]);
  return rows;
}

// Parameter k as the registry has it (sim/parameters.hpp): its name and SI unit are not the
// file's to choose (a unit edited to "g" drew the kg value in grams).
ParameterEntry read_parameter(const Node& p, std::size_t k) {
  if (p["name"].absent() || !p["name"].value().is_string()) p.refuse("an object with a string 'name'");
  const sim::ParameterInfo& info = sim::parameter_registry()[k];
  ParameterEntry e;
  e.name = p["name"].string();
  if (e.name != info.name) p["name"].refuse("\"" + info.name + "\" (parameter " + std::to_string(k) + " of the registry, docs/identification.md)");
  e.prior = p["prior"].number();
  e.value = p["value"].number();
  e.unit = p["unit"].string();
  if (e.unit != info.unit) p["unit"].refuse("\"" + info.unit + "\", the SI unit of " + info.name);
  e.sigma = p["sigma"].non_negative();
  if (std::signbit(e.sigma)) p["sigma"].refuse("a non-negative standard deviation (0 or above; -0 is no writer's)");
  e.rel_sigma = p["rel_sigma"].non_negative();
  e.sigma_camera = p["sigma_camera"].non_negative();
  if (const Node i = p["interval95"]; !i.is_null()) {
    i.array_size(2);
    e.interval95 = std::array<double, 2>{i[0].bound(), i[1].bound()};
  }
  e.prior_pull = p["prior_pull"].non_negative();
  e.identified = p["identified"].boolean();
  e.flagged = p["flagged"].boolean();
  e.status = p["status"].string();
  return e;
}

AdequacyEntry read_adequacy(const Node& a) {
  AdequacyEntry out{detail::adequacy_verdict(a["verdict"]), a["summary"].string(), a["worst_channel"].string(),
                    a["worst_model_share"].number(), a["mean_model_share"].number(), a["chi2_per_dof"].non_negative(),
                    a["sigma_scale"].non_negative(), {}};
  const Node per = a["experiments"];
  for (std::size_t e = 0; e < per.array_size(); ++e)
    out.experiments.push_back({per[e]["rms_over_noise"].fixed<6>(true), per[e]["lag1"].fixed<6>(),
                               per[e]["model_share"].fixed<6>()});
  return out;
}

// The correlation matrix as the writer makes it (identification.cpp: correlation()): over the
// parameters with a sigma, in registry order, each named once; symmetric, a unit diagonal,
// every |rho| <= 1 and positive semi-definite within rounding (predict takes sigma_i sigma_j rho_ij
// as a covariance: an indefinite one gave zero and negative variances, clipped silently).
Correlation read_correlation(const Node& c, const std::vector<ParameterEntry>& parameters, const Node& entries) {
  std::vector<std::string> fitted;
  for (const ParameterEntry& p : parameters)
    if (p.sigma > 0) fitted.push_back(p.name);
  Correlation out{c["parameters"].strings(), {}};
  if (out.parameters != fitted) {
    // A parameter the matrix names but whose own sigma is 0: said at that sigma, where the edit is.
    for (std::size_t k = 0; k < parameters.size(); ++k)
      if (!(parameters[k].sigma > 0) &&
          std::find(out.parameters.begin(), out.parameters.end(), parameters[k].name) != out.parameters.end())
        entries[k]["sigma"].refuse("a positive sigma: " + parameters[k].name + " is in correlation.parameters (fitted)");
    std::string list;
    for (const std::string& n : fitted) list += (list.empty() ? "" : ", ") + n;
    c["parameters"].refuse("the " + std::to_string(fitted.size()) + " parameters with a sigma, once each in registry order (" +
                           list.substr(0, 200) + ")");
  }
  const std::size_t n = out.parameters.size();
  const Node m = c["matrix"];
  Eigen::MatrixXd R(n, n);
  for (std::size_t i = 0; i < m.array_size(n); ++i) {
    m[i].array_size(n);
    std::vector<double> row(n);
    for (std::size_t k = 0; k < n; ++k) {
      row[k] = m[i][k].number();
      if (!(std::abs(row[k]) <= 1 + 1e-9)) m[i][k].refuse("a correlation in [-1, 1]");
      if (i == k && std::abs(row[k] - 1) > 1e-9) m[i][k].refuse("1 (a parameter's correlation with itself)");
      R(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) = row[k];
    }
    out.matrix.push_back(row);
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (std::abs(out.matrix[i][k] - out.matrix[k][i]) > 1e-9)
        m[i][k].refuse("matrix[" + std::to_string(k) + "][" + std::to_string(i) + "] (" + exact_number(out.matrix[k][i]) +
                       "): a correlation matrix is symmetric");
  if (n > 0) {
    const double lowest = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(R, Eigen::EigenvaluesOnly).eigenvalues()(0);
    if (lowest < -kCorrelationEigenTolerance)
      m.refuse("a positive semi-definite matrix (a correlation matrix is one; its smallest eigenvalue is " +
               exact_number(lowest) + ", below -" + exact_number(kCorrelationEigenTolerance) + ")");
  }
  return out;
}

// A cost the search saw: +infinity (the twin failed there) is written null.
double read_cost(const Node& n) { return n.is_null() ? INFINITY : n.non_negative(); }

StartEntry read_start(const Node& s) {
  StartEntry out;
  out.searched = s["searched"].boolean();
  out.horizon = s["horizon"].non_negative();
  out.directions = s["directions"].strings();
  out.factors = s["factors"].numbers(true);
  if (out.factors.size() != out.directions.size())
    s["factors"].refuse("one factor per direction (" + std::to_string(out.directions.size()) + ")");
  for (std::size_t k = 0; k < out.factors.size(); ++k)
    if (!(out.factors[k] > 0)) s["factors"][k].refuse("a positive factor");
  out.cost_at_priors = read_cost(s["cost_at_priors"]);
  out.cost_at_start = read_cost(s["cost_at_start"]);
  out.evaluations = s["evaluations"].integer(0, 1 << 30);
  out.cpu_seconds = s["cpu_seconds"].non_negative();
  if (!s["latency_starts"].absent()) {  // (reports before the latency starts have none)
    out.latency_starts = s["latency_starts"].numbers();
    out.latency_costs = s["latency_costs"].numbers(true);
    if (out.latency_costs.size() != out.latency_starts.size())
      s["latency_costs"].refuse("one cost per latency start (" + std::to_string(out.latency_starts.size()) + ")");
  }
  if (!s["latency_over_noise"].absent()) out.latency_over_noise = s["latency_over_noise"].non_negative();
  return out;
}

ConvergenceEntry read_convergence(const Node& c) {
  ConvergenceEntry out;
  out.verdict = c["verdict"].one_of({"converged", "stuck", "not checked"});
  out.summary = c["summary"].string();
  out.end_over_noise = c["end_over_noise"].non_negative();
  out.end_cost = c["end_cost"].non_negative();
  out.noise_cost = c["noise_cost"].non_negative();
  out.second_start_cost = c["second_start_cost"].number();
  out.removed_share = c["removed_share"].number();
  out.escapes = c["escapes"].integer(0, 100);
  out.cpu_seconds = c["cpu_seconds"].non_negative();
  return out;
}

LatencyEntry read_latency(const Node& l) {
  LatencyEntry out;
  out.fitted = l["fitted"].boolean();
  out.value = l["value"].number();
  out.sigma = l["sigma"].non_negative();
  out.sigma_camera = l["sigma_camera"].non_negative();
  out.low = l["low"].number();
  out.high = l["high"].number();
  if (!(out.low <= out.high)) l["high"].refuse("a bound at least 'low' (" + exact_number(out.low) + ")");
  // Within the bounds the same object states (the fit is bounded there: tanh, identification.md).
  if (!(out.value >= out.low && out.value <= out.high))
    l["value"].refuse("a latency offset within this object's bounds [" + exact_number(out.low) + ", " +
                      exact_number(out.high) + "] s");
  out.prior_pull = l["prior_pull"].non_negative();
  out.status = l["status"].string();
  return out;
}

// The anchor as identify writes it (oe_ident::Anchor::describe): "payload experiment", or "known
// <parameter> = <value> <unit>" of a parameter of the registry in its SI unit. Never "none":
// identify refuses a fit without an anchor (docs/identification.md, "Scale anchor").
std::string read_anchor(const Node& a) {
  const std::string s = a.string();
  if (s == "payload experiment") return s;
  for (const sim::ParameterInfo& info : sim::parameter_registry()) {
    const std::string head = "known " + info.name + " = ", tail = " " + info.unit;
    if (s.size() > head.size() + tail.size() && s.rfind(head, 0) == 0 && s.compare(s.size() - tail.size(), tail.size(), tail) == 0)
      return s;
  }
  a.refuse("\"payload experiment\" or \"known <parameter> = <value> <unit>\" (identify's anchor; it refuses a fit without one)");
}

FileEntry read_file_entry(const Node& f) { return {f["path"].string(), f["sha256"].sha256()}; }

ReportInputs read_inputs(const Node& in) {
  auto required = [&](const char* key) { return read_file_entry(in.need(key)); };
  auto optional = [&](const char* key) -> std::optional<FileEntry> {
    if (in[key].is_null()) return std::nullopt;
    return read_file_entry(in[key]);
  };
  return {required("robot"), required("measured"), required("reference"), required("model"),
          optional("payload_trace"), optional("experiment"), optional("config")};
}

}  // namespace

IdentificationReport identification_from_json(const json& document, const std::string& file) {
  const Node root = Node::root(document, file, kNotFromIdentify);
  for (const char* key : {"parameters", "inputs", "adequacy", "before_rms_all", "after_rms_all", "singular_values"})
    root.need(key);
  const Node params = root["parameters"];
  params.array_size(sim::kNumLambda);
  IdentificationReport r;
  for (std::size_t k = 0; k < static_cast<std::size_t>(sim::kNumLambda); ++k) r.parameters.push_back(read_parameter(params[k], k));
  r.before_rms_all = read_rms_rows(root["before_rms_all"]);
  r.after_rms_all = read_rms_rows(root["after_rms_all"]);
  if (r.after_rms_all.size() != r.before_rms_all.size())
    root["after_rms_all"].refuse("as many experiments as before_rms_all (" + std::to_string(r.before_rms_all.size()) + ")");
  if (read_axes(root.need("before_rms")) != r.before_rms_all.front()) root["before_rms"].refuse("before_rms_all[0]");
  if (read_axes(root.need("after_rms")) != r.after_rms_all.front()) root["after_rms"].refuse("after_rms_all[0]");
  r.identified_count = root.need("identified_count").integer(0, sim::kNumLambda);
  r.latency = read_latency(root.need("latency_offset"));
  r.anchor = read_anchor(root.need("anchor"));
  r.iterations = root.need("iterations").integer(0, 1 << 30);
  r.seconds = root.need("seconds").non_negative();
  r.cpu_seconds = root.need("cpu_seconds").non_negative();
  r.start = read_start(root.need("start"));
  r.convergence = read_convergence(root.need("convergence"));
  r.jacobian_cost_ratio = root.need("jacobian_cost_ratio").non_negative();
  r.rejected_steps = root.need("rejected_steps").integer(0, 1 << 30);
  r.failed_simulations = root.need("failed_simulations").integer(0, 1 << 30);
  r.adequacy = read_adequacy(root["adequacy"]);
  if (r.adequacy.experiments.size() != r.after_rms_all.size())
    root["adequacy"]["experiments"].refuse("one entry per experiment (" + std::to_string(r.after_rms_all.size()) + ")");
  r.correlation = read_correlation(root.need("correlation"), r.parameters, params);
  r.singular_values = root["singular_values"].numbers(true);
  r.rank_tolerance = root.need("rank_tolerance").non_negative();
  r.consistency = root.need("consistency").strings();
  r.moved_to_consistency = root.need("moved_to_consistency").strings();
  r.termination = root.need("termination").string();
  r.after_over_noise = root.need("after_over_noise").non_negative();
  r.noise_sigma = root.need("noise_sigma").fixed<6>();
  for (std::size_t c = 0; c < 6; ++c)
    if (!(r.noise_sigma[c] > 0)) root["noise_sigma"][c].refuse("a positive camera sigma (m for x, y, z; rad for the angles)");
  r.inputs = read_inputs(root["inputs"]);
  if (r.anchor == "payload experiment" && !r.inputs.payload_trace)
    root["anchor"].refuse("not \"payload experiment\" beside inputs.payload_trace null (the payload anchor is the payload trace's)");
  detail::check_latency(r.latency, root["latency_offset"]);  // derived fields: of the primary ones, or refused
  detail::check_parameters_consistent(r, params, root);
  detail::check_derived_fields(r, root);
  return r;
}

IdentificationReport read_identification_report(const std::string& file) {
  return identification_from_json(read_sealed_json_file(file, "run vcloe identify again"), file);
}

}  // namespace vcloe::report
