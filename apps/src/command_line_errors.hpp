#pragma once
// apps/src/command_line_errors.hpp — the one place a malformed command line is said in vcloe's
// words (main.cpp, for every command; docs/robustness.md, "Session 26's probe"). CLI11 finds the
// fault and throws a CLI::ParseError whose text is its own ("At Most 1 required but received 2",
// "Could not convert: --pose = 0,0,0.18,0,0,x", "1 required UINT:SEED:VALUE missing"); this says
// which word was wrong and what was expected there, quoting the values as the user typed them
// (CLI::Option::results(), never CLI11's comma-joined form).
#include <CLI/CLI.hpp>

#include <string>

namespace vcloe::app {

// The one line (without "vcloe: error: ") that says what is wrong with the command line `app`
// has just failed to parse with `error`: an unknown option or command (with the names the user
// may have meant), an option given more often than it takes, too few values, a missing value, a
// value that is not of the option's kind. Any other ParseError: its text and " (see --help)".
std::string said_of_command_line(const CLI::ParseError& error, CLI::App& app);

}  // namespace vcloe::app
