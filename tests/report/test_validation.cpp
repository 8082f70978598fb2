// Specification of the validation result's one writer and one reader
// (vcloe/report/validation.hpp): Table 4 and Table 5 form read back equal; a wrong type, a short
// row, a negative RMS refused naming the file and the key.
#include <gtest/gtest.h>

#include <functional>

#include "../test_support.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/report/validation.hpp"
#include "vcloe/sim/parameters.hpp"

using namespace vcloe;
using nlohmann::json;

// This file's helpers and specifications in its own namespace: the test program is compiled as
// one translation unit (tests/CMakeLists.txt).
namespace test_validation {

namespace {

report::ValidationResult sample(bool reidentified) {
  report::ValidationResult v{"model.yaml", "truth.yaml", 12.5, {}, 1.1, std::nullopt, std::string(64, 'a')};
  const report::AxesDifference a{{0.02, 0.03, 0.02}, {0.1, 0.12, 0.06}, {0.07, 0.09, 0.06}, {0.4, 0.5, 0.2}};
  report::AxesDifference b = a;  // 1.1 times the floor on the second axis of position
  b.rms_mm[1] *= 1.1;
  v.trajectories = {{1001, a, a, 1.0}, {1002, b, a, b.rms_mm[1] / a.rms_mm[1]}};
  v.worst_ratio = v.trajectories[1].worst_ratio;
  if (reidentified) {  // the 70 of the registry, as validate writes them: rel_std = std / |mean|
    v.parameter_variation.emplace();
    for (const sim::ParameterInfo& p : sim::parameter_registry())
      v.parameter_variation->push_back({p.name, p.unit, 25.5, 25.4, 0.2, 0.2 / 25.4, 2, 2});
  }
  return v;
}

std::string refusal(const json& document) {
  return test::error_of([&] { report::validation_from_json(document, "v.json"); });
}

}  // namespace

TEST(ValidationResult, WhatIsWrittenReadsBackEqual) {
  for (const bool reidentified : {false, true}) {
    const report::ValidationResult v = sample(reidentified);
    const json j = report::to_json(v);
    EXPECT_EQ(j.contains("parameter_variation"), reidentified);
    EXPECT_EQ(report::validation_from_json(j, "v.json"), v);
  }
}

TEST(ValidationResult, AWrongTypeAShortRowOrANegativeRmsIsRefusedNamingTheKey) {
  json j = report::to_json(sample(true));
  EXPECT_EQ(refusal(j), "");
  j["worst_ratio"] = "1.1";
  EXPECT_EQ(refusal(j), "v.json: key 'worst_ratio': expected a non-negative number, got \"1.1\"");
  j = report::to_json(sample(true));
  j["trajectories"][1]["noise_floor"]["rms_mrad"] = {0.1, 0.12};
  EXPECT_EQ(refusal(j), "v.json: key 'trajectories[1].noise_floor.rms_mrad': expected an array of 3, got [0.1,0.12]");
  j = report::to_json(sample(true));
  j["trajectories"][0]["model"]["rms_mm"][0] = -0.02;
  EXPECT_EQ(refusal(j), "v.json: key 'trajectories[0].model.rms_mm[0]': expected a non-negative number, got -0.02");
  j = report::to_json(sample(true));
  j["parameter_variation"][0]["identified_runs"] = 3;
  EXPECT_EQ(refusal(j), "v.json: key 'parameter_variation[0].identified_runs': expected a whole number from 0 to 2, got 3");
  j = report::to_json(sample(true));
  j.erase("trajectories");
  EXPECT_EQ(refusal(j).rfind("v.json: key 'trajectories': missing (not written by `vcloe validate --out`", 0), 0u) << refusal(j);
}

// Probe 18, class K: the ratios are derived from the rows (validate.cpp); a file-level worst ratio
// below a row's, a row's ratio not its RMS over its floor, and a floor of 0 were drawn as given.
TEST(ValidationResult, ARatioNotOfItsRowsOrAZeroFloorIsRefusedNamingTheKey) {
  json j = report::to_json(sample(false));
  j["worst_ratio"] = 0.5;
  EXPECT_EQ(refusal(j), "v.json: key 'worst_ratio': expected the largest worst_ratio of the trajectories, 1.1, got 0.5");
  j = report::to_json(sample(false));
  j["trajectories"][1]["worst_ratio"] = 0.5;
  EXPECT_EQ(refusal(j).rfind("v.json: key 'trajectories[1].worst_ratio': expected the largest model RMS / noise floor RMS over "
                             "the axes, 1.1", 0), 0u) << refusal(j);
  j = report::to_json(sample(false));
  j["trajectories"][0]["noise_floor"]["rms_mm"] = {0, 0, 0};
  EXPECT_EQ(refusal(j).rfind("v.json: key 'trajectories[0].noise_floor.rms_mm[0]': expected a positive RMS", 0), 0u) << refusal(j);
  j = report::to_json(sample(false));
  j["trajectories"][1]["noise_floor"]["rms_mrad"][2] = 0.0;
  EXPECT_EQ(refusal(j).rfind("v.json: key 'trajectories[1].noise_floor.rms_mrad[2]': expected a positive RMS", 0), 0u) << refusal(j);
}

// Probe 24's C: trajectory 2's seed edited to trajectory 1's was drawn as a second trajectory of
// one seed. validate draws trajectory i from the first seed + i (`validate --seed`): any other
// seed is refused at its key; three rows from the first seed on are read.
TEST(ValidationResult, SeedsOtherThanTheFirstPlusTheRowsIndexAreRefusedAtTheirKey) {
  const std::uint64_t top = 18446744073709551614ull;  // 2^64 - 2, the largest seed read
  const struct {
    std::vector<std::uint64_t> seeds;
    std::string refusal;  // the start of it; empty: read
  } cases[] = {
      {{1001, 1001}, "v.json: key 'trajectories[1].seed': expected 1002 (the first trajectory's seed 1001 + 1: "},
      {{1001, 1000}, "v.json: key 'trajectories[1].seed': expected 1002 (the first"},
      {{1001, 1003}, "v.json: key 'trajectories[1].seed': expected 1002 (the first"},
      {{1001, 1002, 1002}, "v.json: key 'trajectories[2].seed': expected 1003 (the first trajectory's seed 1001 + 2: "},
      {{1001, 1002, 1001}, "v.json: key 'trajectories[2].seed': expected 1003"},
      {{top, 0}, "v.json: key 'trajectories[1].seed': expected 18446744073709551614 + 1 (the first"},
      {{1001, 1002, 1003}, ""},
      {{0, 1}, ""},
      {{top - 1, top}, ""},
  };
  for (const auto& c : cases) {
    json j = report::to_json(sample(false));
    const json row = j["trajectories"][1];
    j["trajectories"] = json::array();
    for (const std::uint64_t seed : c.seeds) {
      j["trajectories"].push_back(row);
      j["trajectories"].back()["seed"] = seed;
    }
    const std::string e = refusal(j);
    if (c.refusal.empty()) EXPECT_EQ(e, "") << c.seeds.size();
    else EXPECT_EQ(e.rfind(c.refusal, 0), 0u) << e;
  }
}

// Probe 28's C: a maximum below its RMS, a rel_std not std / |mean|, a row of another parameter
// or over other runs: each refused at its key (the figures are derived, validate.cpp).
TEST(ValidationResult, ADerivedFigureDisagreeingWithItsSourcesIsRefusedAtItsKey) {
  const struct {
    std::function<void(json&)> edit;
    std::string head;
  } cases[] = {
      {[](json& j) { j["trajectories"][0]["model"]["max_mm"][0] = 0.001; },
       "v.json: key 'trajectories[0].model.max_mm[0]': expected at least rms_mm[0] = 0.02 (a maximum is not below the RMS), got 0.001"},
      {[](json& j) { j["trajectories"][1]["noise_floor"]["max_mrad"][2] = 0.05; },
       "v.json: key 'trajectories[1].noise_floor.max_mrad[2]': expected at least rms_mrad[2] = 0.06"},
      {[](json& j) { j["parameter_variation"][3]["rel_std"] = 0.5; }, "v.json: key 'parameter_variation[3].rel_std': expected std / |mean| = 0.00787"},
      {[](json& j) { j["parameter_variation"][1]["name"] = "m_p"; }, "v.json: key 'parameter_variation[1].name': expected \""},
      {[](json& j) { j["parameter_variation"][5]["runs"] = 3; }, "v.json: key 'parameter_variation[5].runs': expected 2, the runs of every parameter"},
      {[](json& j) { j["parameter_variation"].erase(69); }, "v.json: key 'parameter_variation': expected an array of 70"},
  };
  for (const auto& c : cases) {
    json j = report::to_json(sample(true));
    ASSERT_EQ(refusal(j), "");
    c.edit(j);
    EXPECT_EQ(refusal(j).rfind(c.head, 0), 0u) << refusal(j);
  }
}

}  // namespace test_validation
