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

void add_realistic_options(CLI::App* cmd, hw::TruthFamily& f) {
  CLI::Option* realistic = cmd->add_flag(
      "--realistic", f.realistic,
      "add the departures a real rig has: joint centres, crank and link lengths, encoder zeros, marker frame, "
      "camera-to-base residual, camera latency and jitter, platform centre of mass (docs/virtual-robot.md)");
  const std::pair<const char*, std::pair<double*, const char*>> options[] = {
      {"--geometry", {&f.geometry, "joint centres, crank and link lengths: +- (m)"}},
      {"--encoder", {&f.encoder, "encoder zero offsets: +- (rad)"}},
      {"--marker-position", {&f.marker_position, "marker frame origin in E: +- per coordinate (m)"}},
      {"--marker-angle", {&f.marker_angle, "marker frame angles: +- (rad)"}},
      {"--base-position", {&f.base_position, "camera-to-base residual: sigma per coordinate (m)"}},
      {"--base-angle", {&f.base_angle, "camera-to-base residual: sigma per angle (rad)"}},
      {"--latency-low", {&f.latency_low, "true minus configured camera latency: lowest (s)"}},
      {"--latency-high", {&f.latency_high, "true minus configured camera latency: highest (s)"}},
      {"--latency-jitter", {&f.latency_jitter, "camera latency: sigma frame to frame (s)"}},
      {"--com", {&f.com, "platform centre of mass off E: +- per coordinate (m)"}},
  };
  for (const auto& [name, o] : options)
    cmd->add_option(name, *o.first, std::string("with --realistic: ") + o.second)->capture_default_str()->needs(realistic);
}

std::map<std::string, std::string> realistic_option_names() {
  return {{"geometry", "--geometry"},           {"encoder", "--encoder"},
          {"marker_position", "--marker-position"}, {"marker_angle", "--marker-angle"},
          {"base_position", "--base-position"}, {"base_angle", "--base-angle"},
          {"latency_low", "--latency-low"},     {"latency_high", "--latency-high"},
          {"latency_jitter", "--latency-jitter"}, {"com", "--com"}};
}

void refuse_unused_options(const std::vector<CLI::Option*>& options, const std::string& mode, const std::string& for_what) {
  for (const CLI::Option* o : options)
    if (o->count() > 0) fail(o->get_name(), "does not apply to " + mode + " (it is for " + for_what + ")");
}

std::vector<CLI::Option*> options_declared_for(CLI::App* cmd, const std::string& mode) {
  std::vector<CLI::Option*> out;
  for (CLI::Option* o : cmd->get_options())
    if (o->get_description().rfind(mode, 0) == 0) out.push_back(o);
  return out;
}

namespace {

// "--slurm" of "with --slurm: wait …" (or of "without --images (the virtual rig): …").
std::string mode_named_by(const std::string& help, const std::string& lead) {
  if (help.rfind(lead, 0) != 0) return "";
  const std::size_t end = help.find_first_of(":, )", lead.size());
  return help.substr(lead.size() - 2, end == std::string::npos ? std::string::npos : end - lead.size() + 2);
}

}  // namespace

void tie_options_to_their_modes(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    for (CLI::Option* o : sub->get_options()) {
      const std::string& help = o->get_description();
      for (const bool with : {true, false}) {
        const std::string mode = mode_named_by(help, with ? "with --" : "without --");
        if (mode.empty()) continue;
        CLI::Option* m = sub->get_option_no_throw(mode);
        if (m == nullptr) fail(sub->get_name() + " " + o->get_name(), "its help names " + mode + ", which the command does not have");
        if (with && o->get_needs().count(m) == 0) o->needs(m);
        if (!with && o->get_excludes().count(m) == 0) o->excludes(m);
      }
    }
    tie_options_to_their_modes(*sub);
  }
}

}  // namespace vcloe::app
