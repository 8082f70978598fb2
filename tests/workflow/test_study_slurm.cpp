// Specification of `vcloe study --slurm`'s scripts and options (workflow/study_slurm.hpp); the
// cluster run itself: tests/apps/test_cli_study_slurm.cpp.
#include <gtest/gtest.h>

#include <tuple>

#include "../test_support.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/workflow/study_slurm.hpp"

using vcloe::workflow::StudyOptions;

namespace {

StudyOptions slurm_study() {
  StudyOptions o;
  o.dir = "/data/my study";
  o.reference = "/data/ref's.yaml";
  o.priors = "/cfg/robot.yaml";
  o.config = "/cfg/identify.yaml";
  o.experiment = "/cfg/experiment.yaml";
  o.truths = 3;
  o.seed = 40;
  o.n = 2;
  o.far = true;
  o.slurm.enabled = true;
  return o;
}

}  // namespace

// A word with a quote, spaces or shell characters reaches the program as it is: each is one
// single-quoted word, a ' inside written '\''.
TEST(StudySlurm, ShellWordsQuoteEverything) {
  EXPECT_EQ(vcloe::workflow::shell_word("a b", "--dir"), "'a b'");
  EXPECT_EQ(vcloe::workflow::shell_word("it's", "--dir"), "'it'\\''s'");
  EXPECT_EQ(vcloe::workflow::shell_word("$(rm -rf ~);`x`", "--dir"), "'$(rm -rf ~);`x`'");
  EXPECT_EQ(vcloe::test::error_of([] { vcloe::workflow::shell_word("a\nb", "--reference"); }),
            "--reference: a line break cannot be written into a batch script; rename it");
}

// Task K runs truth K of N (`--shard K/N`) in DIR/shard-K with every option of the study; the
// merge job joins DIR/shard-1 .. DIR/shard-N into DIR.
TEST(StudySlurm, OneTruthPerTaskAndOneMergeOfEveryShard) {
  const auto s = vcloe::workflow::slurm_scripts(slurm_study(), "/opt/vcloe/bin/vcloe");
  EXPECT_NE(s.array.find("exec '/opt/vcloe/bin/vcloe' 'study' '--truths' '3' '--seed' '40' '--n' '2' '--reference' "
                         "'/data/ref'\\''s.yaml' '--priors' '/cfg/robot.yaml' '--config' '/cfg/identify.yaml' "
                         "'--experiment' '/cfg/experiment.yaml' '--far' '--validation-duration' '20' '--quiet' --shard \"$SLURM_ARRAY_TASK_ID/3\" "
                         "--dir '/data/my study'/shard-\"$SLURM_ARRAY_TASK_ID\"\n"),
            std::string::npos)
      << s.array;
  EXPECT_EQ(s.array.rfind("#!/bin/sh\n", 0), 0u);
  EXPECT_NE(s.merge.find("exec '/opt/vcloe/bin/vcloe' 'study' 'merge' '--force' '--out' '/data/my study' "
                         "'/data/my study/shard-1' '/data/my study/shard-2' '/data/my study/shard-3'\n"),
            std::string::npos)
      << s.merge;
}

// The options the job array sets itself, anything not an sbatch option, and --shard are refused
// before anything is written or submitted.
TEST(StudySlurm, OptionsTheScriptsSetAreRefused) {
  auto problem = [](const std::vector<std::string>& sbatch, int shards = 1) {
    StudyOptions o = slurm_study();
    o.slurm.sbatch_options = sbatch;
    o.shards = shards;
    const auto p = o.problem();
    return p ? p->message : std::string();
  };
  EXPECT_EQ(problem({"partition=batch", "time=01:00:00", "exclusive", "mem-per-cpu=2G"}), "");
  EXPECT_EQ(problem({"array=1-9"}), "--slurm-option: --array is set by vcloe study --slurm itself");
  EXPECT_EQ(problem({"dependency=afterok:1"}), "--slurm-option: --dependency is set by vcloe study --slurm itself");
  EXPECT_EQ(problem({"output=x"}), "--slurm-option: --output is set by vcloe study --slurm itself");
  for (const std::string bad : {"--partition=batch", "-p", "=batch", "Partition=x", "part ition=x"})
    EXPECT_EQ(problem({bad}), "--slurm-option: expected an sbatch option's long name and value without the dashes, such "
                              "as partition=batch, got '" + bad + "'");
  EXPECT_EQ(problem({"x\n#SBATCH --array=1"}), "--slurm-option: an sbatch option cannot hold a line break");
  EXPECT_EQ(problem({}, 2), "--shard: --slurm makes the shards itself (one truth per task)");
}

// Probe 18, class L: a shard that holds no truth (K > --truths) ran nothing and printed a coverage
// of 0 %; refused with the options, before anything is written.
TEST(StudyOptions, AShardThatHoldsNoTruthIsRefused) {
  StudyOptions o = slurm_study();
  o.slurm.enabled = false;
  for (const auto& [truths, shard, shards] : {std::tuple{1, 2, 2}, {3, 4, 5}, {1, 1000, 1000}}) {
    o.truths = truths, o.shard = shard, o.shards = shards;
    const auto p = o.problem();
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->message, "--shard: shard " + std::to_string(shard) + "/" + std::to_string(shards) + " of --truths " +
                              std::to_string(truths) + " holds no truth (expected K <= " + std::to_string(truths) + ")");
  }
  o.truths = 3, o.shard = 3, o.shards = 5;  // truth 3
  EXPECT_FALSE(o.problem().has_value());
}
