#pragma once
// The options many commands share, declared once: what --out, --force, --json and --quiet mean
// is said here; a command says only what its output is. Every option taking a value also gets
// the forgotten-value check and every --seed the range check (main.cpp, for all commands).
#include <CLI/CLI.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vcloe/core/settings.hpp"
#include "vcloe/hw/truth_family.hpp"

namespace vcloe::app {

// --out FILE: `what` the command writes there, e.g. "trace CSV to write (docs/traces.md)".
// Outputs are checked before any work and never overwrite an input (docs/robustness.md).
CLI::Option* add_out_option(CLI::App* cmd, std::string& out, const std::string& what);

// --force: replace an existing output (written atomically; never one of the command's inputs).
CLI::Option* add_force_flag(CLI::App* cmd, bool& force, const std::string& what = "overwrite existing output");

// --json: the result on stdout as JSON instead of the human summary.
CLI::Option* add_json_flag(CLI::App* cmd, bool& json, const std::string& what = "print the result as JSON");

// --quiet: no live progress line on stderr (errors and the result are still printed).
CLI::Option* add_quiet_flag(CLI::App* cmd, bool& quiet, const std::string& what = "no live progress line");

// Which option sets which setting (docs/robustness.md, "Session 20's probe", class V). A settings
// struct names its problem by its key (core/settings.hpp: "max_invalid_in_row: expected …"); the
// user typed an option. An option sets the key its long name spells with '_' for '-' (--f0: f0,
// --max-command-speed: max_command_speed); sets_keys() adds the keys its name does not spell
// (--max-invalid: max_invalid_in_row) and returns the option.
CLI::Option* sets_keys(CLI::Option* option, const std::vector<std::string>& keys);
// The one place a setting's problem reaches the user (main.cpp, for every command): if a key at
// the head of its message ("max_invalid_in_row: …", "latency_low, latency_high: …"), or the
// problem's own key, is set by an option typed on the command line of the command run, the
// message is said with the options ("--max-invalid: expected 1 to 1000000, got 0"); otherwise
// (a file's key, a default) as thrown, with its where.
std::string said_with_options(const SettingError& error, CLI::App& app);
// An error about a default config file (a message beginning with a path in defaults::config_dir())
// says so (main.cpp, every command): "… (the default of --config, from the installation;
// give --config FILE for another)". Other messages are returned as they are.
std::string said_of_defaults(const std::string& message, CLI::App& app);

// `--realistic` and the magnitudes of its departures (docs/virtual-robot.md), as `vcloe truth
// random` and `vcloe study` take them (each option spells its setting's key).
void add_realistic_options(CLI::App* cmd, hw::TruthFamily& family);
// An option the chosen mode does not use is refused, not ignored (vision serve's sources,
// calibrate kinematics' measuring): the first of `options` given on the command line fails
// "<option>: does not apply to <mode> (it is for <for_what>)".
void refuse_unused_options(const std::vector<CLI::Option*>& options, const std::string& mode, const std::string& for_what);
// The options of `cmd` whose help begins with `mode` ("virtual camera:"): the help is the
// declaration, so a new option of a mode is refused outside it by saying its mode.
std::vector<CLI::Option*> options_declared_for(CLI::App* cmd, const std::string& mode);

// The mode an option's help names is the mode it needs, for every option of every command under
// `app` (called once in main): help beginning "with --X:" makes the option require --X, help
// beginning "without --X" makes it exclude --X — so `study --wait` without --slurm is refused
// ("--wait requires --slurm"), not ignored, and a new option is covered by saying its mode.
// Throws vcloe::Error at start-up if the help names an option the command does not have.
void tie_options_to_their_modes(CLI::App& app);

}  // namespace vcloe::app
