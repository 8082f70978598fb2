#include "cli_options.hpp"

#include <algorithm>

#include "vcloe/core/defaults.hpp"
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

namespace {

std::map<const CLI::Option*, std::vector<std::string>>& keys_of_options() {
  static std::map<const CLI::Option*, std::vector<std::string>> keys;  // filled while the commands are added
  return keys;
}

bool option_sets(const CLI::Option* o, const std::string& key) {
  if (key == o->get_name()) return true;  // a problem keyed by the option itself ("--move-speed")
  if (!o->get_lnames().empty()) {
    std::string spelled = o->get_lnames().front();
    for (char& c : spelled)
      if (c == '-') c = '_';
    if (spelled == key) return true;
  }
  const auto it = keys_of_options().find(o);
  return it != keys_of_options().end() && std::find(it->second.begin(), it->second.end(), key) != it->second.end();
}

// The option of the commands run (`rig run`: rig's and run's) that sets `key`, or none.
const CLI::Option* option_setting(CLI::App& app, const std::string& key) {
  for (CLI::App* at = &app; at != nullptr; at = at->get_subcommands().empty() ? nullptr : at->get_subcommands().front())
    for (const CLI::Option* o : at->get_options())
      if (o->get_type_size() != 0 && !o->get_lnames().empty() && option_sets(o, key)) return o;
  return nullptr;
}

// The keys at the head of a message ("a, b: expected …" gives {a, b}), or none when the head is
// words ("a reference that starts at rest …").
std::vector<std::string> head_keys(const std::string& message) {
  const std::size_t colon = message.find(": ");
  std::vector<std::string> keys;
  for (std::size_t start = 0; colon != std::string::npos && start <= colon;) {
    std::size_t end = message.find(", ", start);
    if (end == std::string::npos || end > colon) end = colon;
    keys.push_back(message.substr(start, end - start));
    if (keys.back().empty() || keys.back().find(' ') != std::string::npos) return {};
    start = end + 2;
  }
  return keys;
}

}  // namespace

CLI::Option* sets_keys(CLI::Option* option, const std::vector<std::string>& keys) {
  std::vector<std::string>& known = keys_of_options()[option];
  known.insert(known.end(), keys.begin(), keys.end());
  return option;
}

std::string said_with_options(const SettingError& error, CLI::App& app) {
  const std::string& m = error.problem().message;
  const std::vector<std::string> keys = head_keys(m);
  bool typed = false;
  std::string head;
  for (const std::string& key : keys) {
    const CLI::Option* o = option_setting(app, key);
    typed = typed || (o != nullptr && o->count() > 0);
    head += (head.empty() ? "" : ", ") + (o != nullptr ? o->get_name() : key);
  }
  if (typed) return head + m.substr(m.find(": "));
  const CLI::Option* o = option_setting(app, error.problem().key);
  if (o != nullptr && o->count() > 0) return o->get_name() + ": " + m;  // a message that does not begin with its key
  return error.what();
}

std::string said_of_defaults(const std::string& message, CLI::App& app) {
  const std::string dir = defaults::config_dir() + "/";
  if (message.compare(0, dir.size(), dir) != 0) return message;
  const std::string from = "from " + defaults::config_source() + ", " + defaults::config_dir();
  const auto begins_with = [&message](const std::string& file) {
    return message.compare(0, file.size(), file) == 0 && (message.size() == file.size() || message[file.size()] == ':');
  };
  for (CLI::App* at = &app; at != nullptr; at = at->get_subcommands().empty() ? nullptr : at->get_subcommands().front())
    for (const CLI::Option* o : at->get_options())
      for (const std::string& typed : o->results())  // the file given on the command line: the user's, not a default
        if (o->count() > 0 && begins_with(typed)) return message;
  for (CLI::App* at = &app; at != nullptr; at = at->get_subcommands().empty() ? nullptr : at->get_subcommands().front())
    for (const CLI::Option* o : at->get_options()) {
      const std::string& file = o->get_default_str();
      if (o->count() > 0 || file.size() <= dir.size() || !begins_with(file)) continue;
      return message + " (" + file + " is the default of " + o->get_name() + ", " + from + "; give " + o->get_name() +
             " FILE for another)";
    }
  return message + " (a default file of vcloe, " + from + ")";
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
