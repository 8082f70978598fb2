#include "cli_options.hpp"

#include "vcloe/core/error.hpp"

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

void throw_as_options(const std::optional<SettingProblem>& problem, const std::map<std::string, std::string>& option_of_key) {
  if (!problem) return;
  const std::string& m = problem->message;
  const std::size_t colon = m.find(": ");
  if (colon == std::string::npos) fail(option_of_key.count(problem->key) ? option_of_key.at(problem->key) : problem->key, m);
  std::string head;
  for (std::size_t start = 0; start <= colon;) {  // the keys, separated by ", "
    std::size_t end = m.find(", ", start);
    if (end == std::string::npos || end > colon) end = colon;
    const std::string key = m.substr(start, end - start);
    head += (head.empty() ? "" : ", ") + (option_of_key.count(key) ? option_of_key.at(key) : key);
    start = end + 2;
  }
  fail(head, m.substr(colon + 2));
}

void refuse_unused_options(const std::vector<CLI::Option*>& options, const std::string& mode, const std::string& for_what) {
  for (const CLI::Option* o : options)
    if (o->count() > 0) fail(o->get_name(), "does not apply to " + mode + " (it is for " + for_what + ")");
}

}  // namespace vcloe::app
