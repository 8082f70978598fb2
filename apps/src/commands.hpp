#pragma once
// Subcommand registration for the `vcloe` binary. Each add_*_command adds one subcommand
// to the app and sets its callback; the callback throws vcloe::Error on bad input.
#include <CLI/CLI.hpp>
#include <string>

namespace vcloe::app {

// Directory holding the default config files (robot.yaml, ...): $VCLOE_CONFIG_DIR if set,
// else the source tree's config/ directory.
std::string default_config_dir();
std::string default_robot_file();

void add_validate_model_command(CLI::App& app);
void add_trajectory_command(CLI::App& app);
void add_excite_command(CLI::App& app);
void add_simulate_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_identify_command(CLI::App& app);
void add_validate_command(CLI::App& app);  // Tables 4 and 5 (cmd_validate.cpp)
void add_demo_command(CLI::App& app);      // excite -> run -> identify -> validate
void add_vision_commands(CLI::App& app);  // calibrate, render, measure, filter (cmd_vision.cpp)

}  // namespace vcloe::app
