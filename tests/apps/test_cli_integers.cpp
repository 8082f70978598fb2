// Specification of the command line's whole numbers (session 22's probe, class 1): every integer
// option of every command reads the number as typed, in decimal. CLI11 read `--seed 010` as 8
// (octal), refused `--frames 09` as "Could not convert" and took `--harmonics 0x5`. The options are
// found from the command tree itself (each command's --help), so a new one is covered unasked.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using cli_test::run_vcloe;

namespace test_cli_integers {

// The integer options (CLI11's INT and UINT) of `path` and of every command under it, as
// {"trajectory random", "--harmonics"}, read from the help the binary prints.
void integer_options(const std::string& path, std::vector<std::pair<std::string, std::string>>& out) {
  const cli_test::CommandResult help = run_vcloe(path + " --help");
  std::istringstream lines(help.out);
  static const std::regex option(R"(^  (?:-[A-Za-z],)?(--[a-z0-9-]+) U?INT\b.*)"), command(R"(^  ([a-z][a-z0-9-]*)  .*)");
  bool commands = false;
  std::vector<std::string> subs;
  std::smatch m;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("Subcommands:", 0) == 0) commands = true;
    if (std::regex_match(line, m, option)) out.emplace_back(path, m[1]);
    else if (commands && std::regex_match(line, m, command)) subs.push_back(m[1]);
  }
  for (const std::string& sub : subs) integer_options(path.empty() ? sub : path + " " + sub, out);
}

TEST(CliIntegers, EveryIntegerOptionOfEveryCommandRefusesAnotherBaseNamingTheOption) {
  std::vector<std::pair<std::string, std::string>> options;
  integer_options("", options);
  ASSERT_GE(options.size(), 25u) << "the command tree's integer options were not found";
  // In a directory of its own, with 2 CPU-s at most: an option the rule missed runs its command
  // (`study --truths 0x5` would run a study), which is stopped, and the test fails at once.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-integers", "every");
  for (const auto& [command, name] : options) {
    const cli_test::CommandResult r = cli_test::run_shell("cd " + d.string() + " && ulimit -t 2 && " +
                                                          std::string(VCLOE_BINARY) + " " + command + " " + name + " 0x5 2>&1");
    EXPECT_EQ(r.status, 2) << command << " " << name << "\n" << r.out;
    EXPECT_EQ(r.out, "vcloe: error: " + name + ": expected a whole number in decimal digits, got '0x5' (see --help)\n")
        << command << " " << name;
  }
}

TEST(CliIntegers, LeadingZerosAreReadAsDecimalAndAreRecordedAsTyped) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-integers", "zeros");
  const std::string out = (d / "t.yaml").string(), ten = (d / "ten.yaml").string();
  // The probe's cl03 and cl19: seed 010 and 10 the same trajectory, of 10 harmonics, not 8.
  const cli_test::CommandResult zeros = run_vcloe("trajectory random --seed 010 --harmonics 010 --duration 1 --f0 1 --out " + out);
  ASSERT_EQ(zeros.status, 0) << zeros.out;
  EXPECT_NE(zeros.out.find("(10 harmonics, f0 1 Hz, 1 s, seed 10)"), std::string::npos) << zeros.out;
  ASSERT_EQ(run_vcloe("trajectory random --seed 10 --harmonics 10 --duration 1 --f0 1 --out " + ten).status, 0);
  EXPECT_EQ(cli_test::read_file(out), cli_test::read_file(ten));
  // 08 and 09 were "Could not convert" (cl22, cl28, cl29): read as 8 and 9, on to the next check.
  const cli_test::CommandResult nine = run_vcloe("validate --n 09 --model " + cli_test::config_dir + "robot.yaml --seed -1");
  EXPECT_NE(nine.out.find("--seed: expected a whole number"), std::string::npos) << nine.out;
  EXPECT_EQ(nine.out.find("Could not convert"), std::string::npos) << nine.out;
  cli_test::expect_refused({
      {"trajectory random --harmonics -05 --out " + out, "--harmonics"},  // a sign is kept: -5, refused by its range
      {"trajectory random --seed -1 --out " + out, "--seed: expected a whole number of 0 or more, got '-1'"},
      {"trajectory random --seed 1_000 --out " + out, "--seed: expected a whole number in decimal digits, got '1_000'"},
      {"filter x.csv --order 8.0 --cutoff 10 --out " + out, "--order: expected a whole number in decimal digits, got '8.0'"},
      {"trajectory random --harmonics ' 5' --out " + out, "--harmonics: expected a whole number in decimal digits, got ' 5'"},
  });
}

}  // namespace test_cli_integers
