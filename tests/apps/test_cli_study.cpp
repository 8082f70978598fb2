// Specification of `vcloe study` (workflow/src/study.cpp, docs/identification.md "Truths it was
// not tuned on"): the chain per truth as child processes, the table and the JSON; refusals.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "cli_fixtures.hpp"
#include "vcloe/core/defaults.hpp"
#include "vcloe/core/file_record.hpp"
#include "vcloe/report/study.hpp"
#include "vcloe/sim/robot.hpp"
#include "vcloe/workflow/study.hpp"

namespace fs = std::filesystem;
using cli_test::CommandResult;

namespace test_cli_study {

// Every file the study of `o` (as the command line gave it, the priors and experiment the
// defaults) wrote is one its input/output check declared (study_plan): none can be written over
// an input unchecked. The number of files written.
int written_and_undeclared(vcloe::workflow::StudyOptions o) {
  o.priors = vcloe::defaults::robot_file(), o.experiment = vcloe::defaults::experiment_file();
  const std::vector<std::string> declared = vcloe::workflow::study_plan(o).output_paths();
  const std::set<std::string> planned(declared.begin(), declared.end());
  int written = 0;
  for (const auto& e : fs::recursive_directory_iterator(o.dir))
    if (e.is_regular_file()) {
      ++written;
      EXPECT_EQ(planned.count(e.path().string()), 1u) << e.path() << " was written but not declared";
    }
  return written;
}

}  // namespace test_cli_study

// `vcloe study` end to end on one truth (2 s records, one LM iteration, one validation
// trajectory): each step's files in truth-SEED/, the table and the JSON with the truth's row and
// every identified parameter checked against the truth it drew; and its refusals.
TEST(CliStudy, RunsTheChainPerTruthAndWritesTheTableAndTheJson) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-study", "one");
  const fs::path ref = d / "short.yaml", settings = d / "quick.yaml", dir = d / "study";
  ASSERT_EQ(cli_test::run_vcloe("trajectory random --seed 4 --duration 2 --out " + ref.string()).status, 0);
  std::ofstream(settings) << "anchor: {type: payload}\npayload: {mass: 5, inertia: [0.02, 0.02, 0.03]}\n"
                             "stopping: {max_iterations: 1}\nhorizons: [1.0]\n"
                             "start: {check: false}\n";  // (no second start: not what this specifies)
  // The second of two shards of truths 4..7 runs truths 5 and 7. Truth 5's chain cannot finish
  // (its trace's name is taken by a directory): a row that says why, and the study goes on.
  fs::create_directories(dir / "truth-5" / "measured.csv");
  const std::string args = "study --truths 4 --seed 4 --shard 2/2 --n 1 --validation-duration 2 --quiet --reference " + ref.string() +
                           " --config " + settings.string() + " --dir " + dir.string();
  const CommandResult c = cli_test::run_vcloe(args + " --force");
  ASSERT_EQ(c.status, 0) << c.out;
  for (const char* f : {"truth.yaml", "measured.csv", "measured-payload.csv", "identified.yaml", "validate.out"})
    EXPECT_TRUE(fs::exists(dir / "truth-7" / f)) << f;
  const vcloe::report::StudyResult study = vcloe::report::read_study((dir / "study.json").string());
  ASSERT_EQ(study.rows.size(), 2u);
  EXPECT_EQ(study.rows[0].seed, 5u);
  EXPECT_EQ(study.rows[0].failed, "run: " + (dir / "truth-5" / "measured.csv").string() + ": is a directory, expected a file name");
  EXPECT_EQ(study.rows[1].seed, 7u);
  EXPECT_TRUE(study.rows[1].failed.empty());
  EXPECT_EQ(study.summary.failed, 1);
  EXPECT_EQ(study.summary.parameters, study.rows[1].identified);
  const std::string table = cli_test::read_file(dir / "study.md");
  EXPECT_NE(table.find("| 7 | "), std::string::npos) << table;
  EXPECT_NE(table.find("| 5 | — | — | — | — | — | — | — | — | — | no result: run: "), std::string::npos) << table;
  EXPECT_NE(table.find("1 of 2 truths have no result"), std::string::npos) << table;
  EXPECT_FALSE(fs::exists(dir / "truth-4") || fs::exists(dir / "truth-6")) << "the first shard's truths";
  vcloe::workflow::StudyOptions o;
  o.truths = 4, o.seed = 4, o.shard = 2, o.shards = 2, o.n = 1, o.force = true;
  o.reference = ref.string(), o.config = settings.string(), o.dir = dir.string();
  EXPECT_GE(test_cli_study::written_and_undeclared(o), 20);  // truth 7's chain, truth 5's first steps, the tables
  // `study merge` joins shards' tables by seed; the same truth in two of them is refused.
  const CommandResult merged = cli_test::run_vcloe("study merge --out " + (d / "merged").string() + " " + dir.string());
  ASSERT_EQ(merged.status, 0) << merged.out;
  EXPECT_EQ(vcloe::report::read_study((d / "merged" / "study.json").string()).rows.size(), 2u);
  const CommandResult twice = cli_test::run_vcloe("study merge --out " + (d / "twice").string() + " " + dir.string() + " " +
                                                  dir.string());
  EXPECT_EQ(twice.status, 2);
  EXPECT_NE(twice.out.find("study.json: truth 5 is also in "), std::string::npos) << twice.out;
  // Refusals: an existing directory without --force, a count out of range.
  const CommandResult again = cli_test::run_vcloe(args);
  EXPECT_EQ(again.status, 2);
  EXPECT_NE(again.out.find("exists; pass --force"), std::string::npos) << again.out;
  const CommandResult none = cli_test::run_vcloe("study --truths 0 --dir " + (d / "none").string());
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.out.find("--truths: expected 1 to 1000 truths, got 0"), std::string::npos) << none.out;
  const CommandResult shard = cli_test::run_vcloe("study --shard 3/2 --dir " + (d / "none").string());
  EXPECT_EQ(shard.status, 2);
  EXPECT_NE(shard.out.find("--shard: expected K/N with 1 <= K <= N <= 1000, got 3/2"), std::string::npos) << shard.out;
  const CommandResult words = cli_test::run_vcloe("study --shard two/3 --dir " + (d / "none").string());
  EXPECT_EQ(words.status, 2);
  EXPECT_NE(words.out.find("expected K/N (whole numbers"), std::string::npos) << words.out;
}

// `vcloe study --realistic` end to end (docs/calibration.md, "The chain"): per truth the
// calibration and both fits — from the drawn file and from the calibrated one — in one row, the
// calibrated fit's model naming the drawn file it was calibrated from; a truth whose run cannot
// finish is a row that says why, and a fit that fails is its own line's "no result", the other
// fit kept. (Tiny settings: 2 s records and validation trajectories, one LM
// iteration, 10 static poses held 0.05 s.)
TEST(CliStudy, TheRealisticChainCarriesBothFitsPerTruthAndAStoppedStepIsARow) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-study", "realistic");
  const fs::path ref = d / "short.yaml", settings = d / "quick.yaml", dir = d / "study";
  ASSERT_EQ(cli_test::run_vcloe("trajectory random --seed 4 --duration 2 --out " + ref.string()).status, 0);
  std::ofstream(settings) << "anchor: {type: payload}\npayload: {mass: 5, inertia: [0.02, 0.02, 0.03]}\n"
                             "stopping: {max_iterations: 1}\nhorizons: [1.0]\nstart: {check: false}\n";
  fs::create_directories(dir / "truth-12" / "measured.csv");  // truth 12's run cannot be written
  fs::create_directories(dir / "truth-11" / "identified.yaml");  // nor truth 11's fit from the drawn file
  const CommandResult c = cli_test::run_vcloe(
      "study --realistic --com 0 --truths 2 --seed 11 --n 1 --validation-duration 2 --calibration-poses 10 "
      "--calibration-candidates 100 --calibration-move 0.5 --calibration-settle 0 --calibration-hold 0.05 --quiet --force "
      "--reference " + ref.string() + " --config " + settings.string() + " --dir " + dir.string());
  ASSERT_EQ(c.status, 0) << c.out;
  const vcloe::report::StudyResult study = vcloe::report::read_study((dir / "study.json").string());
  ASSERT_EQ(study.rows.size(), 2u);
  const vcloe::report::TruthRow& r = study.rows[0];
  ASSERT_TRUE(r.failed.empty()) << r.failed;
  ASSERT_TRUE(r.calibrated && r.calibration);
  EXPECT_GT(r.calibration->residual_over_noise, 0);
  EXPECT_NE(r.latency_truth, 0);  // the default latency departure was drawn
  // The fit from the drawn file failed (its model cannot be written): that line says why, and the
  // calibrated fit still ran and stands.
  EXPECT_EQ(r.no_result.rfind("identify: ", 0), 0u) << r.no_result;
  EXPECT_NE(r.no_result.find("identified.yaml"), std::string::npos) << r.no_result;
  ASSERT_TRUE(r.calibrated->no_result.empty()) << r.calibrated->no_result;
  EXPECT_GT(r.calibrated->after_over_floor, 0);
  EXPECT_GT(r.calibrated->validation_over_floor, 0);
  EXPECT_EQ(study.rows[1].failed.rfind("run: ", 0), 0u) << study.rows[1].failed;
  ASSERT_TRUE(study.summary_calibrated);
  EXPECT_EQ(study.summary_calibrated->failed, 1);
  EXPECT_EQ(study.summary.failed, 2);  // the drawn file's fits: truth 11's failed, truth 12 has none
  // The model identified from the calibrated file is that calibration's plant: its head names the drawn file.
  const vcloe::FileRecord from = vcloe::sim::calibrated_from(cli_test::read_file(dir / "truth-11" / "identified-calibrated.yaml"));
  EXPECT_EQ(from.sha256, vcloe::file_record(vcloe::defaults::robot_file()).sha256);
  const std::string table = cli_test::read_file(dir / "study.md");
  EXPECT_NE(table.find("| 11 | drawn |  | — | — | — | — | — | — | — | — | — | no result: identify: "), std::string::npos) << table;
  EXPECT_NE(table.find("| 11 | calibrated | "), std::string::npos) << table;
  EXPECT_NE(table.find("| 12 | — |"), std::string::npos) << table;
  EXPECT_NE(table.find("Calibrated first"), std::string::npos) << table;
  vcloe::workflow::StudyOptions o;
  o.truths = 2, o.seed = 11, o.force = true, o.departures.realistic = true;
  o.reference = ref.string(), o.config = settings.string(), o.dir = dir.string();
  EXPECT_GE(test_cli_study::written_and_undeclared(o), 30);  // truth 11's two fits and calibration, truth 12's first steps
}

namespace test_cli_study {

// Every process whose command line mentions `text` (a study's directory).
std::vector<int> processes_mentioning(const std::string& text) {
  std::vector<int> found;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "cmdline", std::ios::binary);
    const std::string cmd((std::istreambuf_iterator<char>(in)), {});
    if (cmd.find(text) != std::string::npos) found.push_back(std::stoi(name));
  }
  return found;
}

TEST(CliStudy, ASignalToTheStudyIsPassedOnToTheRunningStepAndWaitedFor) {
  // SIGTERM to `study` ended the study alone; the running step went on writing.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-study", "signal");
  const fs::path ref = d / "short.yaml", settings = d / "quick.yaml", dir = d / "study", log = d / "study.log";
  ASSERT_EQ(cli_test::run_vcloe("trajectory random --seed 4 --duration 2 --out " + ref.string()).status, 0);
  std::ofstream(settings) << "anchor: {type: payload}\npayload: {mass: 5, inertia: [0.02, 0.02, 0.03]}\n"
                             "stopping: {max_iterations: 3}\nhorizons: [1.0]\n";
  const pid_t study = ::fork();
  if (study == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1), ::dup2(fd, 2);
    ::execl(VCLOE_BINARY, "vcloe", "study", "--truths", "1", "--n", "1", "--quiet", "--reference", ref.c_str(), "--config",
            settings.c_str(), "--dir", dir.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Once the identify step runs (the longest of the chain), SIGTERM to the study alone.
  for (int i = 0; i < 3000 && !fs::exists(dir / "truth-1" / "identify.err"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(fs::exists(dir / "truth-1" / "identify.err")) << cli_test::read_file(log);
  ::kill(study, SIGTERM);
  int status = 0;
  ::waitpid(study, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status << "\n" << cli_test::read_file(log);
  EXPECT_NE(cli_test::read_file(log).find("vcloe: error: step 'identify (truth 1)': interrupted by SIGTERM, passed on to the "
                                          "step, which has ended"),
            std::string::npos)
      << cli_test::read_file(log);
  EXPECT_TRUE(processes_mentioning(dir.string()).empty());  // nothing left running, nothing left writing
  EXPECT_FALSE(fs::exists(dir / "truth-1" / "identified.yaml"));
}

}  // namespace test_cli_study
