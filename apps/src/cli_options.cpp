#include "cli_options.hpp"

namespace vcloe::app {

CLI::Option* add_out_option(CLI::App* cmd, std::string& out, const std::string& what) {
  return cmd->add_option("--out", out, what);
}

CLI::Option* add_force_flag(CLI::App* cmd, bool& force, const std::string& what) {
  return cmd->add_flag("--force", force, what);
}

CLI::Option* add_json_flag(CLI::App* cmd, bool& json, const std::string& what) {
  return cmd->add_flag("--json", json, what);
}

CLI::Option* add_quiet_flag(CLI::App* cmd, bool& quiet, const std::string& what) {
  return cmd->add_flag("--quiet", quiet, what);
}

}  // namespace vcloe::app
