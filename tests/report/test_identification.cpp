// Specification of the identification report's one writer and one reader
// (vcloe/report/identification.hpp, docs/identification.md "Reports"): what is written reads
// back equal; a wrong type, a short row, a negative sigma, a missing key, an unbounded interval
// are each refused or read as documented, naming the file and the key in one line.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>

#include <algorithm>
#include <array>
#include <cmath>

#include "../test_support.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/oe_ident/adequacy.hpp"
#include "vcloe/oe_ident/convergence.hpp"
#include "vcloe/oe_ident/problem.hpp"
#include "vcloe/report/identification.hpp"
#include "vcloe/sim/parameters.hpp"

using namespace vcloe;
using nlohmann::json;

namespace {

std::string hash(char digit) { return std::string(64, digit); }  // a SHA-256 as the reader expects

// The 95 % interval the fit writes (docs/identification.md): value * exp(+-1.96 rel_sigma).
std::array<double, 2> interval_of(double value, double rel_sigma) {
  return {value * std::exp(-1.96 * rel_sigma), value * std::exp(1.96 * rel_sigma)};
}

// A first moment's (signed, 0 when symmetric): value +- 1.96 sigma.
std::array<double, 2> gaussian_interval_of(double value, double sigma) { return {value - 1.96 * sigma, value + 1.96 * sigma}; }

// The correlation matrix over the parameters with a sigma, in registry order (as identification.cpp
// writes it): 1 on the diagonal, one pair at -0.25.
void set_correlation(report::IdentificationReport& r) {
  r.correlation.parameters.clear();
  for (const auto& p : r.parameters)
    if (p.sigma > 0) r.correlation.parameters.push_back(p.name);
  const std::size_t n = r.correlation.parameters.size();
  r.correlation.matrix.assign(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i) r.correlation.matrix[i][i] = 1.0;
  r.correlation.matrix[0][1] = r.correlation.matrix[1][0] = -0.25;
}

// One singular value per coordinate of the fit, largest first; with `null_space`, the last below the
// rank cut (1e-7 x the largest).
void set_singular_values(report::IdentificationReport& r, int coordinates, bool null_space = false) {
  r.singular_values.clear();
  for (int c = 0; c < coordinates; ++c) r.singular_values.push_back(10.0 / (c + 1));
  if (null_space) r.singular_values.back() = 1e-9;
}

// The adequacy entry of per-experiment (rms_over_noise, lag1) as identify writes it: each channel's
// share max(1 - 1/ratio^2, lag1), the worst and mean, chi2, verdict and sentence (oe_ident::adequacy_of).
report::AdequacyEntry adequacy_of(const std::vector<std::array<double, 6>>& rms, const std::vector<std::array<double, 6>>& lag1) {
  std::vector<std::array<oe_ident::ChannelResidual, 6>> channels;
  for (std::size_t e = 0; e < rms.size(); ++e) {
    channels.emplace_back();
    for (std::size_t c = 0; c < 6; ++c) channels.back()[c] = {rms[e][c], lag1[e][c]};
  }
  const oe_ident::Adequacy a = oe_ident::adequacy_of(channels);
  report::AdequacyEntry out{oe_ident::Adequacy::name(a.verdict), a.summary(), a.worst_channel, a.worst_share, a.mean_share,
                            a.chi2_per_dof, a.sigma_scale(), {}};
  for (const auto& e : channels) {
    out.experiments.emplace_back();
    for (std::size_t c = 0; c < 6; ++c)
      out.experiments.back().rms_over_noise[c] = e[c].rms_over_noise, out.experiments.back().lag1[c] = e[c].lag1,
      out.experiments.back().model_share[c] = e[c].model_share();
  }
  return out;
}

report::IdentificationReport sample() {
  report::IdentificationReport r;
  r.before_rms_all = {{0.467, 0.254, 0.117, 2.75, 4.78, 0.76}, {0.5, 0.3, 0.1, 2.5, 4.5, 0.7}};
  r.after_rms_all = {{0.0228, 0.0218, 0.0224, 0.101, 0.114, 0.063}, {0.023, 0.022, 0.022, 0.1, 0.11, 0.06}};
  const auto& reg = sim::parameter_registry();
  for (std::size_t k = 0; k < reg.size(); ++k) {
    // (a parameter fixed before the fit keeps its prior unless moved to consistency)
    report::ParameterEntry p{reg[k].name, reg[k].unit, 1.0 + k, 1.0 + k, 0, 0, 0, std::nullopt, 0, false, false, "fixed"};
    if (k % 3 == 0) {
      p.value = 1.1 + k;
      p.sigma = 0.01 * (k + 1);
      p.rel_sigma = p.sigma / p.value;
      p.sigma_camera = p.sigma / 2;
      const bool first_moment = reg[k].kind == sim::ParameterKind::FirstMoment;  // |value| above m_p x 1 mm here
      p.interval95 = first_moment ? gaussian_interval_of(p.value, p.sigma) : interval_of(p.value, p.rel_sigma);
      p.prior_pull = 0.25;
      p.identified = k % 2 == 0;
      p.flagged = !p.identified;
      p.status = p.identified ? "identified" : "poorly determined (relative sigma above the flag)";
    }
    r.parameters.push_back(p);
  }
  r.identified_count = 12;
  r.latency = {true, 1.4e-3, 2.1e-5, 1.2e-5, -5e-3, 5e-3, 0.02, "fitted"};
  r.anchor = "payload experiment";
  r.iterations = 36;
  r.seconds = 27.1;
  r.cpu_seconds = 31.4;
  r.start = {true, 0.15, {"lp", "masses", "common scale"}, {0.63, 1.59, 1.0}, 3.2e7, 2.1e5, 97, 6.2,
             {0.0, -4e-3, -2e-3, 2e-3, 4e-3}, {5534, 5554, 5515, 3396, 3398}, 1.753};
  // Stuck (once restarted): end_over_noise sqrt(end_cost / noise_cost), removed_share (end - second) / (end - noise).
  oe_ident::ConvergenceCheck k;
  k.verdict = oe_ident::Convergence::Stuck, k.end_cost = 1e7, k.noise_cost = 1.2e4, k.second_start_cost = 4e6, k.escapes = 1;
  k.end_over_noise = std::sqrt(1e7 / 1.2e4), k.removed_share = (1e7 - 4e6) / (1e7 - 1.2e4);
  r.convergence = {"stuck", k.summary(), k.end_over_noise, 1e7, 1.2e4, 4e6, k.removed_share, 1, 9.5};
  r.jacobian_cost_ratio = 5.8;
  r.rejected_steps = 2;
  r.failed_simulations = 1;
  r.adequacy = adequacy_of({{1, 1, 1, 1.2, 1.1, 1}, {1, 1, 1, 1.3, 1.1, 1}}, {{0.1, 0, -0.1, 0.5, 0.4, 0}, {0.2, 0, 0, 0.6, 0.4, 0.1}});
  set_correlation(r);
  set_singular_values(r, 25);  // 24 fitted parameters and the latency offset
  r.rank_tolerance = 1e-7;
  r.consistency = {};
  r.parameters[7].value = 8.5;  // Iz_w1 (fixed) moved
  r.moved_to_consistency = {"Iz_w1 8 -> 8.5 kg*m^2 (not determined by the poses; moved to obey the triangle inequalities)"};
  r.termination = std::string(oe_ident::kStuckTermination) + "Function tolerance reached.)";
  r.noise_sigma = {2e-5, 2e-5, 2e-5, 5e-5, 5e-5, 5e-5};
  r.after_over_noise = 0.114e-3 / 5e-5;  // beta of experiment 1
  r.inputs = {{"/r/robot.yaml", hash('a')}, {"/r/m.csv", hash('b')}, {"/r/ref.yaml", hash('c')}, {"/r/model.yaml", hash('d')},
              report::FileEntry{"/r/mp.csv", hash('e')}, std::nullopt, report::FileEntry{"/r/identify.yaml", hash('f')}};
  return r;
}

// The reader's complaint about `document`, or "" if it reads.
std::string refusal(const json& document) {
  return test::error_of([&] { report::identification_from_json(document, "m.report.json"); });
}

}  // namespace

TEST(IdentificationReport, WhatIsWrittenReadsBackEqual) {
  const report::IdentificationReport r = sample();
  const json j = report::to_json(r);
  EXPECT_EQ(report::identification_from_json(j, "m.report.json"), r);
  // The documented form (docs/identification.md): experiment 1's rows, null for what is not given.
  EXPECT_EQ(j["after_rms"]["mrad"][1].get<double>(), 0.114);
  EXPECT_TRUE(j["inputs"]["experiment"].is_null());
  EXPECT_TRUE(j["parameters"][1]["interval95"].is_null());
  EXPECT_EQ(j["adequacy"]["experiments"][0]["lag1"].size(), 6u);
  report::IdentificationReport changed = r;
  changed.parameters[4].status = "not excited (no effect on the pose trace)";
  EXPECT_NE(report::identification_from_json(report::to_json(changed), "m.report.json"), r);
}

// The latency offset's starts (docs/identification.md, "Several starts of the offset"): each
// start's first-horizon cost and the one the fit went on from, in words.
TEST(IdentificationReport, PrintsEachLatencyStartsCostAndTheOneTheFitWentOnFrom) {
  std::ostringstream out;
  report::print_identification(sample(), out);
  EXPECT_NE(out.str().find("latency offset: the first horizon fitted from 5 offsets, cost 5534 from 0 ms, 5554 from -4 ms, "
                           "5515 from -2 ms, 3396 from 2 ms, 3398 from 4 ms; went on from 2 ms (from 0 ms: 1.753 x the camera noise)\n"),
            std::string::npos) << out.str();
  // Below latency.starts_above_noise the first start alone: the figure, and that no other ran.
  report::IdentificationReport one = sample();
  one.start.latency_starts = {0.0}, one.start.latency_costs = {3006}, one.start.latency_over_noise = 1.292;
  std::ostringstream alone;
  report::print_identification(one, alone);
  EXPECT_NE(alone.str().find("latency offset: the first horizon from 0 ms ended at 1.292 x the camera noise, within "
                             "latency.starts_above_noise: no other start\n"),
            std::string::npos) << alone.str();
}

TEST(IdentificationReport, AnUnboundedIntervalIsWrittenNullAndReadAsInfinity) {
  report::IdentificationReport r = sample();
  r.parameters[3].sigma = 400 * r.parameters[3].value;  // exp(1.96 * 400) overflows
  r.parameters[3].rel_sigma = r.parameters[3].sigma / r.parameters[3].value;
  r.parameters[3].interval95 = interval_of(r.parameters[3].value, r.parameters[3].rel_sigma);
  ASSERT_TRUE(std::isinf((*r.parameters[3].interval95)[1]));
  const json j = report::to_json(r);
  EXPECT_TRUE(j["parameters"][3]["interval95"][1].is_null());
  EXPECT_EQ(report::identification_from_json(j, "m.report.json"), r);
}

TEST(IdentificationReport, AWrongTypeIsRefusedNamingTheFileAndTheKey) {
  json j = report::to_json(sample());
  EXPECT_EQ(refusal(j), "");
  j["iterations"] = "36";
  EXPECT_EQ(refusal(j), "m.report.json: key 'iterations': expected a whole number from 0 to 1073741824, got \"36\"");
  j = report::to_json(sample());
  j["parameters"][0]["value"] = "nan";
  EXPECT_EQ(refusal(j), "m.report.json: key 'parameters[0].value': expected a number, got \"nan\"");
  j = report::to_json(sample());
  j["parameters"][2]["identified"] = 1;
  EXPECT_EQ(refusal(j), "m.report.json: key 'parameters[2].identified': expected true or false, got 1");
}

TEST(IdentificationReport, ATooShortRmsRowIsRefusedNamingTheKey) {
  json j = report::to_json(sample());
  j["after_rms_all"][1]["mrad"] = {0.1, 0.11};
  EXPECT_EQ(refusal(j), "m.report.json: key 'after_rms_all[1].mrad': expected an array of 3, got [0.1,0.11]");
  j = report::to_json(sample());
  j["before_rms_all"].erase(1);  // one experiment before, two after
  EXPECT_EQ(refusal(j).rfind("m.report.json: key 'after_rms_all': expected as many experiments as before_rms_all (1)", 0), 0u)
      << refusal(j);
}

TEST(IdentificationReport, ANegativeSigmaIsRefusedNamingTheKey) {
  json j = report::to_json(sample());
  j["parameters"][6]["sigma"] = -0.07;
  EXPECT_EQ(refusal(j), "m.report.json: key 'parameters[6].sigma': expected a non-negative number, got -0.07");
  j = report::to_json(sample());
  j["singular_values"][2] = -1e-9;
  EXPECT_EQ(refusal(j), "m.report.json: key 'singular_values[2]': expected a non-negative number, got -1e-09");
}

TEST(IdentificationReport, AMissingKeyOrParameterIsRefusedAsWrittenByAnotherProgram) {
  json j = report::to_json(sample());
  j.erase("seconds");
  EXPECT_EQ(refusal(j).rfind("m.report.json: key 'seconds': missing (not written by `vcloe identify`", 0), 0u) << refusal(j);
  j = report::to_json(sample());
  j["parameters"].erase(static_cast<std::size_t>(sim::kNumLambda - 1));
  EXPECT_EQ(refusal(j).rfind("m.report.json: key 'parameters': expected an array of " + std::to_string(sim::kNumLambda), 0), 0u) << refusal(j);
  j = report::to_json(sample());
  j["inputs"]["robot"] = nullptr;
  EXPECT_EQ(refusal(j), "m.report.json: key 'inputs.robot': missing (not written by `vcloe identify`, or by an older vcloe? run it again)");
  j = report::to_json(sample());  // the latency offset (a report of an older vcloe has none)
  j.erase("latency_offset");
  EXPECT_EQ(refusal(j).rfind("m.report.json: key 'latency_offset': missing (not written by `vcloe identify`", 0), 0u)
      << refusal(j);
  j = report::to_json(sample());
  j["latency_offset"]["sigma"] = -1e-5;
  EXPECT_EQ(refusal(j), "m.report.json: key 'latency_offset.sigma': expected a non-negative number, got -1e-05");
  j = report::to_json(sample());  // one cost per latency start
  j["start"]["latency_costs"].erase(static_cast<std::size_t>(4));
  EXPECT_EQ(refusal(j).rfind("m.report.json: key 'start.latency_costs': expected one cost per latency start (5)", 0), 0u)
      << refusal(j);
  j = report::to_json(sample());
  j["correlation"]["matrix"][1] = {0.5};
  EXPECT_EQ(refusal(j), "m.report.json: key 'correlation.matrix[1]': expected an array of 24, got [0.5]");
}

// The correlation matrix read back as the writer makes it: over the parameters with a sigma,
// once each in registry order; symmetric, a unit diagonal, |rho| <= 1, positive semi-definite.
// Each of these was read as it stood and turned into zero or negative variances by `predict`.
TEST(IdentificationReport, ACorrelationMatrixNoWriterMakesIsRefusedNamingTheKey) {
  const json good = report::to_json(sample());
  ASSERT_EQ(refusal(good), "");
  json j = good;
  j["correlation"]["matrix"][0][1] = 5.0;
  EXPECT_EQ(refusal(j), "m.report.json: key 'correlation.matrix[0][1]': expected a correlation in [-1, 1], got 5.0");
  j = good;
  j["correlation"]["matrix"][0][1] = 0.1;  // [1][0] stays -0.25
  EXPECT_EQ(refusal(j).rfind("m.report.json: key 'correlation.matrix[1][0]': expected matrix[0][1] (0.1): a correlation "
                             "matrix is symmetric", 0), 0u) << refusal(j);
  j = good;
  j["correlation"]["matrix"][2][2] = 0.5;
  EXPECT_EQ(refusal(j).rfind("m.report.json: key 'correlation.matrix[2][2]': expected 1", 0), 0u) << refusal(j);
  j = good;
  const std::size_t n = j["correlation"]["parameters"].size();
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b)
      if (a != b) j["correlation"]["matrix"][a][b] = -0.99;  // every pair: no covariance is that
  EXPECT_EQ(refusal(j).rfind("m.report.json: key 'correlation.matrix': expected a positive semi-definite matrix", 0), 0u)
      << refusal(j);
  j = good;
  j["correlation"]["parameters"][1] = j["correlation"]["parameters"][0];  // a name twice
  EXPECT_EQ(refusal(j).rfind("m.report.json: key 'correlation.parameters': expected the 24 parameters with a sigma", 0), 0u)
      << refusal(j);
  j = good;
  j["correlation"]["parameters"].erase(3);  // one fewer than have a sigma
  EXPECT_NE(refusal(j).find("key 'correlation.parameters': expected the 24 parameters"), std::string::npos) << refusal(j);
}

// Whatever a writer holds, a non-finite number is refused naming the file and key before
// anything is written (the library wrote null, which the reader then refused).
TEST(IdentificationReport, ANonFiniteNumberIsRefusedByTheJsonWriterNamingTheKey) {
  report::IdentificationReport r = sample();
  r.parameters[3].sigma = INFINITY;
  EXPECT_EQ(test::error_of([&] { json_text(report::to_json(r), "m.report.json"); }),
            "m.report.json: key 'parameters[3].sigma': inf is not a number JSON can hold; refusing to write a file "
            "that cannot be read back");
  EXPECT_EQ(test::error_of([&] { json_text(report::to_json(sample()), "m.report.json"); }), "");
}

// The report is read back within what it states itself: the latency offset inside the bounds
// of its own object (1e300 was drawn as "1e+303 ms (bounds -5 ... 5 ms)"), each parameter's
// name and unit the registry's (a unit edited to "g" showed the kg value in grams), a sigma
// refused where it is wrong, not at the correlation list that follows from it.
TEST(IdentificationReport, AValueOutsideTheBoundsItStatesOrANameOrUnitNotTheRegistrysIsRefused) {
  const json good = report::to_json(sample());
  ASSERT_EQ(refusal(good), "");
  json j = good;
  j["latency_offset"]["value"] = 1e300;
  EXPECT_EQ(refusal(j).rfind("m.report.json: key 'latency_offset.value': expected a latency offset within this object's "
                             "bounds [-0.005, 0.005] s, got 1e+300", 0), 0u) << refusal(j);
  j["latency_offset"]["value"] = -0.0051;
  EXPECT_NE(refusal(j).find("key 'latency_offset.value'"), std::string::npos) << refusal(j);
  j["latency_offset"]["value"] = 0.005;  // on the bound: the fit's bounds are closed (its status says so)
  j["latency_offset"]["status"] = oe_ident::LatencyResult::fitted_status(0.005, -0.005, 0.005);
  EXPECT_EQ(refusal(j), "");
  j = good;
  j["parameters"][0]["unit"] = "g";
  EXPECT_EQ(refusal(j), "m.report.json: key 'parameters[0].unit': expected \"kg\", the SI unit of m_p, got \"g\"");
  j = good;
  j["parameters"][vcloe::sim::kGainP]["unit"] = "N*m";
  EXPECT_NE(refusal(j).find("key 'parameters[" + std::to_string(vcloe::sim::kGainP) + "].unit': expected \"N*m/rad\""),
            std::string::npos) << refusal(j);
  j = good;
  std::swap(j["parameters"][1]["name"], j["parameters"][2]["name"]);
  EXPECT_EQ(refusal(j).rfind("m.report.json: key 'parameters[1].name': expected \"Ix_p\" (parameter 1 of the registry", 0),
            0u) << refusal(j);
  j = good;
  j["parameters"][0]["sigma"] = -0.0;
  EXPECT_EQ(refusal(j).rfind("m.report.json: key 'parameters[0].sigma': expected a non-negative standard deviation", 0), 0u)
      << refusal(j);
  j = good;
  j["parameters"][3]["sigma"] = 0.0;  // m_p and Iz_p... have one; parameter 3 is listed as fitted
  EXPECT_EQ(refusal(j).rfind("m.report.json: key 'parameters[3].sigma': expected a positive sigma: Iz_p is in "
                             "correlation.parameters (fitted)", 0), 0u) << refusal(j);
}

// Probe 18, class K: a field the same file determines is compared with what determines it; a
// hand-edited or damaged report was drawn (and read by predict) as if identify had written it.
TEST(IdentificationReport, ADerivedFieldNotOfItsPrimaryOnesIsRefusedNamingTheKey) {
  const report::IdentificationReport r = sample();
  auto edited = [&](auto edit) {
    json j = report::to_json(r);
    edit(j);
    return refusal(j);
  };
  EXPECT_EQ(refusal(report::to_json(r)), "");
  const std::string rel = edited([](json& j) { j["parameters"][0]["rel_sigma"] = 0.001; });
  EXPECT_EQ(rel.rfind("m.report.json: key 'parameters[0].rel_sigma': expected sigma / |value| = ", 0), 0u) << rel;
  const std::string low = edited([](json& j) { j["parameters"][0]["interval95"] = {30, 40}; });
  EXPECT_EQ(low.rfind("m.report.json: key 'parameters[0].interval95[0]': expected the lower bound value * exp(-1.96 rel_sigma)", 0), 0u) << low;
  const std::string high = edited([](json& j) { j["parameters"][3]["interval95"][1] = nullptr; });
  EXPECT_EQ(high.rfind("m.report.json: key 'parameters[3].interval95[1]': expected the upper bound", 0), 0u) << high;
  const std::string flagged = edited([](json& j) { j["parameters"][0]["flagged"] = true; });
  EXPECT_EQ(flagged, "m.report.json: key 'parameters[0].status': expected not \"identified\": the parameter is flagged (its "
                     "relative sigma above the flag), got \"identified\"");
  const std::string said = edited([](json& j) { j["parameters"][3]["identified"] = true; });
  EXPECT_EQ(said.rfind("m.report.json: key 'parameters[3].identified': expected false: the status is \"poorly determined", 0), 0u) << said;
  const std::string poorly = edited([](json& j) { j["parameters"][3]["flagged"] = false; });
  EXPECT_EQ(poorly.rfind("m.report.json: key 'parameters[3].flagged': expected true", 0), 0u) << poorly;
  const std::string left = edited([](json& j) { j["parameters"][1]["sigma_camera"] = 0.5; });
  EXPECT_EQ(left.rfind("m.report.json: key 'parameters[1].sigma_camera': expected 0: the status \"fixed\" is of a parameter left out", 0), 0u) << left;
  const std::string count = edited([](json& j) { j["identified_count"] = 13; });
  EXPECT_EQ(count, "m.report.json: key 'identified_count': expected the number of parameters marked identified (12), got 13");
}

// Probe 27's C (k6-17, k6-26, k6-58): the singular values are the weighted Jacobian's, one per
// coordinate of the fit (each fitted parameter, a tied group one, the latency offset), largest first,
// some below the rank cut exactly when a parameter was put in the null space.
TEST(IdentificationReport, SingularValuesNotOnePerCoordinateOfTheFitAreRefused) {
  const report::IdentificationReport r = sample();
  auto edited = [&](auto edit) {
    json j = report::to_json(r);
    edit(j);
    return refusal(j);
  };
  const std::string want = "m.report.json: key 'singular_values': expected an array of 25 (one per coordinate of the fit: 24 "
                           "fitted parameters and the latency offset; this one holds ";
  EXPECT_EQ(edited([](json& j) { j["singular_values"] = json::array(); }), want + "0), got []");
  const std::string cut = edited([](json& j) { j["singular_values"].erase(j["singular_values"].begin() + 3, j["singular_values"].end()); });
  EXPECT_EQ(cut.rfind(want + "3), got [10", 0), 0u) << cut;
  const std::string doubled = edited([](json& j) { for (int c = 0; c < 25; ++c) j["singular_values"].push_back(j["singular_values"][c]); });
  EXPECT_EQ(doubled.rfind(want + "50), got [10", 0), 0u) << doubled;
  EXPECT_EQ(edited([](json& j) { j["singular_values"][1] = 11.0; }),
            "m.report.json: key 'singular_values[1]': expected at most singular_values[0] = 10 (largest first), got 11.0");
  const std::string below = edited([](json& j) { j["singular_values"][24] = 1e-9; });
  EXPECT_EQ(below.rfind("m.report.json: key 'singular_values': expected none below rank_tolerance x the largest", 0), 0u) << below;
  // A null-space parameter adds its coordinate and a value below the cut; a tied pair may share one.
  report::IdentificationReport n = sample();
  n.parameters[1].status = "unidentifiable at the solution (null space of the Jacobian)";
  EXPECT_EQ(refusal(report::to_json(n)).rfind("m.report.json: key 'singular_values': expected an array of 26 (", 0), 0u);
  n.singular_values.push_back(1e-9);
  EXPECT_EQ(refusal(report::to_json(n)), "");
  report::IdentificationReport t = sample();
  for (std::size_t k : {0u, 6u}) t.parameters[k].status += " (tied)";
  EXPECT_EQ(refusal(report::to_json(t)), "");  // 22 + 1 group + latency ... 22 + 2 + latency
  t.singular_values.resize(23);
  EXPECT_EQ(refusal(report::to_json(t)).rfind("m.report.json: key 'singular_values': expected an array of 24 to 25 (", 0), 0u)
      << refusal(report::to_json(t));
}

// Probe 27's D (k6-52, k6-53): moved_to_consistency is checked itself, before the rel_sigma it
// explains: each line a move of a parameter of the file to its value, once, and every parameter
// fixed before the fit that is not at its prior listed; a refusal names that key.
TEST(IdentificationReport, AnEditedMovedToConsistencyIsRefusedAtThatKey) {
  const report::IdentificationReport r = sample();
  auto with = [&](const json& moved) {
    json j = report::to_json(r);
    j["moved_to_consistency"] = moved;
    return refusal(j);
  };
  const std::string line = "a line \"<parameter> <from> -> <to> kg*m^2 (<why>)\" of a moment or first moment moved to consistency";
  EXPECT_EQ(with({"garbage text"}), "m.report.json: key 'moved_to_consistency[0]': expected " + line + ", got \"garbage text\"");
  EXPECT_EQ(with({"Iz_w9 8 -> 8.5 kg*m^2 (why)"}).rfind("m.report.json: key 'moved_to_consistency[0]': expected a line", 0), 0u);
  EXPECT_EQ(with({"Iz_w1 8 -> 8.5 kg (why)"}).rfind("m.report.json: key 'moved_to_consistency[0]': expected a line", 0), 0u);
  EXPECT_EQ(with({"Iz_w1 8 -> 9.5 kg*m^2 (why)"}).rfind("m.report.json: key 'moved_to_consistency[0]': expected a move to "
                                                      "parameters[7].value (Iz_w1 = 8.5)", 0), 0u);
  const std::string twice = with({r.moved_to_consistency[0], r.moved_to_consistency[0]});
  EXPECT_EQ(twice.rfind("m.report.json: key 'moved_to_consistency[1]': expected one line per parameter (Iz_w1 is listed twice)", 0), 0u) << twice;
  EXPECT_EQ(with(json::array()), "m.report.json: key 'moved_to_consistency': expected a line for Iz_w1: parameters[7] is \"fixed\", "
                                 "its value 8.5 not its prior 8: only a move to consistency changes it, got []");
}

TEST(IdentificationReport, AStatusNotOfTheFitsSetIsRefusedAndEveryStatusItWritesIsRead) {
  report::IdentificationReport r = sample();
  json j = report::to_json(r);
  j["parameters"][1]["status"] = "great";
  EXPECT_EQ(refusal(j).rfind("m.report.json: key 'parameters[1].status': expected one of the statuses vcloe identify writes", 0), 0u)
      << refusal(j);
  const char* const left_out[] = {"fixed (configuration)", "fixed (scale anchor)", "not excited (no effect on the pose trace)",
                                  "only in combination with lp, li", "unidentifiable at the solution (null space of the Jacobian)"};
  for (const char* s : left_out) {
    r.parameters[1].status = s;
    const bool null_space = std::string(s).rfind("unidentifiable", 0) == 0;  // a coordinate of the fit, below the cut
    set_singular_values(r, 25 + null_space, null_space);
    EXPECT_EQ(refusal(report::to_json(r)), "") << s;
  }
  r.parameters[0].status = "identified (tied)";  // a tied parameter: identified, the suffix after
  EXPECT_EQ(refusal(report::to_json(r)), "");
  r.parameters[3].status = "fitted, but only identifiable in combination";  // flagged or not
  EXPECT_EQ(refusal(report::to_json(r)), "");
}

// Probe 24's C (the class, in this reader): the anchor is one identify writes
// (oe_ident::Anchor::describe; never "none"), and a payload anchor has its payload trace among the inputs.
TEST(IdentificationReport, AnAnchorIdentifyDoesNotWriteIsRefusedAtItsKey) {
  const std::string expected = "m.report.json: key 'anchor': expected \"payload experiment\" or \"known <parameter> "
                               "= <value> <unit>\" (identify's anchor; it refuses a fit without one), got ";
  const struct {
    const char* anchor;
    bool payload_trace;
    std::string refusal;
  } cases[] = {
      {"payload experiment", true, ""},
      {"none", false, expected + "\"none\""},  // identify refuses an unanchored fit (probe 28, k6-47)
      {"none", true, expected + "\"none\""},
      {"known m_p = 24 kg", false, ""},
      {"known lp = 360 N*m/rad", true, ""},
      {"payload 5 kg", true, expected + "\"payload 5 kg\""},
      {"known m_p = 24 g", false, expected + "\"known m_p = 24 g\""},
      {"known m_zz = 24 kg", false, expected + "\"known m_zz = 24 kg\""},
      {"known m_p =  kg", false, expected + "\"known m_p =  kg\""},  // no value
      {"", false, expected + "\"\""},
      {"payload experiment", false, "m.report.json: key 'anchor': expected not \"payload experiment\" beside inputs.payload_trace "
                                    "null (the payload anchor is the payload trace's), got \"payload experiment\""},
  };
  for (const auto& c : cases) {
    report::IdentificationReport r = sample();
    r.anchor = c.anchor;
    if (!c.payload_trace) r.inputs.payload_trace.reset();
    EXPECT_EQ(refusal(report::to_json(r)), c.refusal) << c.anchor;
  }
}

// The platform's first moments as identify writes them (docs/identification.md): signed, rel_sigma
// = sigma / max(|m c|, m_p x 1 mm), a Gaussian interval. A centre of mass within 1 mm of E, one
// beyond it on the negative side, and one exactly at E read back equal; the log rule is refused.
TEST(IdentificationReport, FirstMomentsNearZeroOrNegativeReadBackEqual) {
  report::IdentificationReport r = sample();
  const double floor = r.parameters[sim::platform_index(0)].value * 1e-3;  // m_p x 1 mm
  const std::array<std::array<double, 2>, 3> value_sigma{{{2e-4, 1.5e-4}, {-3e-3, 6e-5}, {0.0, 1e-4}}};
  for (int c = 0; c < 3; ++c) {
    report::ParameterEntry& p = r.parameters[static_cast<std::size_t>(sim::first_moment_index(c))];
    const auto [value, sigma] = value_sigma[static_cast<std::size_t>(c)];
    r.identified_count += !p.identified;
    p.value = value;
    p.sigma = sigma;
    p.sigma_camera = sigma / 2;
    p.rel_sigma = sigma / std::max(std::abs(value), floor);  // 0.136, 0.02, 0.091: below the flag
    p.interval95 = gaussian_interval_of(value, sigma);
    p.prior_pull = 0.25;
    p.identified = true;
    p.flagged = false;
    p.status = "identified";
  }
  set_correlation(r);
  set_singular_values(r, static_cast<int>(r.correlation.parameters.size()) + 1);  // and the latency offset
  const json j = report::to_json(r);
  EXPECT_EQ(refusal(j), "");
  EXPECT_EQ(report::identification_from_json(j, "m.report.json"), r);
  json as_log = j;  // mx_p's rel_sigma as sigma / |value| (0.75): not the rule identify writes by
  as_log["parameters"][sim::first_moment_index(0)]["rel_sigma"] = 1.5e-4 / 2e-4;
  EXPECT_EQ(refusal(as_log).rfind("m.report.json: key 'parameters[64].rel_sigma': expected sigma / max(|value|, m_p x 1 mm) = ", 0), 0u)
      << refusal(as_log);
  json log_interval = j;
  log_interval["parameters"][sim::first_moment_index(1)]["interval95"] = interval_of(-3e-3, 0.02);
  EXPECT_EQ(refusal(log_interval).rfind("m.report.json: key 'parameters[65].interval95[0]': expected the lower bound value - 1.96 sigma", 0), 0u)
      << refusal(log_interval);
}

// A parameter moved to obey the triangle inequalities keeps the sigma, rel_sigma and interval of
// its fitted value (oe_ident/src/consistency.cpp): not refused as a derived field that differs.
TEST(IdentificationReport, AMovedParameterKeepsTheFiguresOfItsFittedValue) {
  report::IdentificationReport r = sample();
  r.parameters[3].value *= 1.5;  // Iz_p moved; its rel_sigma and interval are of the fitted value
  EXPECT_NE(refusal(report::to_json(r)), "");
  r.moved_to_consistency.push_back("Iz_p 4.1 -> 6.15 kg*m^2 (not determined by the poses; moved to obey the triangle inequalities)");
  EXPECT_EQ(refusal(report::to_json(r)), "");
}

// The report's values are the model's it records, its priors the robot file's (vcloe report,
// vcloe predict; the files' SHA-256 compared with the recorded ones before).
TEST(IdentificationReport, AValueOrPriorNotTheRecordedFilesIsRefusedNamingTheParameter) {
  const report::IdentificationReport r = sample();
  sim::LambdaVector<double> values, priors;
  for (int k = 0; k < sim::kNumLambda; ++k) values(k) = r.parameters[k].value, priors(k) = r.parameters[k].prior;
  report::check_values_of_file(r, "m.report.json", "value", values, "the model it records, m.yaml,");
  report::check_values_of_file(r, "m.report.json", "prior", priors, "the robot file it records, robot.yaml,");
  values(0) = 27.53;
  EXPECT_EQ(test::error_of([&] { report::check_values_of_file(r, "m.report.json", "value", values, "the model it records, m.yaml,"); }),
            "m.report.json: key 'parameters[0].value' (m_p): 1.1, but the model it records, m.yaml, holds 27.53: the report "
            "does not describe that file (edited since written?); run vcloe identify again");
  priors(sim::kGainD) = 240;
  EXPECT_NE(test::error_of([&] { report::check_values_of_file(r, "m.report.json", "prior", priors, "the robot file"); })
                .find("key 'parameters[69].prior' (ld): 70, but the robot file holds 240"),
            std::string::npos);
}

namespace {

// The sample with the end point not checked (start.check: false): Ceres' own termination.
report::IdentificationReport not_checked() {
  report::IdentificationReport r = sample();
  oe_ident::ConvergenceCheck k;
  k.end_cost = 1.5e5, k.noise_cost = 600, k.end_over_noise = std::sqrt(1.5e5 / 600);
  r.convergence = {"not checked", k.summary(), k.end_over_noise, 1.5e5, 600, -1, 0, 0, 0};
  r.termination = "Ceres Solver Report: Iterations: 4, Initial cost: 5.461225e+05, Final cost: 1.541388e+05, Termination: NO_CONVERGENCE";
  return r;
}

// The refusal of `r` written with one field edited begins with `head` (file, key, "expected ...").
void expect_refused(const report::IdentificationReport& r, const std::function<void(json&)>& edit, const std::string& head) {
  json j = report::to_json(r);
  ASSERT_EQ(refusal(j), "");
  edit(j);
  const std::string got = refusal(j);
  EXPECT_EQ(got.rfind(head, 0), 0u) << got;
  EXPECT_NE(got.find(", got "), std::string::npos) << got;
}

}  // namespace

// Probe 28's B: a verdict or sentence of the report is the writer's function of its figures
// (oe_ident::adequacy_of, ConvergenceCheck::summary, LatencyResult::fitted_status, Ceres' report):
// one edited against them is refused at its key, not drawn.
TEST(IdentificationReport, AVerdictOrSentenceDisagreeingWithItsFiguresIsRefusedAtItsKey) {
  const std::string k = "m.report.json: key '";
  expect_refused(sample(), [](json& j) { j["adequacy"]["summary"] = "Camera noise only: the model is adequate."; },
                 k + "adequacy.summary': expected the sentence of its verdict and figures, \"Model error is visible");
  expect_refused(sample(), [](json& j) { j["adequacy"]["verdict"] = "noise level"; },
                 k + "adequacy.verdict': expected \"model error visible\", the verdict of mean_model_share");
  expect_refused(not_checked(), [](json& j) { j["convergence"]["verdict"] = "converged"; },
                 k + "convergence.verdict': expected \"not checked\", the verdict its summary states, got \"converged\"");
  expect_refused(not_checked(), [](json& j) { j["convergence"]["summary"] = "Checked: a second start found no lower minimum."; },
                 k + "convergence.summary': expected the sentence of its verdict and figures, \"The end point was not checked");
  expect_refused(sample(), [](json& j) { j["convergence"]["verdict"] = "converged"; }, k + "convergence.verdict': expected \"stuck\"");
  expect_refused(not_checked(), [](json& j) { j["termination"] = "Ceres Solver Report: Iterations: 4, Termination: CONVERGENCE"; },
                 k + "termination': expected Ceres' report \"Ceres Solver Report: Iterations: <n>");
  expect_refused(sample(), [](json& j) { j["termination"] = not_checked().termination; },
                 k + "termination': expected \"STUCK: the fit stopped where");
  expect_refused(not_checked(), [](json& j) { j["termination"] = sample().termination; },
                 k + "termination': expected Ceres' report of the last stage (convergence.verdict is not \"stuck\")");
  expect_refused(sample(), [](json& j) { j["latency_offset"]["status"] = "held"; },
                 k + "latency_offset.status': expected \"fitted\", the status of an offset fitted (fitted is true)");
  expect_refused(sample(), [](json& j) { j["latency_offset"]["value"] = 4.999e-3; },  // within 1e-3 of the span of a bound
                 k + "latency_offset.status': expected \"fitted, at its bound");
  expect_refused(sample(), [](json& j) { j["latency_offset"]["fitted"] = false; },
                 k + "latency_offset.status': expected \"held (latency.fit: false)\", \"not fitted");
}

// Probe 28's C: a figure derived from others of the file (a share, a mean, a ratio, a count) is
// recomputed by the writer's function, or bounded as its derivation bounds it.
TEST(IdentificationReport, AFlaggedParameterIsPoorlyDeterminedWhateverItsPriorPull) {
  json j = report::to_json(sample());
  ASSERT_EQ(j["parameters"][3]["status"], "poorly determined (relative sigma above the flag)");
  j["parameters"][3]["prior_pull"] = 0.7;  // flagged first (oe_ident::fitted_status)
  EXPECT_EQ(refusal(j), "");
}

TEST(IdentificationReport, ADerivedFigureDisagreeingWithItsSourcesIsRefusedAtItsKey) {
  const std::string k = "m.report.json: key '";
  expect_refused(sample(), [](json& j) { j["adequacy"]["experiments"][0]["model_share"][0] = 1.7; },
                 k + "adequacy.experiments[0].model_share[0]': expected the channel's share max(1 - 1/rms_over_noise^2, lag1) within [0, 1], 0.1");
  expect_refused(sample(), [](json& j) { j["adequacy"]["worst_model_share"] = 0.9; },
                 k + "adequacy.worst_model_share': expected the largest model_share of the experiments, 0.6");
  expect_refused(sample(), [](json& j) { j["adequacy"]["worst_channel"] = "x of experiment 1"; },
                 k + "adequacy.worst_channel': expected \"alpha of experiment 2\"");
  expect_refused(sample(), [](json& j) { j["adequacy"]["mean_model_share"] = 0.1; },
                 k + "adequacy.mean_model_share': expected the mean model_share over the channels");
  expect_refused(sample(), [](json& j) { j["adequacy"]["chi2_per_dof"] = 256.8; }, k + "adequacy.chi2_per_dof': expected the mean");
  expect_refused(sample(), [](json& j) { j["adequacy"]["sigma_scale"] = 3; }, k + "adequacy.sigma_scale': expected sqrt(max(1, chi2_per_dof)) = ");
  expect_refused(not_checked(), [](json& j) { j["convergence"]["end_over_noise"] = 1.0; },
                 k + "convergence.end_over_noise': expected sqrt(end_cost / max(noise_cost, 1)) = 15.8");
  expect_refused(sample(), [](json& j) { j["convergence"]["removed_share"] = 0.1; },
                 k + "convergence.removed_share': expected (end_cost - second_start_cost) / (end_cost - noise_cost) = 0.6");
  expect_refused(not_checked(), [](json& j) { j["convergence"]["removed_share"] = 0.3; },
                 k + "convergence.removed_share': expected 0 (no second start ran)");
  expect_refused(not_checked(), [](json& j) { j["convergence"]["second_start_cost"] = 100; },
                 k + "convergence.second_start_cost': expected -1: the verdict \"not checked\" is of no second start");
  expect_refused(sample(), [](json& j) { j["parameters"][0]["prior_pull"] = 50.0; },  // probe 29: identified, yet set by the prior
                 k + "parameters[0].status': expected \"set by the weak prior (the data moves it less than the prior does)\", "
                     "the status of flagged false and prior_pull 50 sigma");
  expect_refused(sample(), [](json& j) { j["after_over_noise"] = 0.5; },  // probe 28, k6-13
                 k + "after_over_noise': expected the largest after_rms_all over noise_sigma, 2.28");
  expect_refused(sample(), [](json& j) { j["noise_sigma"][3] = 0.0; },
                 k + "noise_sigma[3]': expected a positive camera sigma (m for x, y, z; rad for the angles), got 0");
  expect_refused(sample(), [](json& j) { j["rejected_steps"] = 50; },
                 k + "rejected_steps': expected at most iterations (36): each rejected step is an iteration, got 50");
  expect_refused(not_checked(), [](json& j) {
    j["termination"] = "Ceres Solver Report: Iterations: 90, Initial cost: 5.461225e+05, Final cost: 1.541388e+05, Termination: CONVERGENCE";
  }, k + "termination': expected at most iterations + 1 = 37 Ceres iterations");
}
