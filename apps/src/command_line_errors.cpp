// apps/src/command_line_errors.cpp — a malformed command line said in vcloe's words
// (command_line_errors.hpp).
#include "command_line_errors.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace vcloe::app {

namespace {

// A name the user may have meant by `word`: one it begins (an abbreviation CLI11 does not
// expand), or one at most two edits away (a typo).
bool resembles(const std::string& name, const std::string& word) {
  if (name.size() > word.size() && name.compare(0, word.size(), word) == 0) return true;
  std::vector<std::size_t> row(word.size() + 1), next(word.size() + 1);
  for (std::size_t j = 0; j <= word.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= name.size(); ++i) {
    next[0] = i;
    for (std::size_t j = 1; j <= word.size(); ++j)
      next[j] = std::min({row[j] + 1, next[j - 1] + 1, row[j - 1] + (name[i - 1] == word[j - 1] ? 0 : 1)});
    row.swap(next);
  }
  return row[word.size()] <= 2 && word.size() > 3;
}

// CLI11 says the first requirement a mistyped word left unmet ("A subcommand is required" for
// `vcloe frobnicate`, "--reference is required" for `--ref X`, "a is required" for a file named
// -a.csv): this says the word itself — the first one the deepest command given did not take —
// and what was expected there (docs/robustness.md, "vague messages"); "" if every word was taken.
std::string unknown_word_problem(CLI::App& app) {
  CLI::App* at = &app;
  std::string path = "vcloe";
  while (!at->get_subcommands().empty()) at = at->get_subcommands().front(), path += " " + at->get_name();
  const std::vector<std::string> rest = at->remaining();
  if (rest.empty()) return "";
  const std::string& word = rest.front();
  std::string like;  // the names the user may have meant
  auto consider = [&](const std::string& name) {
    if (resembles(name, word)) like += (like.empty() ? "" : ", ") + name;
  };
  const bool commands = !at->get_subcommands([](CLI::App*) { return true; }).empty();
  if (word.size() > 1 && word[0] == '-') {
    for (const CLI::Option* o : at->get_options())
      for (const std::string& n : o->get_lnames()) consider("--" + n);
    return "unknown option '" + word + "' for `" + path + "`" + (like.empty() ? "" : " (did you mean " + like + "?)") +
           "; `" + path + " --help` lists its options" +
           (word[1] != '-' ? " (a file whose name starts with '-': write ./" + word + ")" : "");
  }
  if (commands) {
    for (const CLI::App* sub : at->get_subcommands([](CLI::App*) { return true; })) consider(sub->get_name());
    return "unknown command '" + word + "' for `" + path + "`" + (like.empty() ? "" : " (did you mean " + like + "?)") +
           "; `" + path + " --help` lists the commands";
  }
  return "unexpected argument '" + word + "' for `" + path + "` (it takes no more; `" + path + " --help`)";
}

// The option named `name` ("--seed", a positional's name) of the commands given, or none.
const CLI::Option* option_named(CLI::App& app, const std::string& name) {
  for (CLI::App* at = &app; at != nullptr; at = at->get_subcommands().empty() ? nullptr : at->get_subcommands().front())
    if (const CLI::Option* o = at->get_option_no_throw(name)) return o;
  return nullptr;
}

// What an option's values are, in vcloe's words (not CLI11's type strings INT, UINT, FLOAT, TEXT).
struct Kind {
  std::string one, many;  // "a number", "numbers"
  bool said = true;       // false for text: "a value" says nothing more
};

Kind kind_of(const CLI::Option& o) {
  const std::string type = o.get_type_name();
  if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0) return {"a whole number", "whole numbers"};
  if (type.rfind("FLOAT", 0) == 0) return {"a number", "numbers"};
  return {"a value", "values", false};
}

// Whether `text` reads as a value of `kind` the way CLI11 reads it (strtold for real numbers,
// every character taken).
bool reads_as(const std::string& text, const Kind& kind) {
  if (text.empty()) return false;
  if (kind.one == "a number") {
    char* end = nullptr;
    std::strtold(text.c_str(), &end);
    return end == text.c_str() + text.size();
  }
  if (kind.one == "a whole number") return text.find_first_not_of("+-0123456789") == std::string::npos;
  return true;
}

std::string ordinal(std::size_t n) {
  const std::size_t tens = n % 100, units = n % 10;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th" : units == 1 ? "st" : units == 2 ? "nd" : units == 3 ? "rd" : "th";
  return std::to_string(n) + suffix;
}

std::string typed(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values) out += (out.empty() ? "" : " ") + v;
  return out;
}

// The values of one occurrence: 1 for a plain option, 6 for --pose.
std::size_t values_per_occurrence(const CLI::Option& o) {
  return static_cast<std::size_t>(std::max(o.get_items_expected_min(), 1));
}

// CLI11's ArgumentMismatch: given too often, too few values, or a value missing at the end.
std::string said_of_count(const CLI::Option& o, const std::string& detail) {
  const std::string name = o.get_name();
  const std::size_t per = values_per_occurrence(o);
  const std::vector<std::string>& values = o.results();
  const Kind kind = kind_of(o);
  if (detail.rfind("At Most ", 0) == 0) {
    // A value per occurrence: each value was one more --model. Several (--pose's six): the
    // occurrences are not told apart in the results, so the values are quoted.
    const auto most = static_cast<std::size_t>(std::max(o.get_items_expected_max(), 1));
    if (most == 1) return name + ": given " + std::to_string(values.size()) + " times; give it once";
    const std::string expected =
        most == per ? std::to_string(per) + " values, given once" : "at most " + std::to_string(most) + " values";
    return name + ": expected " + expected + ", got " + std::to_string(values.size()) + ": " + typed(values);
  }
  if (detail.rfind("At least ", 0) == 0)
    return name + ": expected " + std::to_string(per) + " values, got " + std::to_string(values.size()) +
           (values.empty() ? "" : ": " + typed(values));
  if (detail.find(" missing") != std::string::npos) {  // "1 required UINT:SEED:VALUE missing"
    if (per > 1) return name + ": expects " + std::to_string(per) + " values" + (kind.said ? " (" + kind.many + ")" : "");
    return name + ": expects a value" + (kind.said ? " (" + kind.one + ")" : "");
  }
  if (detail.find("flag override") != std::string::npos) return name + ": is a flag and takes no value";
  return "";
}

// CLI11's ConversionError: the first value, as typed, that is not of the option's kind.
std::string said_of_conversion(const CLI::Option& o) {
  const std::string name = o.get_name();
  const Kind kind = kind_of(o);
  const std::vector<std::string>& values = o.results();
  if (o.get_type_size() == 0 || o.get_items_expected_max() == 0)  // a flag given a value (--force=maybe)
    return name + ": is a flag and takes no value" + (values.empty() ? "" : ", got '" + values.back() + "'");
  const std::size_t per = values_per_occurrence(o);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (reads_as(values[i], kind)) continue;
    if (per > 1)
      return name + ": expected " + std::to_string(per) + " " + kind.many + ", got '" + values[i] + "' as the " +
             ordinal(i % per + 1);
    return name + ": expected " + kind.one + ", got '" + values[i] + "'";
  }
  if (kind.one == "a whole number" && values.size() == 1)
    return name + ": " + values.front() + " is outside the range of whole numbers this option takes";
  return name + ": expected " + (per > 1 ? std::to_string(per) + " " + kind.many : kind.one) + ", got '" +
         typed(values) + "'";
}

// CLI11's own validators (IsMember, ExistingDirectory): their texts said in vcloe's words; a
// validator of vcloe's (command_tree.cpp) already speaks them and is returned as it is.
std::string said_of_validation(const std::string& name, const std::string& detail) {
  const std::size_t in = detail.find(" not in {");
  if (in != std::string::npos && detail.back() == '}') {
    std::string choices = detail.substr(in + 9, detail.size() - in - 10);
    for (std::size_t at = choices.find(','); at != std::string::npos; at = choices.find(',', at + 2))
      choices.replace(at, 1, ", ");
    return name + ": expected one of " + choices + ", got '" + detail.substr(0, in) + "'";
  }
  for (const auto& [lead, what] : {std::pair<std::string, std::string>{"Directory does not exist: ", "no such directory"},
                                   {"Directory is actually a file: ", "is a file, not a directory"}})
    if (detail.rfind(lead, 0) == 0) return name + ": " + detail.substr(lead.size()) + ": " + what;
  return name + ": " + detail;
}

// CLI11's "A subcommand is required" of `vcloe` or `vcloe rig` alone: the commands it takes.
std::string said_of_no_command(CLI::App& app) {
  CLI::App* at = &app;
  std::string path = "vcloe";
  while (!at->get_subcommands().empty()) at = at->get_subcommands().front(), path += " " + at->get_name();
  std::string names;
  for (const CLI::App* sub : at->get_subcommands([](CLI::App*) { return true; }))
    names += (names.empty() ? "" : ", ") + sub->get_name();
  return "`" + path + "` needs a command (" + names + "); `" + path + " --help` says what each does";
}

}  // namespace

std::string said_of_command_line(const CLI::ParseError& error, CLI::App& app) {
  if (const std::string unknown = unknown_word_problem(app); !unknown.empty()) return unknown;
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr && std::string(error.what()) == "A subcommand is required")
    return said_of_no_command(app);
  const std::string what = error.what();
  const std::string help = " (see --help)";
  const std::string converting = "Could not convert: ";
  if (dynamic_cast<const CLI::ConversionError*>(&error) != nullptr && what.rfind(converting, 0) == 0) {
    if (const CLI::Option* o = option_named(app, what.substr(converting.size(), what.find(" = ") - converting.size())))
      return said_of_conversion(*o) + help;
  }
  const std::size_t colon = what.find(": ");
  const CLI::Option* o = colon == std::string::npos ? nullptr : option_named(app, what.substr(0, colon));
  if (o == nullptr) return what + help;
  const std::string detail = what.substr(colon + 2);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
    if (const std::string said = said_of_count(*o, detail); !said.empty()) return said + help;
  }
  if (dynamic_cast<const CLI::ConversionError*>(&error) != nullptr) return said_of_conversion(*o) + help;
  if (dynamic_cast<const CLI::ValidationError*>(&error) != nullptr) return said_of_validation(o->get_name(), detail) + help;
  return what + help;
}

}  // namespace vcloe::app
