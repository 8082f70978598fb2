// Specification of what every command does with the command line's values and with its own
// standard output (docs/robustness.md): a value that is an option spelling is a forgotten
// value, never a file name; output that cannot be written is an error, never lost silently.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using cli_test::CommandResult;
using cli_test::run_vcloe;

// This file's helpers and specifications in its own namespace: the test program is compiled as
// one translation unit (tests/CMakeLists.txt).
namespace test_cli_streams {

namespace {

const std::string& config = cli_test::config_dir;

// `vcloe args` with its stdout sent where `redirect` says; returns its stderr and status.
CommandResult vcloe_stdout_to(const std::string& args, const std::string& redirect) {
  return cli_test::run_shell("{ " + std::string(VCLOE_BINARY) + " " + args + " 2>&3 " + redirect + "; } 3>&1");
}

}  // namespace

TEST(CliStreams, AValueSpelledLikeAnOptionIsAMissingValueNotAFileName) {
  // `simulate ... --out --force` wrote the trace to a file named "--force" and said so.
  const fs::path dir = cli_test::fresh_dir("vcloe-cli-streams", "option-value");
  const std::string reference = config + "reference.yaml";
  CommandResult c = run_vcloe("simulate --reference " + reference + " --out --force");
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_EQ(c.out, "vcloe: error: --out: expected a value, got '--force', an option: the value is missing (a file of "
                   "that name: ./--force) (see --help)\n");
  EXPECT_FALSE(fs::exists("--force"));
  c = run_vcloe("trajectory random --seed 3 --duration 2 --out --seed");
  EXPECT_EQ(c.status, 2) << c.out;
  // A negative number is a value, not an option.
  c = run_vcloe("trajectory random --duration -2 --out " + (dir / "t.yaml").string());
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_EQ(c.out.find("an option"), std::string::npos) << c.out;
}

TEST(CliStreams, OutputThatCannotBeWrittenIsAnErrorNotLostSilently) {
  // `trajectory check t.yaml > /dev/full` and with stdout closed: exit 0, the report gone.
  const std::string reference = config + "reference.yaml";
  const std::string check = "trajectory check " + reference;
  CommandResult c = vcloe_stdout_to(check, ">/dev/null");
  EXPECT_EQ(c.status, 0) << c.out;
  EXPECT_EQ(c.out, "");
  c = vcloe_stdout_to(check, ">/dev/full");
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_EQ(c.out, "vcloe: error: stdout: the output could not be written (No space left on device)\n");
  c = vcloe_stdout_to(check, ">&-");
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_EQ(c.out.rfind("vcloe: error: stdout: is closed", 0), 0u) << c.out;
}

TEST(CliStreams, APlotWithoutATemporaryDirectorySaysWhichOne) {
  // TMPDIR naming a missing directory: "vcloe: error: (path): No such file or directory".
  const fs::path dir = cli_test::fresh_dir("vcloe-cli-streams", "tmpdir");
  const std::string ref = (dir / "t.yaml").string(), a = (dir / "a.csv").string();
  ASSERT_EQ(run_vcloe("trajectory random --seed 2 --duration 1 --out " + ref).status, 0);
  ASSERT_EQ(run_vcloe("simulate --reference " + ref + " --out " + a).status, 0);
  ::setenv("TMPDIR", "/nonexistent-vcloe-tmp", 1);
  const CommandResult c = run_vcloe("compare " + a + " " + a + " --plot " + (dir / "p.png").string());
  ::unsetenv("TMPDIR");
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find("vcloe: error: " + (dir / "p.png").string() +
                       ": --plot needs a directory for temporary files: TMPDIR=/nonexistent-vcloe-tmp: "),
            std::string::npos)
      << c.out;
}

TEST(CliStreams, APlotIsTheSameWhateverTheUsersGnuplotInitFileSays) {
  // Session 28's probe, A: gnuplot read $HOME/.gnuplot before our script — its ranges cut every
  // figure, exit 0, and a system() in it ran.
  const fs::path dir = cli_test::fresh_dir("vcloe-cli-streams", "gnuplotrc");
  const std::string ref = (dir / "t.yaml").string(), a = (dir / "a.csv").string();
  ASSERT_EQ(run_vcloe("trajectory random --seed 2 --duration 1 --out " + ref).status, 0);
  ASSERT_EQ(run_vcloe("simulate --reference " + ref + " --out " + a).status, 0);
  ASSERT_EQ(run_vcloe("compare " + a + " " + a + " --plot " + (dir / "clean.svg").string()).status, 0);
  fs::create_directory(dir / "home");
  std::ofstream(dir / "home" / ".gnuplot") << "set xrange [0:0.3]\nset label 1 'NOT OURS' at graph 0.5, 0.5\nsystem('touch "
                                          << (dir / "ran").string() << "')\n";
  const char* home = std::getenv("HOME");
  const std::string saved = home ? home : "";
  ::setenv("HOME", (dir / "home").c_str(), 1);
  const CommandResult c = run_vcloe("compare " + a + " " + a + " --plot " + (dir / "home.svg").string());
  if (home) ::setenv("HOME", saved.c_str(), 1); else ::unsetenv("HOME");
  ASSERT_EQ(c.status, 0) << c.out;
  EXPECT_FALSE(fs::exists(dir / "ran"));  // no command of the init file ran
  auto bytes = [](const fs::path& f) { std::ifstream in(f, std::ios::binary); return std::string(std::istreambuf_iterator<char>(in), {}); };
  EXPECT_EQ(bytes(dir / "home.svg"), bytes(dir / "clean.svg"));  // the same figure
  EXPECT_EQ(bytes(dir / "home.svg").find("NOT OURS"), std::string::npos);
}

}  // namespace test_cli_streams
