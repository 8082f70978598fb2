// Specification of the kinematic calibration result's one writer and one reader
// (vcloe/report/calibration.hpp): what is written reads back equal; a wrong format, a parameter
// missing, a negative sigma, an unknown unit, a truth that is not a number refused naming the
// file and the key.
#include <gtest/gtest.h>

#include <functional>

#include "../test_support.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/report/calibration.hpp"

using namespace vcloe;
using nlohmann::json;

// This file's helpers and specifications in its own namespace: the test program is compiled as
// one translation unit (tests/CMakeLists.txt).
namespace test_calibration {

namespace {

report::CalibrationReport sample(bool with_truth) {
  report::CalibrationReport c;
  c.robot = {"/rig/robot.yaml", std::string(64, 'a')};
  c.poses = {"/rig/static.csv", std::string(64, 'b')};
  if (with_truth) c.truth = FileRecord{"/rig/truth.yaml", std::string(64, 'c')}, c.camera_residual = Vec6d::Constant(1e-4);
  for (int k = 0; k < report::kCalibrationParameters; ++k) {
    // (a parameter kept as drawn stays at its start: the reader checks it)
    report::CalibrationParameter p{"p" + std::to_string(k), k % 2 ? "rad" : "m", 0.1 * k, 0.1 * k + (k % 7 ? 1e-5 : 0), 2e-6,
                                   k % 7 ? "identified" : "not identifiable: the encoder offset carries it (kept as drawn)", std::nullopt};
    if (with_truth) p.truth_in_gauge = 0.1 * k;
    c.parameters.push_back(p);
  }
  c.combinations = {{"base translation", "a common translation of the base joints is ...", 3, true},
                    {"encoder", "each crank's direction ...", 6, false},
                    {"crank angles", "each crank's angle ...", 12, true}};  // 3 + 12 + 1 unnamed: 16
  c.null_space = {16, 1, 51, {"leg 2 link_length"}, 2270};  // 72 less the combinations' 21 directions
  Vec6d noise;
  noise << 2e-5, 2e-5, 2e-5, 5e-5, 5e-5, 5e-5;
  // 30 poses of 25 frames (mean_noise = noise / 5), 51 free directions: dof 129, chi2 = 0.726^2 x 129.
  c.residual = {0.7 * noise, 0.2 * noise, noise, 0.726 * 0.726 * 129, 129, 0.726, 1.2, true,
                report::calibration_verdict(0.7 * noise, 0.2 * noise, 0.726, true)};
  c.parameters[3].sigma = 1.17e-4;  // leg 1's crank length: the largest of its kind
  c.summary = report::calibration_summary_of(c.parameters);
  c.poses_used = 30, c.iterations = 14, c.cpu_seconds = 0.02;
  return c;
}

std::string refusal(const json& document) {
  return test::error_of([&] { report::calibration_from_json(document, "c.json"); });
}

}  // namespace

TEST(CalibrationResult, WhatIsWrittenReadsBackEqual) {
  for (const bool truth : {false, true}) {
    const report::CalibrationReport c = sample(truth);
    const json j = report::to_json(c);
    EXPECT_EQ(j["format"], "vcloe-kinematic-calibration-2");
    EXPECT_EQ(j["parameters"][1].contains("truth_in_gauge"), truth);
    EXPECT_EQ(report::calibration_from_json(j, "c.json"), c);
  }
}

TEST(CalibrationResult, AnotherFormatAMissingParameterOrAValueOutOfRangeIsRefusedNamingTheKey) {
  json j = report::to_json(sample(true));
  EXPECT_EQ(refusal(j), "");
  j["format"] = "vcloe-identification-1";
  EXPECT_EQ(refusal(j), "c.json: key 'format': expected \"vcloe-kinematic-calibration-2\", got \"vcloe-identification-1\"");
  j = report::to_json(sample(true));
  j["parameters"].erase(71);
  EXPECT_EQ(refusal(j).rfind("c.json: key 'parameters': expected an array of 72", 0), 0u) << refusal(j);
  j = report::to_json(sample(true));
  j["parameters"][3]["sigma"] = -1e-6;
  EXPECT_EQ(refusal(j), "c.json: key 'parameters[3].sigma': expected a non-negative number, got -1e-06");
  j = report::to_json(sample(true));
  j["parameters"][0]["unit"] = "mm";
  EXPECT_EQ(refusal(j), "c.json: key 'parameters[0].unit': expected \"m\" or \"rad\", got \"mm\"");
  j = report::to_json(sample(true));
  j["parameters"][5]["truth_in_gauge"] = "0.5";
  EXPECT_EQ(refusal(j), "c.json: key 'parameters[5].truth_in_gauge': expected a number, got \"0.5\"");
  j = report::to_json(sample(true));
  j["null_space"]["unnamed"] = 17;
  EXPECT_EQ(refusal(j), "c.json: key 'null_space.unnamed': expected a whole number from 0 to 16, got 17");
  j = report::to_json(sample(true));
  j["inputs"]["camera_residual"] = nullptr;  // session 29: the truth's gauge needs it
  EXPECT_EQ(refusal(j).rfind("c.json: key 'inputs.camera_residual': expected the camera-to-base residual the truth's run was given", 0), 0u)
      << refusal(j);
  j = report::to_json(sample(false));
  j["inputs"]["camera_residual"] = {0, 0, 0, 0, 0, 0};
  EXPECT_EQ(refusal(j).rfind("c.json: key 'inputs.camera_residual': expected null: there is no inputs.truth", 0), 0u) << refusal(j);
  j = report::to_json(sample(true));
  j.erase("residual");
  EXPECT_EQ(refusal(j).rfind("c.json: key 'residual': missing (not written by `vcloe calibrate kinematics --result`", 0), 0u)
      << refusal(j);
}

// Probe 18, class K: a parameter's status is one of the four the fit writes (free text was drawn
// as the status), each of which reads.
// Probe 24's C (the class, in this reader): the residual's verdict is the writer's sentence of
// `adequate`; a flag edited against it (or a verdict edited) is refused at the verdict.
TEST(CalibrationResult, AVerdictThatContradictsItsAdequateFlagIsRefused) {
  const struct {
    bool adequate;
    std::string verdict;
    bool read;
  } cases[] = {
      {true, "residual at the camera noise (0.726 x): the geometric model explains the static poses", true},
      {false, report::calibration_verdict(sample(false).residual.rms, sample(false).residual.mean_noise, 0.726, false), true},
      {false, "residual at the camera noise (0.726 x): the geometric model explains the static poses", false},
      {true, "model error dominates: the residual is 3.1 x the camera noise (worst axis z, 4.2 x)", false},
      {true, "fine", false},
      {false, "", false},
  };
  for (const auto& c : cases) {
    json j = report::to_json(sample(false));
    j["residual"]["adequate"] = c.adequate;
    j["residual"]["adequate_ratio"] = c.adequate ? 1.2 : 0.5;  // the flag as the limit makes it
    j["residual"]["verdict"] = c.verdict;
    const std::string head = c.adequate ? "residual at the camera noise" : "model error dominates";
    std::string got = json(c.verdict).dump();  // as the getters cut it
    if (got.size() > 40) got = got.substr(0, 40) + "...";
    EXPECT_EQ(refusal(j), c.read ? "" : "c.json: key 'residual.verdict': expected a verdict beginning \"" + head +
                                            "…\" (adequate is " + (c.adequate ? "true" : "false") + "), got " + got)
        << c.verdict;
  }
}

// Probe 28's C and D: the verdict is the writer's whole sentence of ratio, rms and mean_noise (a
// ratio edited alone disagrees with it); the free directions are the 72 less the combinations'
// directions (and up to the fixed ones); an "identified" parameter has a sigma.
TEST(CalibrationResult, ADerivedFieldDisagreeingWithItsSourcesIsRefusedAtItsKey) {
  const struct {
    std::function<void(json&)> edit;
    std::string head;
  } cases[] = {
      {[](json& j) { j["residual"]["ratio"] = 0.1; },  // probe 28's cal-01
       "c.json: key 'residual.ratio': expected sqrt(chi2 / dof) = 0.72"},
      {[](json& j) { j["residual"]["ratio"] = 3.5, j["residual"]["chi2"] = 3.5 * 3.5 * 129; },  // probe 29: adequate left true
       "c.json: key 'residual.adequate': expected false: ratio 3.5 is above adequate_ratio 1.2, got true"},
      {[](json& j) { j["residual"]["dof"] = 130; }, "c.json: key 'residual.ratio': expected sqrt(chi2 / dof) = "},
      {[](json& j) { j["residual"]["dof"] = 130, j["residual"]["chi2"] = 0.726 * 0.726 * 130; },
       "c.json: key 'residual.dof': expected 6 x poses - null_space.free_directions = 129, got 130"},
      {[](json& j) { for (int k = 0; k < 6; ++k) j["residual"]["mean_noise"][k] = j["residual"]["mean_noise"][k].get<double>() * 100; },
       "c.json: key 'residual.mean_noise[0]': expected frame_noise x sqrt(mean 1/frames over the poses), one factor in (0, 1]"},
      {[](json& j) { j["residual"]["mean_noise"][4] = 2e-5; },  // probe 29: one axis scaled
       "c.json: key 'residual.mean_noise[4]': expected frame_noise x sqrt(mean 1/frames over the poses)"},
      {[](json& j) { j["residual"]["verdict"] = "residual at the camera noise (0.5 x): the geometric model explains the static poses"; },
       "c.json: key 'residual.verdict': expected the sentence of residual.ratio 0.726"},
      {[](json& j) { j["null_space"]["free_directions"] = 3; },
       "c.json: key 'null_space.free_directions': expected 51: the 72 parameters less the combinations' 21 directions, got 3"},
      {[](json& j) { j["null_space"]["free_directions"] = 56; }, "c.json: key 'null_space.free_directions': expected 51: "},
      {[](json& j) {
         for (int k : {2, 4}) j["parameters"][k]["status"] = "fixed", j["parameters"][k]["value"] = j["parameters"][k]["start"];
         j["null_space"]["free_directions"] = 48, j["residual"]["dof"] = 180 - 48, j["residual"]["chi2"] = 0.726 * 0.726 * (180 - 48);
       },
       "c.json: key 'null_space.free_directions': expected from 49 to 51: the 72 parameters less the combinations' 21 directions and "
       "up to 2 fixed, got 48"},
      {[](json& j) { j["parameters"][7]["value"] = 0.71; },  // probe 29: "kept as drawn", moved 10 mm
       "c.json: key 'parameters[7].value': expected its start, 0.7000000000000001: the status \"not identifiable: the encoder "
       "offset carries it (kept as drawn)\" is of a parameter the fit kept where it started, got 0.71"},
      {[](json& j) { j["parameters"][1]["sigma"] = 0; },
       "c.json: key 'parameters[1].sigma': expected a positive sigma: the parameter's status is \"identified\", got 0"},
  };
  for (const auto& c : cases) {
    json j = report::to_json(sample(false));
    ASSERT_EQ(refusal(j), "");
    c.edit(j);
    EXPECT_EQ(refusal(j).rfind(c.head, 0), 0u) << refusal(j);
  }
  json fixed = report::to_json(sample(false));  // fixed parameters inside a combination's span: fewer removed
  for (int k : {2, 4}) fixed["parameters"][k]["status"] = "fixed", fixed["parameters"][k]["value"] = fixed["parameters"][k]["start"];
  for (int free : {49, 50, 51}) {
    fixed["null_space"]["free_directions"] = free;
    fixed["residual"]["dof"] = 180 - free, fixed["residual"]["chi2"] = 0.726 * 0.726 * (180 - free);
    EXPECT_EQ(refusal(fixed), "") << free;
  }
}

TEST(CalibrationResult, AStatusNotOfTheFitsSetIsRefusedNamingTheKey) {
  json j = report::to_json(sample(false));
  j["parameters"][2]["value"] = j["parameters"][2]["start"];  // (kept where it started: every status may say so)
  for (const char* s : {"identified", "not identified", "fixed", "not identifiable: the encoder offset carries it (kept as drawn)"}) {
    j["parameters"][2]["status"] = s;
    EXPECT_EQ(refusal(j), "") << s;
  }
  for (const char* s : {"great", "Identified", "gauge: kept as drawn"}) {
    j["parameters"][2]["status"] = s;
    EXPECT_EQ(refusal(j).rfind("c.json: key 'parameters[2].status': expected \"identified\", ", 0), 0u) << refusal(j);
  }
}

// Probe 27's C (k6-66, k6-67): the combinations found in the null space and the unnamed directions
// make up its dimension; the summary is the largest sigma (and |error|) per kind of the parameters.
TEST(CalibrationResult, ACombinationsOrSummaryNotOfTheRestOfTheFileIsRefusedNamingTheKey) {
  const report::CalibrationReport c = sample(true);
  auto edited = [&](auto edit) {
    json j = report::to_json(c);
    edit(j);
    return refusal(j);
  };
  EXPECT_EQ(c.summary[3].name, "crank lengths");  // (by name, the file's order)
  EXPECT_EQ(c.summary[3].sigma, 1.17e-4);
  const std::string sum = "c.json: key 'combinations': expected combinations in the null space whose dimensions sum to "
                          "null_space.dimension - unnamed = 15 (dimension 16, unnamed 1); theirs sum to ";
  EXPECT_EQ(edited([](json& j) { j["combinations"] = json::array(); }), sum + "0, got []");
  EXPECT_EQ(edited([](json& j) { j["combinations"][2]["dimension"] = 11; }).rfind(sum + "14, got [", 0), 0u);
  EXPECT_EQ(edited([](json& j) { j["combinations"][1]["in_null_space"] = true; }).rfind(sum + "21, got [", 0), 0u);
  EXPECT_EQ(edited([](json& j) { j["null_space"]["unnamed_largest"] = json::array(); }),
            "c.json: key 'null_space.unnamed_largest': expected one entry per unnamed direction (1), got []");
  EXPECT_EQ(edited([](json& j) { j["summary"]["crank lengths"]["sigma"] = 1.234e300; }),
            "c.json: key 'summary.crank lengths.sigma': expected the largest sigma of the crank lengths in parameters, "
            "0.000117, got 1.234e+300");
  EXPECT_EQ(edited([](json& j) { j["parameters"][13]["sigma"] = 2e-4; }),  // leg 2's crank length
            "c.json: key 'summary.crank lengths.sigma': expected the largest sigma of the crank lengths in parameters, "
            "2e-04, got 0.000117");
  const std::string error = edited([](json& j) { j["summary"]["link lengths"]["error"] = 0.5; });
  EXPECT_EQ(error.rfind("c.json: key 'summary.link lengths.error': expected the largest |value - truth_in_gauge| of the link "
                        "lengths in parameters, ", 0), 0u) << error;
  EXPECT_EQ(edited([](json& j) { j["summary"]["link lengths"].erase("error"); }).rfind("c.json: key 'summary.link lengths.error': "
                                                                                     "expected the largest |value", 0), 0u);
  EXPECT_EQ(edited([](json& j) { j["summary"]["encoder offsets"]["unit"] = "m"; }),
            "c.json: key 'summary.encoder offsets.unit': expected \"rad\", the unit of the encoder offsets, got \"m\"");
  EXPECT_EQ(edited([](json& j) { j["summary"].erase("link lengths"); }).rfind("c.json: key 'summary': expected the 9 kinds ", 0), 0u);
  EXPECT_EQ(edited([](json& j) { j["summary"]["crank angles"] = j["summary"]["link lengths"]; j["summary"].erase("link lengths"); })
                .rfind("c.json: key 'summary': expected the 9 kinds ", 0), 0u);
  json no_truth = report::to_json(sample(false));
  no_truth["summary"]["crank lengths"]["error"] = 0.0;
  EXPECT_EQ(refusal(no_truth), "c.json: key 'summary.crank lengths.error': expected nothing: the parameters have no "
                               "truth_in_gauge, got 0.0");
}

}  // namespace test_calibration
