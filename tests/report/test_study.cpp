// Specification of what `vcloe study` counts (vcloe/report/study.hpp): each identified
// parameter against its truth, the bound max(5 %, 3 sigma), the sigma coverage over truths,
// the floors and the required parameters.
#include <gtest/gtest.h>
#include <cmath>
#include <functional>
#include <utility>

#include "../test_support.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/report/study.hpp"
#include "vcloe/sim/parameters.hpp"

using namespace vcloe;
using report::ParameterEntry;

namespace {

ParameterEntry parameter(const std::string& name, double value, double sigma, bool identified = true) {
  ParameterEntry p;
  p.name = name;
  p.value = value;
  p.sigma = sigma;
  p.rel_sigma = sigma / value;
  p.identified = identified;
  // As identify writes it: the fit's log coordinates (value * exp(+-1.96 rel_sigma)).
  p.interval95 = std::array<double, 2>{value * std::exp(-1.96 * p.rel_sigma), value * std::exp(1.96 * p.rel_sigma)};
  return p;
}

report::IdentificationReport ident(const std::vector<ParameterEntry>& parameters) {
  report::IdentificationReport r;
  r.iterations = 30;
  r.seconds = 41.5;
  r.after_rms_all = {{0.022, 0.022, 0.022, 0.1, 0.1, 0.06}, {0.022, 0.022, 0.022, 0.1, 0.1, 0.06}};
  r.parameters = parameters;
  r.adequacy.verdict = "model error visible";
  return r;
}

report::ValidationResult validation(double worst_ratio) {
  report::ValidationResult v;
  v.worst_ratio = worst_ratio;
  return v;
}

sim::LambdaVector<double> truth_with(std::initializer_list<std::pair<const char*, double>> values) {
  sim::LambdaVector<double> t = sim::LambdaVector<double>::Ones();
  const auto& reg = sim::parameter_registry();
  for (const auto& [name, v] : values)
    for (std::size_t k = 0; k < reg.size(); ++k)
      if (reg[k].name == name) t(static_cast<int>(k)) = v;
  return t;
}

const std::vector<std::array<double, 6>> kFloor = {{0.02, 0.02, 0.02, 0.1, 0.1, 0.05}, {0.02, 0.02, 0.02, 0.1, 0.1, 0.06}};

}  // namespace

TEST(StudyTable, ChecksEachIdentifiedParameterAgainstItsTruth) {
  // m_p 2 % off at 4 sigma: inside the bound (<= 5 %); fv3 10 % off at 5 sigma: outside;
  // fc1 not identified: not counted.
  const std::vector<ParameterEntry> params = {parameter("m_p", 20.4, 0.1), parameter("fv3", 0.55, 0.01), parameter("fc1", 3.0, 0.1, false)};
  const report::TruthRow row = report::make_row(7, truth_with({{"m_p", 20.0}, {"fv3", 0.5}}), ident(params), kFloor,
                                          validation(1.07));
  ASSERT_EQ(row.identified, 2);
  EXPECT_TRUE(row.checks[0].within_bound());
  EXPECT_FALSE(row.checks[1].within_bound());
  EXPECT_EQ(row.worst_error()->name, "fv3");
  EXPECT_NEAR(row.worst_z()->z(), 5.0, 1e-9);
  EXPECT_NEAR(row.after_over_floor, 1.2, 1e-9);  // gamma of experiment 1: 0.06 / 0.05
  EXPECT_NEAR(row.validation_over_floor, 1.07, 1e-12);
  EXPECT_FALSE(row.key_identified);  // not all of m_p, the platform moments and the gains
}

TEST(StudyTable, CountsCoverageOverAllTruths) {
  // Errors of 0.5, 1.5, 2.5 and 3.5 sigma over two truths.
  const auto t = truth_with({{"m_p", 20.0}, {"lp", 300.0}});
  const report::TruthRow a = report::make_row(1, t, ident({parameter("m_p", 20.05, 0.1), parameter("lp", 301.5, 1.0)}), kFloor,
                                        validation(1.0));
  const report::TruthRow b = report::make_row(2, t, ident({parameter("m_p", 20.25, 0.1), parameter("lp", 303.5, 1.0)}), kFloor,
                                        validation(1.1));
  const report::StudySummary s = report::summarise({a, b});
  EXPECT_EQ(s.parameters, 4);
  EXPECT_EQ(s.within1, 1);
  EXPECT_EQ(s.within2, 2);
  EXPECT_EQ(s.within3, 3);
  EXPECT_EQ(s.in_interval, 2);   // 0.5 and 1.5 sigma lie inside +-1.96 sigma
  EXPECT_EQ(s.outside_bound, 0);  // every error is under 5 %
  EXPECT_NEAR(s.median_key_rel_sigma, (1.0 / 301.5 + 1.0 / 303.5 + 0.1 / 20.05 + 0.1 / 20.25) / 4, 2e-3);
  EXPECT_NE(report::markdown_table({a, b}, s).find("| 2 | 30 | 41.5 | 0.0 |"), std::string::npos);
}

// (A report without its numbers is refused by its reader: test_identification.cpp.)
TEST(StudyTable, RefusesAReportThatDoesNotMatchTheFloorsOrTheRegistry) {
  report::IdentificationReport one = ident({});
  one.after_rms_all.pop_back();  // one experiment, two floors
  EXPECT_THROW(report::make_row(1, truth_with({}), one, kFloor, validation(1.0)), Error);
  EXPECT_THROW(report::make_row(1, truth_with({}), ident({parameter("m_q", 1.0, 0.1)}), kFloor, validation(1.0)), Error);
  EXPECT_NO_THROW(report::make_row(1, truth_with({}), ident({parameter("m_p", 1.0, 0.1)}), kFloor, validation(1.0)));
}

// study.json: one writer, one typed reader; read back and written again it is the same bytes,
// and a hand-edited file is refused naming the key.
TEST(StudyJson, ReadsBackWhatItWroteAndRefusesWhatItCouldNotHaveWritten) {
  const auto t = truth_with({{"m_p", 20.0}, {"lp", 300.0}});
  const report::TruthRow a = report::make_row(1, t, ident({parameter("m_p", 20.05, 0.1), parameter("lp", 301.5, 1.0)}), kFloor,
                                              validation(1.0));
  const report::TruthRow b = report::make_row(2, t, ident({parameter("m_p", 20.25, 0.1)}), kFloor, validation(1.1));
  const nlohmann::json written = report::study_json({a, b}, report::summarise({a, b}));
  const report::StudyResult back = report::study_from_json(written, "s.json");
  ASSERT_EQ(back.rows.size(), 2u);
  EXPECT_EQ(back.rows[1].seed, 2u);
  EXPECT_EQ(back.rows[0].checks[1].name, "lp");
  EXPECT_EQ(back.summary.within3, report::summarise({a, b}).within3);
  EXPECT_EQ(report::study_json(back.rows, back.summary).dump(), written.dump());

  auto refusal = [](const nlohmann::json& j) { return test::error_of([&] { report::study_from_json(j, "s.json"); }); };
  nlohmann::json j = written;
  j["truths"][1]["identified"] = 2;  // one parameter listed
  EXPECT_EQ(refusal(j), "s.json: key 'truths[1].parameters': expected one entry per identified parameter, got [{\"error\":0.0125,\"interval95\":[20.054945...");
  j = written;
  j["truths"][0]["parameters"][0]["sigma"] = -0.1;
  EXPECT_EQ(refusal(j), "s.json: key 'truths[0].parameters[0].sigma': expected a non-negative number, got -0.1");
  j = written;
  j["summary"]["truths"] = 3;
  EXPECT_EQ(refusal(j), "s.json: key 'summary.truths': expected the number of entries in truths (2), got 3");
  j = written;
  j.erase("summary");
  EXPECT_EQ(refusal(j), "s.json: key 'summary': missing (not written by `vcloe study`, or by an older vcloe? run it again)");
}

// study.json's fields checked against each other where it is read (study merge's shards, probe
// 19's class K): an interval not around the value or not of its rel_sigma, a rel_sigma not of its
// sigma, a name no parameter has or twice, a verdict the fit never writes, key_identified false
// with every key parameter listed — each refused naming the key; what the writer wrote reads back.
TEST(StudyJson, FieldsThatContradictEachOtherAreRefusedNamingTheKey) {
  const auto t = truth_with({{"m_p", 20.0}, {"lp", 300.0}});
  const report::TruthRow a = report::make_row(1, t, ident({parameter("m_p", 20.05, 0.1), parameter("lp", 301.5, 1.0)}), kFloor,
                                              validation(1.0));
  const nlohmann::json written = report::study_json({a}, report::summarise({a}));
  ASSERT_NO_THROW(report::study_from_json(written, "s.json"));
  auto refusal = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = written;
    edit(j);
    return test::error_of([&] { report::study_from_json(j, "s.json"); });
  };
  auto starts = [](const std::string& e, const std::string& head) { return e.rfind(head, 0) == 0 ? head : e; };
  const std::string p0 = "s.json: key 'truths[0].parameters[0].";
  std::string e = refusal([](nlohmann::json& j) { j["truths"][0]["parameters"][0]["interval95"] = {100, 200}; });
  EXPECT_EQ(starts(e, p0 + "interval95': expected value * exp(-+1.96 rel_sigma)"), p0 + "interval95': expected value * exp(-+1.96 rel_sigma)");
  e = refusal([](nlohmann::json& j) {  // the right width, shifted off the value
    auto& i = j["truths"][0]["parameters"][0]["interval95"];
    i = {i[0].get<double>() * 5, i[1].get<double>() * 5};
  });
  EXPECT_EQ(starts(e, p0 + "rel_sigma': expected sigma / value"), p0 + "rel_sigma': expected sigma / value");
  e = refusal([](nlohmann::json& j) {  // interval and sigma moved together, away from the value
    auto& p = j["truths"][0]["parameters"][0];
    p["interval95"] = {p["interval95"][0].get<double>() * 5, p["interval95"][1].get<double>() * 5};
    p["sigma"] = p["sigma"].get<double>() * 5;
  });
  EXPECT_EQ(starts(e, p0 + "value': expected the centre of interval95"), p0 + "value': expected the centre of interval95");
  e = refusal([](nlohmann::json& j) { j["truths"][0]["parameters"][0]["name"] = "bogus"; });
  EXPECT_EQ(starts(e, p0 + "name': expected the name of a model parameter"), p0 + "name': expected the name of a model parameter");
  e = refusal([](nlohmann::json& j) { j["truths"][0]["parameters"][1] = j["truths"][0]["parameters"][0]; });
  EXPECT_EQ(starts(e, "s.json: key 'truths[0].parameters[1].name': expected a parameter once"),
            "s.json: key 'truths[0].parameters[1].name': expected a parameter once");
  e = refusal([](nlohmann::json& j) { j["truths"][0]["verdict"] = "great"; });
  EXPECT_EQ(starts(e, "s.json: key 'truths[0].verdict': expected one of the model-adequacy verdicts"),
            "s.json: key 'truths[0].verdict': expected one of the model-adequacy verdicts");
  // Probe 24's C: a seed twice in one table is one truth counted twice (each study draws a truth once).
  const nlohmann::json two = report::study_json({a, report::failed_row(2, "x")}, report::summarise({a, report::failed_row(2, "x")}));
  for (const std::uint64_t seed : {1ull, 2ull, 3ull}) {
    nlohmann::json j = two;
    j["truths"][1]["seed"] = seed;
    EXPECT_EQ(test::error_of([&] { report::study_from_json(j, "s.json"); }),
              seed == 1 ? "s.json: key 'truths[1].seed': expected a truth once: seed 1 is also truths[0], got 1" : "")
        << seed;
  }
  e = refusal([](nlohmann::json& j) { j["truths"][0]["key_identified"] = true; });
  EXPECT_EQ(starts(e, "s.json: key 'truths[0].key_identified': expected false"), "s.json: key 'truths[0].key_identified': expected false");
  // A value moved to consistency after the fit keeps the fitted value's interval: read as written.
  EXPECT_EQ(refusal([](nlohmann::json& j) {
              j["truths"][0]["parameters"][0]["value"] = 20.3;
              j["truths"][0]["parameters"][0]["moved_to_consistency"] = true;
            }),
            "");
}

// A truth whose chain stopped is a row that says why: counted, drawn and read back, never mixed
// into the coverage.
TEST(StudyTable, ATruthWithoutAResultIsARowThatSaysWhyAndIsNotCounted) {
  const auto t = truth_with({{"m_p", 20.0}});
  const report::TruthRow ok = report::make_row(1, t, ident({parameter("m_p", 20.05, 0.1)}), kFloor, validation(1.0));
  const report::TruthRow stopped = report::failed_row(2, "run-payload: the robot stopped at t = 3.2 s: singularity");
  const report::StudySummary s = report::summarise({ok, stopped});
  EXPECT_EQ(s.truths, 2);
  EXPECT_EQ(s.failed, 1);
  EXPECT_EQ(s.parameters, 1);
  const std::string table = report::markdown_table({ok, stopped}, s);
  EXPECT_NE(table.find("| 2 | — | — | — | — | — | — | — | — | — | no result: run-payload: the robot stopped at t = 3.2 s: singularity |"),
            std::string::npos) << table;
  EXPECT_NE(table.find("1 of 2 truths have no result"), std::string::npos) << table;
  const nlohmann::json written = report::study_json({ok, stopped}, s);
  const report::StudyResult back = report::study_from_json(written, "s.json");
  EXPECT_EQ(back.rows[1].failed, stopped.failed);
  EXPECT_EQ(back.summary.failed, 1);
  EXPECT_EQ(report::study_json(back.rows, back.summary).dump(), written.dump());
}

// Probe 18, class L: a study with no identified parameter (every truth failed, or none fitted one)
// printed "0.0 % within 1σ": a coverage of nothing is said as not measured, never as 0 %.
TEST(StudyTable, ACoverageOverNoParameterIsNotMeasuredRatherThanZeroPercent) {
  const auto t = truth_with({{"m_p", 20.0}});
  const report::TruthRow none_identified = report::make_row(1, t, ident({parameter("m_p", 20.05, 0.1, false)}), kFloor, validation(1.0));
  for (const std::vector<report::TruthRow>& rows :
       {std::vector<report::TruthRow>{report::failed_row(1, "identify: disk full")},
        std::vector<report::TruthRow>{report::failed_row(1, "x"), report::failed_row(2, "y")},
        std::vector<report::TruthRow>{none_identified}}) {
    const std::string table = report::markdown_table(rows, report::summarise(rows));
    EXPECT_EQ(table.find("% within 1σ"), std::string::npos) << table;
    EXPECT_NE(table.find("No identified parameter over " + std::to_string(rows.size()) +
                         " truths: the coverage of σ and of the 95 % interval is not measured (n/a)."),
              std::string::npos) << table;
  }
}

// Shards joined: rows ordered by seed whatever the order of the inputs; a truth in two shards
// is refused naming both files.
TEST(StudyTable, ShardsJoinInSeedOrderAndNeverTwice) {
  const report::StudyResult a{{report::failed_row(7, "x"), report::failed_row(9, "y")}, {}, std::nullopt, {}};
  const report::StudyResult b{{report::failed_row(8, "z")}, {}, std::nullopt, {}};
  const auto rows = report::merge_rows({a, b}, {"a.json", "b.json"});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].seed, 7u);
  EXPECT_EQ(rows[1].seed, 8u);
  EXPECT_EQ(rows[2].seed, 9u);
  EXPECT_EQ(test::error_of([&] { report::merge_rows({a, b, a}, {"a.json", "b.json", "c.json"}); }),
            "c.json: truth 7 is also in a.json: shards of one study have no truth in common");
}

// Session 21's probe, S: the documented recipe (docs/calibration.md: two shards of `--truths 10
// --seed 801` and one-truth studies `--truths 1 --seed S` beside them) was refused, "key
// 'settings.seeds' is 805 to 805, in s1/study.json 801 to 810". Which truths a study ran is not a
// setting of the study they make together; anything else still differs by name.
TEST(StudyTable, StudiesOfOtherSeedsMergeTheirSeedsTheUnionAndNothingElseMayDiffer) {
  const report::StudySettings shard = {{"seeds", "801 to 810"}, {"shards", "2"}, {"truth_family", "--realistic"},
                                       {"reference_sha256", "bb"}};
  report::StudySettings single = shard;
  single["seeds"] = "805 to 805", single["shards"] = "1";
  const report::StudyResult s1{{report::failed_row(801, "x"), report::failed_row(803, "y")}, {}, std::nullopt, shard};
  const report::StudyResult s2{{report::failed_row(802, "z")}, {}, std::nullopt, shard};
  const report::StudyResult x805{{report::failed_row(805, "w")}, {}, std::nullopt, single};
  const report::StudySettings common = report::common_settings({s1, s2, x805}, {"s1", "s2", "x805"});
  EXPECT_EQ(common.at("truth_family"), "--realistic");
  EXPECT_EQ(report::seeds_of(report::merge_rows({s1, s2, x805}, {"s1", "s2", "x805"})), "801 to 803, 805");
  EXPECT_EQ(report::seeds_of({report::failed_row(4, "a")}), "4");
  report::StudyResult other = x805;  // another reference: still refused, by name
  other.settings["reference_sha256"] = "cc";
  EXPECT_EQ(test::error_of([&] { report::common_settings({s1, other}, {"s1", "x805"}); }),
            "x805: key 'settings.reference_sha256' is cc, in s1 bb: the shards of one study have the same settings "
            "(their rows are not comparable)");
  other = x805;  // a truth in two of them: still refused
  other.rows = {report::failed_row(803, "v")};
  EXPECT_NE(test::error_of([&] { report::merge_rows({s1, other}, {"s1", "x803"}); }).find("truth 803 is also in s1"),
            std::string::npos);
}

// Probe 19's merge-different-settings: shards of two differently configured studies merged
// without a word (study.json recorded no settings). The settings are written, read back, and
// report::common_settings refuses a merge of shards that differ, naming the key and both values.
TEST(StudyTable, ShardsOfDifferentSettingsAreRefusedNamingTheKeyAndBothValues) {
  const report::StudySettings one = {{"seeds", "1 to 4"}, {"shards", "2"}, {"truth_family", "--far"},
                                     {"identification_sha256", "aa"}, {"reference_sha256", "bb"}};
  const report::StudyResult a{{report::failed_row(1, "x")}, report::summarise({report::failed_row(1, "x")}), std::nullopt, one};
  const nlohmann::json written = report::study_json(a.rows, a.summary, one);
  const report::StudyResult back = report::study_from_json(written, "a.json");
  EXPECT_EQ(back.settings, one);
  EXPECT_EQ(report::study_json(back.rows, back.summary, back.settings).dump(), written.dump());
  report::StudyResult b = a;
  EXPECT_EQ(report::common_settings({a, b}, {"a.json", "b.json"}), one);
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"truth_family", "(truth random's own)"}, {"identification_sha256", "cc"}}) {
    b.settings = one;
    b.settings[key] = value;
    EXPECT_EQ(test::error_of([&] { report::common_settings({a, a, b}, {"a.json", "a2.json", "b.json"}); }),
              "b.json: key 'settings." + key + "' is " + value + ", in a.json " + one.at(key) +
                  ": the shards of one study have the same settings (their rows are not comparable)");
  }
  b.settings = one;
  b.settings["calibration"] = "30 poses";  // a key only one records
  EXPECT_NE(test::error_of([&] { report::common_settings({a, b}, {"a.json", "b.json"}); })
                .find("key 'settings.calibration' is 30 poses, in a.json (none)"),
            std::string::npos);
  b.settings.clear();  // an older vcloe's table
  EXPECT_NE(test::error_of([&] { report::common_settings({a, b}, {"a.json", "b.json"}); }).find("b.json: records no settings"),
            std::string::npos);
  b.settings.clear();
  report::StudyResult c = b;
  EXPECT_TRUE(report::common_settings({b, c}, {"b.json", "c.json"}).empty()) << "older tables merge with each other";
  nlohmann::json bad = written;
  bad["settings"]["seeds"] = 4;
  EXPECT_NE(test::error_of([&] { report::study_from_json(bad, "a.json"); }).find("a.json: key 'settings.seeds'"),
            std::string::npos);
}

// The realistic chain's row (docs/calibration.md, "The chain"): both fits of one truth, the
// calibration's figures and the latency beside them; each fit summarised on its own, drawn as
// two lines of one truth, read back to the same bytes.
TEST(StudyTable, ARealisticRowCarriesBothFitsAndEachIsSummarisedOnItsOwn) {
  const auto t = truth_with({{"m_p", 20.0}, {"lp", 300.0}});
  report::IdentificationReport drawn = ident({}), calibrated = ident({parameter("m_p", 20.05, 0.1), parameter("lp", 303.5, 1.0)});
  calibrated.latency.fitted = true, calibrated.latency.value = 1.2e-3, calibrated.latency.sigma = 3e-5;
  report::TruthRow row = report::make_row(3, t, drawn, kFloor, validation(30.0));
  row.calibrated = report::make_fit("calibrated", t, calibrated, kFloor, validation(1.1));
  row.calibration = report::CalibrationFigures{0.8, 27.0};
  row.latency_truth = 1.25e-3;
  const std::vector<report::TruthRow> rows = {row, report::failed_row(4, "run: stopped")};
  const report::StudySummary without = report::summarise(rows), with = report::summarise(rows, true);
  EXPECT_EQ(without.parameters, 0);
  EXPECT_EQ(with.parameters, 2);
  EXPECT_EQ(with.within3, 1);  // lp at 3.5 sigma
  EXPECT_EQ(with.failed, 1);
  const std::string table = report::markdown_table(rows, without);
  EXPECT_NE(table.find("| 3 | drawn |  | 1.20 | 30.00 | 0 of " + std::to_string(vcloe::sim::kNumLambda) + " | – | – | – | no | not fitted (1.250) |"), std::string::npos) << table;
  EXPECT_NE(table.find("| 3 | calibrated | 0.80 × noise, 27 CPU-s | 1.20 | 1.10 | 2 of " + std::to_string(vcloe::sim::kNumLambda) + " | 1 / 1 of 2 | lp 3.5 | 1.2 % lp | no | "
                       "1.200 ± 0.030 (1.250) |"),
            std::string::npos) << table;
  EXPECT_NE(table.find("Calibrated first (identified from the calibrated robot file, the drawn file the controller): 2 identified"),
            std::string::npos) << table;
  const nlohmann::json written = report::study_json(rows, without);
  const report::StudyResult back = report::study_from_json(written, "s.json");
  ASSERT_TRUE(back.rows[0].calibrated && back.rows[0].calibration && back.summary_calibrated);
  EXPECT_EQ(back.rows[0].calibrated->identified, 2);
  EXPECT_EQ(back.summary_calibrated->within3, 1);
  EXPECT_EQ(report::study_json(back.rows, back.summary).dump(), written.dump());
}

// Each fit of a realistic row fails on its own (its identify or validate step): the fit from the
// drawn file failing keeps the calibrated one, and the other way round — each line says why, each
// summary counts only its own fits, and the JSON reads back to the same bytes.
TEST(StudyTable, ARealisticFitThatFailsIsItsOwnLineAndTheOtherFitStands) {
  const auto t = truth_with({{"m_p", 20.0}, {"lp", 300.0}});
  const report::IdentificationReport good = ident({parameter("m_p", 20.05, 0.1), parameter("lp", 300.5, 1.0)});
  report::TruthRow a;  // the drawn fit failed, the calibrated one stands
  static_cast<report::FitFigures&>(a) = report::failed_fit("identify: priors refused");
  a.seed = 5, a.latency_truth = 1e-3, a.calibrated = report::make_fit("calibrated", t, good, kFloor, validation(1.1));
  report::TruthRow b = report::make_row(6, t, good, kFloor, validation(1.2));  // the other way round
  b.latency_truth = 2e-3, b.calibrated = report::failed_fit("identify-calibrated: model not written");
  const std::vector<report::TruthRow> rows = {a, b};
  const report::StudySummary drawn = report::summarise(rows), calibrated = report::summarise(rows, true);
  EXPECT_EQ(drawn.failed, 1);
  EXPECT_EQ(drawn.parameters, 2);
  EXPECT_EQ(calibrated.failed, 1);
  EXPECT_EQ(calibrated.parameters, 2);
  const std::string table = report::markdown_table(rows, drawn);
  EXPECT_NE(table.find("| 5 | drawn |  | — | — | — | — | — | — | — | — | — | no result: identify: priors refused |"),
            std::string::npos) << table;
  EXPECT_NE(table.find("| 5 | calibrated |  | 1.20 | 1.10 | 2 of "), std::string::npos) << table;
  EXPECT_NE(table.find("| 6 | drawn |  | 1.20 | 1.20 | 2 of "), std::string::npos) << table;
  EXPECT_NE(table.find("| 6 | calibrated |  | — | — | — | — | — | — | — | — | — | no result: identify-calibrated: model not written |"),
            std::string::npos) << table;
  const nlohmann::json written = report::study_json(rows, drawn);
  const report::StudyResult back = report::study_from_json(written, "s.json");
  ASSERT_EQ(back.rows.size(), 2u);
  EXPECT_EQ(back.rows[0].no_result, "identify: priors refused");
  ASSERT_TRUE(back.rows[0].calibrated && back.rows[1].calibrated);
  EXPECT_EQ(back.rows[0].calibrated->identified, 2);
  EXPECT_EQ(back.rows[1].calibrated->no_result, "identify-calibrated: model not written");
  EXPECT_EQ(report::study_json(back.rows, back.summary).dump(), written.dump());
  nlohmann::json alone = written;  // a drawn fit's failure without a calibrated fit beside it
  alone["truths"][0].erase("calibrated");
  EXPECT_THROW(report::study_from_json(alone, "s.json"), Error);
}

// Session 20's probe, K2: a shard whose m_p truth is -19.6 kg was merged ("-200.4 % m_p, 95.45
// sigma"). A truth no robot has is refused at its key, for a mass and a gain; a first moment is
// signed and stays accepted (study merge's reader, the shards' one reader).
TEST(StudyJson, ATruthNoRobotHasIsRefusedAtItsKey) {
  const auto t = truth_with({{"m_p", 20.0}, {"lp", 300.0}});
  const report::TruthRow a = report::make_row(1, t, ident({parameter("m_p", 20.05, 0.1), parameter("lp", 301.5, 1.0)}), kFloor,
                                              validation(1.0));
  const nlohmann::json written = report::study_json({a}, report::summarise({a}));
  for (const int k : {0, 1})
    for (const double truth : {-19.6, -1e-9}) {
      nlohmann::json j = written;
      j["truths"][0]["parameters"][k]["truth"] = truth;
      const std::string e = test::error_of([&] { report::study_from_json(j, "s.json"); });
      const std::string head = "s.json: key 'truths[0].parameters[" + std::to_string(k) + "].truth': expected a value " +
                               (k == 0 ? "m_p" : "lp") + " can have (not negative";
      EXPECT_EQ(e.rfind(head, 0), 0u) << e;
    }
}
