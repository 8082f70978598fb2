// Specification of the command line on session 25's probe, class B (docs/robustness.md,
// "Session 25's probe"): what a command's figures need — gnuplot on PATH and a directory for
// temporary files under TMPDIR — is checked with its inputs and outputs before any work, by
// every command that draws (`identify --report`, `excite --plot`, `compare --plot`, `report`,
// `demo`); and a report that fails after the model is written says the model is there.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using cli_test::CommandResult;
using cli_test::run_shell;
using cli_test::run_vcloe;

namespace test_cli_probe25_b {

const std::string& config = cli_test::config_dir;

// The entries directly under `dir`, sorted by name.
std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A fast identification: one horizon, three iterations, no second start, latency held.
std::string fast_identify(const fs::path& dir) {
  std::string text = cli_test::read_file(config + "identify.yaml");
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"max_iterations: 40", "max_iterations: 3"}, {"horizons: [0.15, 0.35, 1.0]", "horizons: [1.0]"},
           {"check: true ", "check: false"}, {"fit: true ", "fit: false"}}) {
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
  }
  const std::string path = (dir / "fast-identify.yaml").string();
  std::ofstream(path) << text;
  return path;
}

// The two runs of an identification with a payload anchor, on a 1 s trajectory.
void record_runs(const fs::path& d) {
  const std::string ref = (d / "ref.yaml").string();
  ASSERT_EQ(run_vcloe("trajectory random --seed 2 --duration 1 --out " + ref).status, 0);
  ASSERT_EQ(run_vcloe("run --reference " + ref + " --out " + (d / "run.csv").string()).status, 0);
  ASSERT_EQ(run_vcloe("run --reference " + ref + " --out " + (d / "runp.csv").string() +
                      " --payload-mass 5 --payload-inertia 0.02 0.02 0.03")
                .status,
            0);
}

// Each drawing command, without gnuplot on PATH and then with TMPDIR missing: exit 2 at once, one
// line naming the figure's file, the option and what is missing, and no file created in `d`.
TEST(CliProbe25, EveryCommandThatDrawsChecksGnuplotAndItsTemporaryDirectoryBeforeAnyWork) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe25", "tools");
  const std::string s = d.string() + "/";
  // Inputs that are never read: the check comes before any of them is.
  for (const char* name : {"run.csv", "runp.csv", "id.report.json"}) std::ofstream(s + name) << "not read\n";
  const std::string identify = "identify --measured " + s + "run.csv --payload-trace " + s + "runp.csv --config " +
                               fast_identify(d) + " --out " + s + "o.yaml --report " + s + "o.html --quiet";
  struct Case {
    std::string args, figure, role;
  };
  const std::vector<Case> cases = {
      {identify, s + "o.html", "--report"},
      {"excite --out " + s + "x.yaml --plot " + s + "x.png --quiet", s + "x.png", "--plot"},
      {"compare " + s + "run.csv " + s + "runp.csv --plot " + s + "c.svg", s + "c.svg", "--plot"},
      {"report --identification " + s + "id.report.json --out " + s + "r.html", s + "r.html", "--out"},
      {"demo --dir " + s + "demo", s + "demo/report.html", "step 9"},
  };
  const std::vector<std::string> before = entries(d);
  for (const Case& c : cases)
    for (const auto& [env, missing] :
         {std::pair<std::string, std::string>{"PATH=/nonexistent-vcloe-bin", " needs gnuplot, which is not found on PATH; install"},
          {"TMPDIR=/nonexistent-vcloe-tmp", " needs a directory for temporary files: TMPDIR=/nonexistent-vcloe-tmp: "}}) {
      const auto t0 = std::chrono::steady_clock::now();
      // timeout: a command that missed the check would run its fit or optimisation for minutes
      const CommandResult r = run_shell("timeout 120 env " + env + " " + VCLOE_BINARY + " " + c.args + " 2>&1");
      EXPECT_EQ(r.status, 2) << c.args << "\n" << r.out;
      EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line: " << c.args << "\n" << r.out;
      EXPECT_EQ(r.out.rfind("vcloe: error: " + c.figure + ": " + c.role + missing, 0), 0u) << c.args << "\n" << r.out;
      EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0) << c.args;
      EXPECT_EQ(entries(d), before) << "written: " << c.args;
    }
}

// The report's HTML failing after the fit (a file-size limit it alone exceeds): exit 2, and the
// line says that the model and its report were written, and they are — never "nothing was
// written" alone beside them (probe 25's k2-25).
TEST(CliProbe25, AReportThatFailsAfterTheModelSaysTheModelWasWritten) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe25", "ulimit");
  record_runs(d);
  const std::string s = d.string() + "/";
  // 400 blocks of 512 bytes: the model (a few kB) and its report (about 60 kB) fit, the HTML (its figures) does not.
  const CommandResult r = run_shell("ulimit -f 400; " + std::string(VCLOE_BINARY) + " identify --measured " + s +
                                    "run.csv --payload-trace " + s + "runp.csv --config " + fast_identify(d) + " --out " +
                                    s + "o.yaml --report " + s + "o.html --quiet 2>&1 >/dev/null");
  EXPECT_EQ(r.status, 2) << r.out;
  const std::string error = r.out.substr(r.out.find("vcloe: error: "));
  EXPECT_EQ(error.find('\n'), error.size() - 1) << r.out;
  EXPECT_EQ(error.rfind("vcloe: error: " + s + "o.html: ", 0), 0u) << r.out;
  EXPECT_NE(error.find("; the model " + s + "o.yaml and its report " + s + "o.yaml.report.json were written\n"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(fs::exists(s + "o.yaml") && fs::exists(s + "o.yaml.report.json"));
  EXPECT_FALSE(fs::exists(s + "o.html"));
}

}  // namespace test_cli_probe25_b
