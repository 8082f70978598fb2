#pragma once
// apps/src/command_tree.hpp — the `vcloe` command tree: every command (apps/src/cmd_*.cpp) and the
// rules every option of every command obeys (whole numbers in decimal, real numbers a double
// holds, seeds in 64 bits, no empty value, options tied to their modes). main() builds it and
// parses; a test builds the same tree in-process to read its options (tests/apps/test_cli_integers.cpp).
#include <CLI/CLI.hpp>

namespace vcloe::app {

// The name of the transform every integer option (CLI11's INT and UINT) carries: its value read
// as typed, in decimal ("010" is 10; "0x5", "1_000", "8.0" refused naming the option).
inline constexpr const char* kDecimalDigitsRule = "decimal digits";

// The name of the check every real-number option (CLI11's FLOAT) carries: a typed number a double
// cannot hold (1e-400, 1e999: strtod's ERANGE), inf or nan is refused quoting the text.
inline constexpr const char* kRealRangeRule = "real range";

// Every command added to `app` and every rule set on its options.
void build_command_tree(CLI::App& app);

}  // namespace vcloe::app
