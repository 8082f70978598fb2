// The validation result's one writer and one reader (validation.hpp).
#include "vcloe/report/validation.hpp"
#include "vcloe/core/sealed_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "vcloe/core/error.hpp"
#include "vcloe/core/json_node.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/sim/parameters.hpp"
#include "identification_consistency.hpp"

namespace vcloe::report {

using nlohmann::json;
using Node = vcloe::JsonNode;

// What a missing key says: the file was not written by this vcloe.
constexpr const char* kNotFromValidate = "(not written by `vcloe validate --out`, or by an older vcloe? run it again)";

namespace {

json axes_json(const AxesDifference& d) {
  return {{"rms_mm", d.rms_mm}, {"rms_mrad", d.rms_mrad}, {"max_mm", d.max_mm}, {"max_mrad", d.max_mrad}};
}

AxesDifference read_axes_difference(const Node& n) {
  return {n["rms_mm"].fixed<3>(true), n["rms_mrad"].fixed<3>(true), n["max_mm"].fixed<3>(true),
          n["max_mrad"].fixed<3>(true)};
}

ParameterVariation read_variation(const Node& p) {
  ParameterVariation v{p["name"].string(), p["unit"].string(), p["model"].number(), p["mean"].number(),
                       p["std"].non_negative(), p["rel_std"].non_negative(), 0, p["runs"].integer(1, 1 << 30)};
  v.identified_runs = p["identified_runs"].integer(0, v.runs);
  return v;
}

// The ratios are derived (validate.cpp): a row's worst_ratio is the largest model RMS over the
// noise floor's RMS on the same axis, the file's the largest row's. A floor of 0 on an axis is no
// measurement (measured - twin(truth) under camera noise): refused, as the ratio over it would be.
void check_ratios(const ValidationResult& r, const Node& t, const Node& root) {
  static const char* const kAxis[6] = {"rms_mm[0]", "rms_mm[1]", "rms_mm[2]", "rms_mrad[0]", "rms_mrad[1]", "rms_mrad[2]"};
  double worst = 0;
  for (std::size_t i = 0; i < r.trajectories.size(); ++i) {
    const ValidationTrajectory& row = r.trajectories[i];
    const auto a = row.model.rms(), f = row.noise_floor.rms();
    double ratio = 0;
    for (std::size_t c = 0; c < 6; ++c) {
      if (!(f[c] > 0))
        t[i]["noise_floor"][c < 3 ? "rms_mm" : "rms_mrad"][c % 3].refuse(
            std::string("a positive RMS (the noise floor ") + kAxis[c] + " is measured - twin(truth) under camera noise)");
      ratio = std::max(ratio, a[c] / f[c]);
    }
    if (!detail::same_figure(row.worst_ratio, ratio))
      t[i]["worst_ratio"].refuse("the largest model RMS / noise floor RMS over the axes, " + exact_number(ratio));
    worst = std::max(worst, row.worst_ratio);
  }
  if (!detail::same_figure(r.worst_ratio, worst))
    root["worst_ratio"].refuse("the largest worst_ratio of the trajectories, " + exact_number(worst));
}

// A maximum over a trajectory is at least its RMS (validate.cpp: both of the same difference), per
// axis of the model's row and of the noise floor's.
void check_max_at_least_rms(const ValidationResult& r, const Node& t) {
  for (std::size_t i = 0; i < r.trajectories.size(); ++i)
    for (const char* which : {"model", "noise_floor"}) {
      const AxesDifference& d = std::string(which) == "model" ? r.trajectories[i].model : r.trajectories[i].noise_floor;
      for (std::size_t c = 0; c < 3; ++c) {
        if (!(d.max_mm[c] >= d.rms_mm[c]))
          t[i][which]["max_mm"][c].refuse("at least rms_mm[" + std::to_string(c) + "] = " + exact_number(d.rms_mm[c]) + " (a maximum is not below the RMS)");
        if (!(d.max_mrad[c] >= d.rms_mrad[c]))
          t[i][which]["max_mrad"][c].refuse("at least rms_mrad[" + std::to_string(c) + "] = " + exact_number(d.rms_mrad[c]) + " (a maximum is not below the RMS)");
      }
    }
}

// The re-identifications' table (validate.cpp, variation): the 70 parameters of the registry in
// its order and units, rel_std = std / |mean| (0 at a mean of 0), every row over the same runs.
void check_variation(const std::vector<ParameterVariation>& v, const Node& n) {
  const auto& reg = sim::parameter_registry();
  n.array_size(reg.size());
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (v[k].name != reg[k].name) n[k]["name"].refuse("\"" + reg[k].name + "\" (parameter " + std::to_string(k) + " of the registry)");
    if (v[k].unit != reg[k].unit) n[k]["unit"].refuse("\"" + reg[k].unit + "\", the SI unit of " + reg[k].name);
    const double rel = std::abs(v[k].mean) > 0 ? v[k].std / std::abs(v[k].mean) : 0.0;
    if (!detail::same_figure(v[k].rel_std, rel)) n[k]["rel_std"].refuse("std / |mean| = " + exact_number(rel));
    if (v[k].runs != v.front().runs) n[k]["runs"].refuse(std::to_string(v.front().runs) + ", the runs of every parameter (parameter_variation[0].runs)");
  }
}

// validate draws trajectory i from the first seed + i (`validate --seed`: "then +1, +2, ...";
// docs/identification.md): two rows of one seed, or seeds out of that order, are no validation's
// (probe 24's C: a row's seed edited to the first's was drawn as a second trajectory).
void check_seeds(const ValidationResult& r, const Node& t) {
  const std::uint64_t first = r.trajectories.front().seed;
  for (std::size_t i = 1; i < r.trajectories.size(); ++i) {
    const std::uint64_t seed = r.trajectories[i].seed;
    if (seed >= first && seed - first == i) continue;
    const std::string expected =  // (seeds are read up to 2^64 - 2)
        first <= UINT64_MAX - 1 - i ? std::to_string(first + i) : std::to_string(first) + " + " + std::to_string(i);
    t[i]["seed"].refuse(expected + " (the first trajectory's seed " + std::to_string(first) + " + " + std::to_string(i) +
                        ": validate draws trajectory i from seed + i, each seed once)");
  }
}

}  // namespace

json to_json(const ValidationResult& r) {
  json j;
  j["model"] = r.model;
  if (!r.model_sha256.empty()) j["model_sha256"] = r.model_sha256;
  j["truth"] = r.truth;
  j["seconds"] = r.seconds;
  json t = json::array();
  for (const auto& row : r.trajectories)
    t.push_back({{"seed", row.seed}, {"model", axes_json(row.model)}, {"noise_floor", axes_json(row.noise_floor)},
                 {"worst_ratio", row.worst_ratio}});
  j["trajectories"] = t;
  j["worst_ratio"] = r.worst_ratio;
  if (r.parameter_variation) {
    json variation = json::array();
    for (const auto& v : *r.parameter_variation)
      variation.push_back({{"name", v.name}, {"unit", v.unit}, {"model", v.model}, {"mean", v.mean}, {"std", v.std},
                           {"rel_std", v.rel_std}, {"identified_runs", v.identified_runs}, {"runs", v.runs}});
    j["parameter_variation"] = variation;
  }
  return j;
}

ValidationResult validation_from_json(const json& document, const std::string& file) {
  const Node root = Node::root(document, file, kNotFromValidate);
  ValidationResult r;
  const Node t = root.need("trajectories");
  r.worst_ratio = root.need("worst_ratio").non_negative();
  r.model = root.need("model").string();
  if (const Node h = root["model_sha256"]; !h.is_null()) {
    r.model_sha256 = h.sha256();  // lower case, as every hash read
  }
  r.truth = root.need("truth").string();
  r.seconds = root.need("seconds").non_negative();
  for (std::size_t i = 0; i < t.array_size(); ++i)
    r.trajectories.push_back({t[i]["seed"].unsigned_integer(), read_axes_difference(t[i]["model"]), read_axes_difference(t[i]["noise_floor"]),
                              t[i]["worst_ratio"].non_negative()});
  if (t.array_size() == 0) t.refuse("one entry per trajectory");
  check_seeds(r, t);
  check_max_at_least_rms(r, t);
  check_ratios(r, t, root);
  if (const Node v = root["parameter_variation"]; !v.is_null()) {
    r.parameter_variation.emplace();
    for (std::size_t i = 0; i < v.array_size(); ++i) r.parameter_variation->push_back(read_variation(v[i]));
    check_variation(*r.parameter_variation, v);
  }
  return r;
}

ValidationResult read_validation(const std::string& file) {
  return validation_from_json(read_sealed_json_file(file, "run vcloe validate again"), file);
}

}  // namespace vcloe::report
