// Specification of the command line on session 26's probe, classes B and C (docs/robustness.md,
// "Session 26's probe"): every malformed command line is said in vcloe's words, quoting what was
// typed — an option given more often than it takes, too few values, a value missing, a value that
// is not a number — and a real number a double cannot hold (1e-400, 1e999) is refused as typed,
// not read as the 0 or inf it became. CLI11 said "At Most 1 required but received 2", "1 required
// UINT:SEED:VALUE missing", "Could not convert: --pose = 0,0,0.18,0,0,x" (commas never typed) and
// "got 0" for 1e-400. The options are found in the command tree itself, built in-process by the
// function the binary builds it with, so a new option is covered unasked; a few run end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cli_fixtures.hpp"
#include "command_line_errors.hpp"
#include "command_tree.hpp"

using cli_test::run_vcloe;

namespace test_cli_probe26_bc {

// CLI11's own words, which no refusal may carry.
const std::vector<std::string> kLibraryPhrases = {
    "required but received", "Could not convert", "At Most", "At least", "UINT", "FLOAT", "TEXT:",
    " not in {", "is not an allowed value", "Should be true/false", "too many inputs for a flag", "flag override"};

void expect_vcloe_words(const std::string& said, const std::string& context) {
  for (const std::string& phrase : kLibraryPhrases)
    EXPECT_EQ(said.find(phrase), std::string::npos) << context << ": " << said;
  EXPECT_EQ(said.find('\n'), std::string::npos) << context << ": " << said;
}

// Thrown when a line parses, before any command runs: a line of the table below that parses (an
// option that may be repeated) must not run the command in the test's process. The root's
// parse-complete callback runs before every command's (CLI::App::run_callback).
struct Parsed {};

// The binary's tree, built once (each parse begins by clearing what the last one left).
CLI::App& command_tree() {
  static CLI::App* app = [] {
    auto* tree = new CLI::App;
    tree->require_subcommand(1);
    vcloe::app::build_command_tree(*tree);
    tree->parse_complete_callback([] { throw Parsed{}; });
    return tree;
  }();
  return *app;
}

// What vcloe says of `line` (the words after `vcloe`), parsed in-process by the binary's tree;
// "" if it parses.
std::string said_of(const std::string& line) {
  CLI::App& app = command_tree();
  try {
    app.parse(line, false);
  } catch (const CLI::ParseError& e) {
    return vcloe::app::said_of_command_line(e, app);
  } catch (const Parsed&) {
  }
  return "";
}

struct Case {
  std::string line, said;
};

// The probe's lines (m-17, m-18, m-26, m-29, m-31, m-36, m-37) and more of each class.
TEST(CliProbe26Bc, EachMalformedLineIsSaidInVcloesWordsQuotingWhatWasTyped) {
  const std::string help = " (see --help)";
  const std::vector<Case> cases = {
      {"validate --model m.yaml --model m.yaml --n 1 --duration 1", "--model: given 2 times; give it once"},
      {"filter run.csv --out a.csv --out b.csv", "--out: given 2 times; give it once"},
      {"predict --model m.yaml --reference r.yaml --reference r.yaml", "--reference: given 2 times; give it once"},
      {"trajectory random --seed 1 --seed 2 --seed 3 --out r.yaml", "--seed: given 3 times; give it once"},
      {"kinematics --pose 0 0 0.18 0 0 0 --pose 0 0 0.18 0 0 1",
       "--pose: expected 6 values, given once, got 12: 0 0 0.18 0 0 0 0 0 0.18 0 0 1"},
      {"kinematics --pose 0 0 0.18 0 0 0 7", "--pose: expected 6 values, given once, got 7: 0 0 0.18 0 0 0 7"},
      {"run --reference r.yaml --out t.csv --payload-mass 5 --payload-inertia 1 2",
       "--payload-inertia: expected 3 values, got 2: 1 2"},
      {"kinematics --pose 0 0 0.18", "--pose: expected 6 values, got 3: 0 0 0.18"},
      {"run --reference r.yaml --out t.csv --seed", "--seed: expects a value (a whole number)"},
      {"filter run.csv --out b.csv --cutoff", "--cutoff: expects a value (a number)"},
      {"filter run.csv --out", "--out: expects a value"},
      {"filter run.csv --out b.csv --cutoff abc", "--cutoff: expected a number, got 'abc'"},
      {"predict --model m.yaml --reference r.yaml --period 1,5", "--period: expected a number, got '1,5'"},
      {"run --reference r.yaml --out t.csv --noise-position 2e-5m", "--noise-position: expected a number, got '2e-5m'"},
      {"kinematics --pose 0 0 0.18 0 0 x", "--pose: expected 6 numbers, got 'x' as the 6th"},
      {"kinematics --pose 0 y 0.18 0 0 0", "--pose: expected 6 numbers, got 'y' as the 2nd"},
      {"run --reference r.yaml --out t.csv --payload-mass 5 --payload-inertia 1 2 3e",
       "--payload-inertia: expected 3 numbers, got '3e' as the 3rd"},
      {"filter run.csv --out b.csv --cutoff 1e-400",
       "--cutoff: 1e-400 is outside the range of a real number (about 1e-308 to 1e308)"},
      {"filter run.csv --out b.csv --cutoff 1e999",
       "--cutoff: 1e999 is outside the range of a real number (about 1e-308 to 1e308)"},
      {"kinematics --pose 0 0 0.18 0 0 -1e999",
       "--pose: -1e999 is outside the range of a real number (about 1e-308 to 1e308)"},
      {"filter run.csv --out b.csv --cutoff 4.9e-324",
       "--cutoff: 4.9e-324 is outside the range of a real number (about 1e-308 to 1e308)"},
      {"filter run.csv --out b.csv --cutoff nan", "--cutoff: expected a finite number, got 'nan'"},
      {"run --reference r.yaml --out t.csv --camera bogus", "--camera: expected one of gaussian, stereo, got 'bogus'"},
      {"run --reference r.yaml --out t.csv --camera", "--camera: expects a value"},
      {"run --reference r.yaml --out t.csv --force=maybe", "--force: is a flag and takes no value, got 'maybe'"},
      {"validate --model m.yaml --n 99999999999999999999",
       "--n: 99999999999999999999 is outside the range of whole numbers this option takes"},
      {"rig run --keys /nonexistent-vcloe", "--keys: /nonexistent-vcloe: no such directory"},
  };
  for (const Case& c : cases) {
    const std::string said = said_of(c.line);
    EXPECT_EQ(said, c.said + help) << c.line;
    expect_vcloe_words(said, c.line);
  }
  // A command of commands given alone: its commands named (CLI11: "A subcommand is required").
  EXPECT_EQ(said_of("rig"), "`vcloe rig` needs a command (listen, run, keys); `vcloe rig --help` says what each does");
  EXPECT_EQ(said_of("").rfind("`vcloe` needs a command (validate-model, trajectory, ", 0), 0u) << said_of("");
}

struct Named {
  std::string command;  // "trajectory random"
  CLI::Option* option;
};

void options_of(CLI::App& app, const std::string& path, std::vector<Named>& out) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    const std::string command = path.empty() ? sub->get_name() : path + " " + sub->get_name();
    for (CLI::Option* o : sub->get_options())
      if (!o->get_lnames().empty() && o->get_items_expected_max() > 0 && o != sub->get_help_ptr())
        out.push_back({command, o});
    options_of(*sub, command, out);
  }
}

// Every option that takes a value, of every command: given twice, given without its value, and
// given a word where a number belongs — each said naming the option, without CLI11's words.
TEST(CliProbe26Bc, EveryOptionOfEveryCommandIsRefusedInVcloesWords) {
  std::vector<Named> options;
  options_of(command_tree(), "", options);
  ASSERT_GE(options.size(), 150u) << "the command tree's options were not found";
  std::size_t reals = 0;
  for (const Named& n : options) {
    const std::string name = n.option->get_name();
    const std::string type = n.option->get_type_name();
    const bool number = type.rfind("FLOAT", 0) == 0 || type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0;
    std::string values;
    for (int i = 0; i < std::max(n.option->get_items_expected_min(), 1); ++i) values += " 1";
    std::vector<std::string> lines = {n.command + " " + name};  // its value missing
    if (n.option->get_items_expected_max() == std::max(n.option->get_items_expected_min(), 1))
      lines.push_back(n.command + " " + name + values + " " + name + values);  // given twice
    if (number) lines.push_back(n.command + " " + name + " x" + values.substr(2));
    for (const std::string& line : lines) {
      const std::string said = said_of(line);
      if (said.empty()) continue;  // an option that may be repeated
      EXPECT_EQ(said.rfind(name + ": ", 0), 0u) << line << ": " << said;
      expect_vcloe_words(said, line);
    }
    if (type.rfind("FLOAT", 0) != 0) continue;
    ++reals;
    CLI::Validator* rule = nullptr;
    try {
      rule = n.option->get_validator(vcloe::app::kRealRangeRule);
    } catch (const CLI::OptionNotFound&) {
      ADD_FAILURE() << n.command << " " << name << ": no '" << vcloe::app::kRealRangeRule << "' check";
      continue;
    }
    // Session 28's probe, H: a hexadecimal spelling is refused, as in a trace or a YAML file.
    for (const char* out_of_range : {"1e-400", "1e999", "-1e999", "2.2e-308", "inf", "nan", "0x10", "0x1p4", "-0X1P-5"}) {
      std::string text = out_of_range;
      EXPECT_NE((*rule)(text), "") << n.command << " " << name << " " << out_of_range;
    }
    for (const char* in_range : {"0.25", "-0", "1e-300", "1e308", "1E2", "", "abc"}) {
      std::string text = in_range;
      EXPECT_EQ((*rule)(text), "") << n.command << " " << name << " " << in_range;
      EXPECT_EQ(text, in_range);  // checked, never rewritten: read as before, bit for bit
    }
  }
  EXPECT_GE(reals, 40u) << "the command tree's real-number options were not found";
}

// End to end, the probe's lines: one line on stderr, exit 2, the option named in vcloe's words.
TEST(CliProbe26Bc, TheProbesLinesAreOneLineExitTwoEndToEnd) {
  const std::vector<Case> cases = {
      {"validate --model m.yaml --model m.yaml --n 1 --duration 1 --quiet", "--model: given 2 times; give it once"},
      {"filter run.csv --out b.csv --cutoff 1e-400",
       "--cutoff: 1e-400 is outside the range of a real number (about 1e-308 to 1e308)"},
      {"kinematics --pose 0 0 0.18 0 0 x", "--pose: expected 6 numbers, got 'x' as the 6th"},
      {"filter run.csv --out b.csv --cutoff 0x10",
       "--cutoff: expected a real number written in decimal, got '0x10' (a hexadecimal spelling)"},
  };
  for (const Case& c : cases) {
    const cli_test::CommandResult r = run_vcloe(c.line);
    EXPECT_EQ(r.status, 2) << c.line;
    EXPECT_EQ(r.out, "vcloe: error: " + c.said + " (see --help)\n") << c.line;
    expect_vcloe_words(r.out.substr(0, r.out.size() - 1), c.line);
  }
}

}  // namespace test_cli_probe26_bc
