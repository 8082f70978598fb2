// Specification of `vcloe study` (workflow/src/study.cpp, docs/identification.md "Truths it was
// not tuned on"): the chain per truth as child processes, the table and the JSON; refusals.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_fixtures.hpp"
#include "vcloe/report/study.hpp"

namespace fs = std::filesystem;
using cli_test::CommandResult;

// `vcloe study` end to end on one truth (2 s records, one LM iteration, one validation
// trajectory): each step's files in truth-SEED/, the table and the JSON with the truth's row and
// every identified parameter checked against the truth it drew; and its refusals.
TEST(CliStudy, RunsTheChainPerTruthAndWritesTheTableAndTheJson) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-study", "one");
  const fs::path ref = d / "short.yaml", settings = d / "quick.yaml", dir = d / "study";
  ASSERT_EQ(cli_test::run_vcloe("trajectory random --seed 4 --duration 2 --out " + ref.string()).status, 0);
  std::ofstream(settings) << "anchor: {type: payload}\npayload: {mass: 5, inertia: [0.02, 0.02, 0.03]}\n"
                             "stopping: {max_iterations: 1}\nhorizons: [1.0]\n";
  const std::string args = "study --truths 1 --seed 7 --n 1 --quiet --reference " + ref.string() + " --config " +
                           settings.string() + " --dir " + dir.string();
  const CommandResult c = cli_test::run_vcloe(args);
  ASSERT_EQ(c.status, 0) << c.out;
  for (const char* f : {"truth.yaml", "measured.csv", "measured-payload.csv", "identified.yaml", "validate.out"})
    EXPECT_TRUE(fs::exists(dir / "truth-7" / f)) << f;
  const vcloe::report::StudyResult study = vcloe::report::read_study((dir / "study.json").string());
  ASSERT_EQ(study.rows.size(), 1u);
  EXPECT_EQ(study.rows[0].seed, 7u);
  EXPECT_EQ(study.summary.parameters, study.rows[0].identified);
  EXPECT_NE(cli_test::read_file(dir / "study.md").find("| 7 | "), std::string::npos);
  // Refusals: an existing directory without --force, a count out of range.
  const CommandResult again = cli_test::run_vcloe(args);
  EXPECT_EQ(again.status, 2);
  EXPECT_NE(again.out.find("exists; pass --force"), std::string::npos) << again.out;
  const CommandResult none = cli_test::run_vcloe("study --truths 0 --dir " + (d / "none").string());
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.out.find("--truths: expected 1 to 1000 truths, got 0"), std::string::npos) << none.out;
}
