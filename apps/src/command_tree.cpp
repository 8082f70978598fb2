// apps/src/command_tree.cpp — the `vcloe` command tree and the rules on its options (command_tree.hpp).
#include "command_tree.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <limits>
#include <string>

#include "cli_options.hpp"
#include "commands.hpp"

namespace vcloe::app {

namespace {

// Every --seed, of every command: a whole number below 2^64 (CLI11 stored 99999999999999999999 as
// 2^64 - 1 without a word, and read -1 as the same).
void check_seeds(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (CLI::Option* seed = sub->get_option_no_throw("--seed"))
      seed->check(CLI::Validator(
          [](std::string& text) -> std::string {
            std::uint64_t v = 0;
            const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
            if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() ||
                v == std::numeric_limits<std::uint64_t>::max())
              return "expected a whole number from 0 to 2^64 - 2, got '" + text + "'";
            return "";
          },
          "SEED"));
    check_seeds(*sub);
  }
}

// Every whole-number option of every command (CLI11's INT and UINT: --seed, --harmonics, --order,
// --frames, --n, …): the number as typed, in decimal — leading zeros read as decimal (010 is ten,
// as a YAML file's integer, core/yaml_reader.cpp), a sign only where the option may be negative.
// CLI11 read it with strtoll's base 0: 010 was 8, 08 "Could not convert", 0x5 was 5 (session 22's
// probe, class 1). Declared from the option's type, so a new integer option cannot miss it.
void check_integer_options(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    for (CLI::Option* o : sub->get_options()) {
      const std::string type = o->get_type_name();
      const bool is_unsigned = type.rfind("UINT", 0) == 0;
      if (!is_unsigned && type.rfind("INT", 0) != 0) continue;
      o->transform(CLI::Validator(
          [is_unsigned](std::string& text) -> std::string {
            if (text.empty() || text.rfind("--", 0) == 0) return "";  // no value: said by check_option_values
            const std::string digits = text.substr(!text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0);
            if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
              return "expected a whole number in decimal digits, got '" + text + "'";
            if (is_unsigned && text[0] == '-') return "expected a whole number of 0 or more, got '" + text + "'";
            const std::size_t first = std::min(digits.find_first_not_of('0'), digits.size() - 1);
            text = (text[0] == '-' && digits.substr(first) != "0" ? "-" : "") + digits.substr(first);
            return "";
          },
          "", kDecimalDigitsRule));
    }
    check_integer_options(*sub);
  }
}

// Every real-number option of every command (CLI11's FLOAT: --cutoff, --pose, --payload-inertia,
// …): a typed number that a double cannot hold is refused quoting the text, not read as the 0 or
// inf it became (session 26's probe: `--cutoff 1e-400` was refused as "got 0", `1e999` as "got
// inf"). strtod's ERANGE marks it (an overflow, or an underflow below the normal range: 1e-400,
// 4.9e-324); inf and nan are no measure either, and a hexadecimal spelling is refused. The text is only checked, never rewritten, so a
// number in range is read by CLI11 as before, bit for bit; one that is not a number at all is
// left to the conversion, which command_line_errors.cpp says. Declared from the option's type,
// so a new real-number option cannot miss it.
void check_real_options(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    for (CLI::Option* o : sub->get_options()) {
      if (o->get_type_name().rfind("FLOAT", 0) != 0) continue;
      o->check(CLI::Validator(
          [](std::string& text) -> std::string {
            char* end = nullptr;
            errno = 0;
            const double v = std::strtod(text.c_str(), &end);
            if (text.empty() || end != text.c_str() + text.size()) return "";  // not a number: said by the conversion
            // Decimal only, as a trace's cells and a YAML file's numbers (session 28's probe, H:
            // strtod read `0x10` as 16, then quoted "got 16", and `0x1p-5` as 0.03125).
            if (text.find_first_of("xX") != std::string::npos)
              return "expected a real number written in decimal, got '" + text + "' (a hexadecimal spelling)";
            if (errno == ERANGE) return text + " is outside the range of a real number (about 1e-308 to 1e308)";
            if (!std::isfinite(v)) return "expected a finite number, got '" + text + "'";
            return "";
          },
          "", kRealRangeRule));
    }
    check_real_options(*sub);
  }
}

// Every option that takes a value: an empty value (`--out ''`, `--precorrection ''`) is refused
// naming the option — the commands read an empty path as "not given", so it would silently mean
// no output, no pre-correction, no plot; and a value spelled like an option (`--out --force`) is
// a forgotten value, not a file named "--force" (write ./--force for that).
void check_option_values(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    for (CLI::Option* o : sub->get_options())
      if (o->get_type_size() != 0)
        o->check(CLI::Validator(
            [positional = o->get_positional()](std::string& text) -> std::string {
              if (text.empty()) return "expected a value, got an empty one ('')";
              if (positional || text.rfind("--", 0) != 0 || text.size() < 3) return "";
              return "expected a value, got '" + text + "', an option: the value is missing (a file of that name: ./" +
                     text + ")";
            },
            "VALUE"));
    check_option_values(*sub);
  }
}

// Every command of `vcloe` (one file each, apps/src/cmd_*.cpp).
void add_commands(CLI::App& app) {
  add_validate_model_command(app);
  add_trajectory_command(app);
  add_excite_command(app);
  add_simulate_command(app);
  add_run_command(app);
  add_compare_command(app);
  add_identify_command(app);
  add_validate_command(app);
  add_demo_command(app);
  add_truth_command(app);
  add_study_command(app);
  add_report_command(app);
  add_calibrate_command(app);
  add_render_command(app);
  add_measure_command(app);
  add_filter_command(app);
  add_seal_command(app);
  add_rig_command(app);
  add_robot_command(app);
  add_vision_command(app);
  add_control_command(app);
  add_predict_command(app);
  add_precorrect_command(app);
  add_learn_command(app);
  add_kinematics_command(app);
}

}  // namespace

void build_command_tree(CLI::App& app) {
  add_commands(app);
  check_integer_options(app);
  check_seeds(app);
  check_real_options(app);
  check_option_values(app);
  tie_options_to_their_modes(app);
}

}  // namespace vcloe::app
