// Specification of the command line's whole numbers (session 22's probe, class 1): every integer
// option of every command reads the number as typed, in decimal. CLI11 read `--seed 010` as 8
// (octal), refused `--frames 09` as "Could not convert" and took `--harmonics 0x5`. The options are
// found in the command tree itself, built in-process by the function the binary builds it with
// (apps/src/command_tree.hpp), so a new one is covered unasked; a few run end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "cli_fixtures.hpp"
#include "command_tree.hpp"

namespace fs = std::filesystem;
using cli_test::run_vcloe;

namespace test_cli_integers {

struct IntegerOption {
  std::string command;  // "trajectory random"
  CLI::Option* option;
};

// The integer options (CLI11's INT and UINT) of `app` and of every command under it.
void integer_options(CLI::App& app, const std::string& path, std::vector<IntegerOption>& out) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    const std::string command = path.empty() ? sub->get_name() : path + " " + sub->get_name();
    for (CLI::Option* o : sub->get_options()) {
      const std::string type = o->get_type_name();
      if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0) out.push_back({command, o});
    }
    integer_options(*sub, command, out);
  }
}

TEST(CliIntegers, EveryIntegerOptionOfEveryCommandRefusesAnotherBaseNamingTheOption) {
  CLI::App app;
  vcloe::app::build_command_tree(app);
  std::vector<IntegerOption> options;
  integer_options(app, "", options);
  ASSERT_GE(options.size(), 25u) << "the command tree's integer options were not found";  // 29 in session 23
  for (const IntegerOption& i : options) {
    const std::string name = i.command + " " + i.option->get_name();
    CLI::Validator* rule = nullptr;
    try {
      rule = i.option->get_validator(vcloe::app::kDecimalDigitsRule);
    } catch (const CLI::OptionNotFound&) {
      ADD_FAILURE() << name << ": no '" << vcloe::app::kDecimalDigitsRule << "' rule: CLI11 would read 0x5 as 5";
      continue;
    }
    for (const char* other : {"0x5", "1_000", "8.0", " 5", "5e2"}) {
      std::string text = other;
      EXPECT_EQ((*rule)(text), "expected a whole number in decimal digits, got '" + std::string(other) + "'") << name;
    }
    std::string zeros = "010";
    EXPECT_EQ((*rule)(zeros), "") << name;
    EXPECT_EQ(zeros, "10") << name;  // read as ten, not eight
  }
  // End to end, a few of them: the rule's message is what the binary says, exit 2, nothing run.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-integers", "every");
  for (const auto& typed : std::vector<std::pair<std::string, std::string>>{
           {"trajectory random", "--harmonics"}, {"study", "--truths"}, {"render", "--frames"}}) {
    const std::string &command = typed.first, &name = typed.second;
    ASSERT_TRUE(std::any_of(options.begin(), options.end(), [&](const IntegerOption& i) {
      return i.command == command && i.option->get_name() == name;
    })) << command << " " << name << " is not in the tree";
    // In a directory of its own, with 2 CPU-s at most: a command the rule let through is stopped.
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
