#pragma once
// The validation result — `vcloe validate --out FILE` / `--json`, read by `vcloe report` and
// `vcloe study` (docs/identification.md, "Reports") — as a typed value with ONE writer and ONE
// reader: Table 4 form per fresh trajectory (model and noise floor) and, re-identified, Table 5
// form per parameter (Li et al. 2019, §4). Reader errors name the file and the key.
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "vcloe/core/trace_compare.hpp"

namespace vcloe::report {

struct AxesDifference {  // per-axis RMS and max, mm and mrad (>= 0)
  std::array<double, 3> rms_mm{}, rms_mrad{}, max_mm{}, max_mrad{};
  static AxesDifference of(const TraceDifference& d) { return {d.rms_mm, d.rms_mrad, d.max_mm, d.max_mrad}; }
  std::array<double, 6> rms() const { return {rms_mm[0], rms_mm[1], rms_mm[2], rms_mrad[0], rms_mrad[1], rms_mrad[2]}; }
  bool operator==(const AxesDifference&) const = default;
};

struct ValidationTrajectory {
  std::uint64_t seed = 0;
  AxesDifference model, noise_floor;  // measured - twin(model), measured - twin(truth)
  double worst_ratio = 0;             // max over axes of model RMS / floor RMS
  bool operator==(const ValidationTrajectory&) const = default;
};

struct ParameterVariation {  // one parameter over the re-identifications (Table 5 form)
  std::string name, unit;
  double model = 0, mean = 0, std = 0, rel_std = 0;
  int identified_runs = 0, runs = 0;
  bool operator==(const ParameterVariation&) const = default;
};

struct ValidationResult {
  std::string model, truth;  // the files
  double seconds = 0;
  std::vector<ValidationTrajectory> trajectories;
  double worst_ratio = 0;  // over the trajectories
  std::optional<std::vector<ParameterVariation>> parameter_variation;  // with --reidentify
  // SHA-256 of the model's bytes validated ("model_sha256"; empty in files written before it was
  // recorded): `vcloe report` compares it with the identification report's model.
  std::string model_sha256;
  bool operator==(const ValidationResult&) const = default;
};

nlohmann::json to_json(const ValidationResult& result);
ValidationResult validation_from_json(const nlohmann::json& document, const std::string& file);
ValidationResult read_validation(const std::string& file);

}  // namespace vcloe::report
