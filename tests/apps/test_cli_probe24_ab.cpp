// Specification of the command line on session 24's probe, classes A and B (docs/robustness.md,
// "Session 24's probe"): the commands that run steps into a directory (`study`, its Slurm path,
// `demo`) declare every file they and their steps will write in their one input/output check, so
// an input at any of those names is refused in one line before any work, naming both — never
// written over (A), never left to a step to refuse in two lines or in a table (B).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using cli_test::CommandResult;
using cli_test::run_shell;
using cli_test::run_vcloe;

namespace test_cli_probe24_ab {

const std::string& config = cli_test::config_dir;

// Every entry under `dir` with its bytes (a directory: ""): what "nothing was written" compares.
std::map<std::string, std::string> contents(const fs::path& dir) {
  std::map<std::string, std::string> all;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    all[fs::relative(e.path(), dir).string()] = e.is_regular_file() ? cli_test::read_file(e.path()) : "";
  return all;
}

// The entries of `after` added, removed or changed since `before`, by name ("" if none).
std::string changed(const std::map<std::string, std::string>& before, const std::map<std::string, std::string>& after) {
  std::string names;
  for (const auto& [name, bytes] : after)
    if (!before.count(name) || before.at(name) != bytes) names += " " + name;
  for (const auto& [name, bytes] : before)
    if (!after.count(name)) names += " -" + name;
  return names;
}

// One refusal: exit 2, one line `<output>: is also an input of this command (<input>, <role>…`,
// within 5 s, and nothing under `root` created, removed or changed.
void expect_refused_before_any_work(const std::string& command, const fs::path& root, const std::string& expected) {
  const std::map<std::string, std::string> before = contents(root);
  const auto t0 = std::chrono::steady_clock::now();
  const CommandResult r = run_shell("timeout 20 " + command + " 2>&1");  // (a study not refused would run for minutes)
  EXPECT_EQ(r.status, 2) << command << "\n" << r.out;
  EXPECT_EQ(r.out.rfind("vcloe: error: ", 0), 0u) << command << "\n" << r.out;
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line: " << command << "\n" << r.out;
  EXPECT_NE(r.out.find(expected), std::string::npos) << command << "\n" << r.out;
  EXPECT_NE(r.out.find("refusing to overwrite it even with --force"), std::string::npos) << r.out;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0) << command;
  EXPECT_EQ(changed(before, contents(root)), "") << "written: " << command;
}

// Probe 24, A and B: `study --dir s --force` wrote its tables, its steps' logs and files, and its
// Slurm scripts over an input that lived at one of those names (7 data-loss), or left the
// collision to a step (a row in the table, a last line naming neither file). Each input at each
// kind of name the study writes — its tables, a step's log, a truth's file, a trace's sidecar, a
// model's report, the excitation it optimises, a Slurm script, a task's log, a shard's file.
TEST(CliProbe24, NoFileAStudyOrItsStepsWriteIsOneOfItsInputs) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe24", "study");
  const std::map<std::string, std::string> source = {{"--priors", config + "robot.yaml"},
                                                     {"--config", config + "identify.yaml"},
                                                     {"--experiment", config + "experiment.yaml"},
                                                     {"--reference", config + "reference.yaml"}};
  struct Case {
    std::string input, at, words;  // the input's option, its name in the study's directory, more options
  };
  const std::vector<Case> cases = {
      {"--priors", "study.json", ""},
      {"--config", "study.md", ""},
      {"--experiment", "truth-1/run.out", ""},
      {"--config", "truth-1/identify.err", ""},
      {"--priors", "truth-1/truth.yaml", ""},
      {"--reference", "truth-1/measured.csv", ""},
      {"--reference", "truth-2/measured-payload.csv.meta.json", "--truths 2"},
      {"--experiment", "truth-1/identified.yaml.report.json", ""},
      {"--priors", "truth-1/validate-calibrated.out", "--realistic"},
      {"--config", "truth-1/calibration.json", "--realistic"},
      {"--experiment", "excitation.yaml", "--no-reference"},
      {"--priors", "slurm/array.sbatch", "--slurm"},
      {"--config", "slurm/truth-2.out", "--slurm --truths 2"},
      {"--reference", "shard-1/truth-1/validate.err", "--slurm"},
  };
  int k = 0;
  for (const Case& c : cases) {
    const fs::path root = d / std::to_string(++k), s = root / "s", input = s / c.at;
    fs::create_directories(input.parent_path());
    fs::copy_file(source.at(c.input), input);
    std::string command = std::string(VCLOE_BINARY) + " study --n 1 --quiet --dir " + s.string() + " --force";
    for (const auto& [option, file] : source)
      if (option != "--reference" || c.words != "--no-reference")
        command += " " + option + " " + (option == c.input ? input.string() : file);
    if (c.words != "--no-reference") command += " " + c.words;
    expect_refused_before_any_work(command, root,
                                   (s / c.at).string() + ": is also an input of this command (" + input.string() + ", " + c.input + ")");
  }
}

// Probe 24, B: `demo --dir` on the directory of the default configs (itself, or a link to it)
// was refused by step 1 in two lines (the step's, then the demo's "step … failed"). A default
// config file at any name a step of the demo writes — the excitation, a model, a trace, the
// report, through the directory itself, a link to it or a link at the config's name — is
// refused by the demo in one line before any step.
TEST(CliProbe24, NoFileTheDemosStepsWriteIsOneOfItsConfigs) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe24", "demo");
  auto configs = [&](const fs::path& c) {
    fs::create_directories(c);
    for (const char* f : {"robot.yaml", "truth.yaml", "experiment.yaml", "excitation.yaml", "identify.yaml"})
      fs::copy_file(config + f, c / f);
  };
  auto demo = [](const fs::path& c, const fs::path& dir) {
    return "env VCLOE_CONFIG_DIR=" + c.string() + " " + VCLOE_BINARY + " demo --n 1 --force --dir " + dir.string();
  };
  const fs::path same = d / "same";  // the config directory is the demo's
  configs(same);
  expect_refused_before_any_work(demo(same, same), d,
                                 (same / "excitation.yaml").string() + ": is also an input of this command (" +
                                     (same / "excitation.yaml").string() + ", the default excitation settings");
  const fs::path c2 = d / "c2", link = d / "link";  // --dir a link to it
  configs(c2);
  fs::create_directory_symlink(c2, link);
  expect_refused_before_any_work(demo(c2, link), d,
                                 (link / "excitation.yaml").string() + ": is also an input of this command (" +
                                     (c2 / "excitation.yaml").string() + ", the default excitation settings");
  // A config kept in the demo's directory under a name a step writes, linked from the configs.
  struct Case {
    std::string config, at, role;
  };
  const std::vector<Case> cases = {{"robot.yaml", "identified.yaml", "the default robot file"},
                                   {"truth.yaml", "loads.csv.meta.json", "the default truth"},
                                   {"experiment.yaml", "measured-payload.csv", "the default experiment"},
                                   {"identify.yaml", "report.html", "the identification settings"}};
  int k = 0;
  for (const Case& c : cases) {
    const fs::path root = d / std::to_string(++k), cfg = root / "c", out = root / "out";
    configs(cfg);
    fs::create_directories(out);
    fs::rename(cfg / c.config, out / c.at);
    fs::create_symlink(out / c.at, cfg / c.config);
    expect_refused_before_any_work(demo(cfg, out), root,
                                   (out / c.at).string() + ": is also an input of this command (" + (cfg / c.config).string() +
                                       ", " + c.role);
  }
}

// An sbatch whose answer is not a job id (one that ignores --parsable, a stand-in) exits 0, and
// was said as "sbatch refused it (exit status 0): " with nothing after it (probe 27, class F): now
// what it printed and what was expected.
TEST(CliProbe27, AnSbatchAnswerThatIsNotAJobIdIsSaidAsSuch) {
  // Probe 27, F: sbatch's usual sentence; probe 28, G: 0 and a number no 32-bit job id holds.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe27", "sbatch");
  fs::create_directories(d / "bin");
  const std::string ref = (d / "r.yaml").string();
  ASSERT_EQ(run_vcloe("trajectory random --seed 4 --duration 0.5 --out " + ref).status, 0);
  for (const std::string answer : {"Submitted batch job 4242", "0", "99999999999999999999999", "4294967294"}) {
    std::ofstream(d / "bin" / "sbatch") << "#!/bin/sh\necho '" << answer << "'\n";
    fs::permissions(d / "bin" / "sbatch", fs::perms::owner_all);
    fs::remove_all(d / "s");
    const CommandResult r = run_shell("PATH=" + (d / "bin").string() + ":$PATH " + std::string(VCLOE_BINARY) + " study --dir " +
                                      (d / "s").string() + " --reference " + ref +
                                      " --truths 1 --n 1 --validation-duration 1 --slurm --quiet 2>&1");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_EQ(r.out, "vcloe: error: " + (d / "s" / "slurm" / "array.sbatch").string() + ": sbatch (exit status 0) printed '" +
                         answer + "' where a job id was expected (sbatch --parsable prints the id alone, a whole number " +
                         "from 1 to 4294967293)\n");
  }
}

}  // namespace test_cli_probe24_ab
