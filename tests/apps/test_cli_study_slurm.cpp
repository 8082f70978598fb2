// `vcloe study --slurm` on a real Slurm: a single-node cluster started for this test by
// scripts/slurm-single-node (ctest fixture "slurm", tests/CMakeLists.txt; SLURM_CONF names it).
// The cluster's rows equal a local study's, row for row.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_fixtures.hpp"
#include "vcloe/report/study.hpp"

namespace fs = std::filesystem;
using cli_test::CommandResult;

namespace {

// A row as the study writes it, less the wall and CPU time its identify took (the machine's, not
// the fit's).
nlohmann::json without_time(const vcloe::report::TruthRow& row) {
  nlohmann::json j = vcloe::report::study_json({row}, vcloe::report::summarise({row}))["truths"][0];
  j.erase("seconds");
  j.erase("cpu_seconds");
  return j;
}

}  // namespace

// Two truths (2 s records, one LM iteration, one 2 s validation trajectory) run here and as a job
// array of two tasks and a merge job: the same rows, the task logs and scripts in DIR/slurm/.
TEST(CliStudySlurm, TheClustersRowsEqualTheLocalRows) {
  ASSERT_NE(std::getenv("SLURM_CONF"), nullptr) << "run through ctest: the fixture starts the cluster";
  const fs::path d = cli_test::fresh_dir("vcloe-cli-slurm", "study");
  const fs::path ref = d / "short.yaml", settings = d / "quick.yaml";
  ASSERT_EQ(cli_test::run_vcloe("trajectory random --seed 4 --duration 2 --out " + ref.string()).status, 0);
  std::ofstream(settings) << "anchor: {type: payload}\npayload: {mass: 5, inertia: [0.02, 0.02, 0.03]}\n"
                             "stopping: {max_iterations: 1}\nhorizons: [1.0]\n"
                             "start: {check: false}\n";  // (no second start: not what this specifies)
  const std::string args = "study --truths 2 --seed 11 --n 1 --validation-duration 2 --quiet --reference " + ref.string() + " --config " +
                           settings.string() + " --dir ";
  const CommandResult local = cli_test::run_vcloe(args + (d / "local").string());
  ASSERT_EQ(local.status, 0) << local.out;
  const CommandResult cluster = cli_test::run_vcloe(args + (d / "cluster").string() + " --slurm --wait");
  ASSERT_EQ(cluster.status, 0) << cluster.out;
  EXPECT_NE(cluster.out.find("submitted job array "), std::string::npos) << cluster.out;
  EXPECT_NE(cluster.out.find("(merge job "), std::string::npos) << cluster.out;
  for (const char* f : {"slurm/array.sbatch", "slurm/merge.sbatch", "slurm/truth-1.out", "slurm/truth-2.out",
                        "shard-1/truth-11/identified.yaml", "shard-2/truth-12/identified.yaml", "study.md"})
    EXPECT_TRUE(fs::exists(d / "cluster" / f)) << f;
  const auto here = vcloe::report::read_study((d / "local" / "study.json").string());
  const auto there = vcloe::report::read_study((d / "cluster" / "study.json").string());
  ASSERT_EQ(here.rows.size(), 2u);
  ASSERT_EQ(there.rows.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(here.rows[i].failed.empty()) << here.rows[i].failed;
    EXPECT_EQ(without_time(here.rows[i]), without_time(there.rows[i])) << "truth " << here.rows[i].seed;
  }
}

// sbatch refusing a submission is one line naming the script and sbatch's own words.
TEST(CliStudySlurm, ARefusedSubmissionIsNamed) {
  ASSERT_NE(std::getenv("SLURM_CONF"), nullptr) << "run through ctest: the fixture starts the cluster";
  const fs::path d = cli_test::fresh_dir("vcloe-cli-slurm", "refused");
  const fs::path ref = d / "short.yaml";
  ASSERT_EQ(cli_test::run_vcloe("trajectory random --seed 4 --duration 2 --out " + ref.string()).status, 0);
  const CommandResult r = cli_test::run_vcloe("study --truths 1 --slurm --slurm-option partition=nosuch --reference " +
                                              ref.string() + " --dir " + (d / "s").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("vcloe: error: " + (d / "s" / "slurm" / "array.sbatch").string() + ": sbatch refused it (exit status 1): "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("nosuch"), std::string::npos) << r.out;
}
