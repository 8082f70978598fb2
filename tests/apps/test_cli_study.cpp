// Specification of `vcloe study` (workflow/src/study.cpp, docs/identification.md "Truths it was
// not tuned on"): the chain per truth as child processes, the table and the JSON; refusals.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using cli_test::CommandResult;
using cli_test::vcloe;


// `vcloe study` end to end on one truth (2 s records, one LM iteration, one validation
// trajectory): each step's files in truth-SEED/, the table and the JSON with the truth's row and
// every identified parameter checked against the truth it drew; and its refusals.
TEST(CliStudy, RunsTheChainPerTruthAndWritesTheTableAndTheJson) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-study", "one");
  const fs::path ref = d / "short.yaml", settings = d / "quick.yaml", dir = d / "study";
  ASSERT_EQ(vcloe("trajectory random --seed 4 --duration 2 --out " + ref.string()).status, 0);
  std::ofstream(settings) << "anchor: {type: payload}\npayload: {mass: 5, inertia: [0.02, 0.02, 0.03]}\n"
                             "stopping: {max_iterations: 1}\nhorizons: [1.0]\n";
  const std::string args = "study --truths 1 --seed 7 --n 1 --quiet --reference " + ref.string() + " --config " +
                           settings.string() + " --dir " + dir.string();
  const CommandResult c = vcloe(args);
  ASSERT_EQ(c.status, 0) << c.out;
  for (const char* f : {"truth.yaml", "measured.csv", "measured-payload.csv", "identified.yaml", "validate.out"})
    EXPECT_TRUE(fs::exists(dir / "truth-7" / f)) << f;
  const auto study = nlohmann::json::parse(cli_test::read_file(dir / "study.json"));
  ASSERT_EQ(study["truths"].size(), 1u);
  EXPECT_EQ(study["truths"][0]["seed"], 7);
  EXPECT_EQ(study["summary"]["parameters"].get<int>(), study["truths"][0]["identified"].get<int>());
  EXPECT_NE(cli_test::read_file(dir / "study.md").find("| 7 | "), std::string::npos);
  // Refusals: an existing directory without --force, a count out of range.
  const CommandResult again = vcloe(args);
  EXPECT_EQ(again.status, 2);
  EXPECT_NE(again.out.find("exists; pass --force"), std::string::npos) << again.out;
  const CommandResult none = vcloe("study --truths 0 --dir " + (d / "none").string());
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.out.find("--truths: expected 1 to 1000 truths, got 0"), std::string::npos) << none.out;
}
