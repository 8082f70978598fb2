// (being written)
#include "commands.hpp"
namespace vcloe::app {
void add_validate_model_command(CLI::App& app) { app.add_subcommand("validate-model", "(being written)"); }
}  // namespace vcloe::app
