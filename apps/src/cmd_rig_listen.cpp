// `vcloe rig listen`: shows a live pose stream (docs/protocol.md) — its rate, its publish ->
// receive latency, gaps, duplicates, malformed frames and invalid poses — for a user checking a
// tracker or the vision process before an experiment. One line a second; a summary at the end.
// The listening itself is rig::listen (rig/serve.hpp).
#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/rig/serve.hpp"

namespace vcloe::app {

void add_rig_command(CLI::App& app) {
  CLI::App* rig_cmd = app.add_subcommand("rig", "The live rig over ZeroMQ (docs/protocol.md)");
  rig_cmd->require_subcommand(1);
  auto o = std::make_shared<rig::ListenOptions>();
  CLI::App* cmd = rig_cmd->add_subcommand(
      "listen", "Show a live pose stream: rate, publish-to-receive latency, gaps, invalid and malformed frames");
  cmd->add_option("--endpoint", o->endpoint, "where the poses are published (ipc://PATH or tcp://HOST:PORT)")
      ->required()
      ->check([](const std::string& s) { return rig::endpoint_problem(s, true); });
  cmd->add_option("--seconds", o->seconds, "how long to listen")->capture_default_str();
  cmd->add_option("--frames", o->frames, "stop after this many poses (0: listen for --seconds)")->capture_default_str();
  add_json_flag(cmd, o->json, "print only the summary, as JSON");
  cmd->add_option("--keys", o->keys, "the rig's keys (`vcloe rig keys`): listen to a keyed stream as the listener");
  cmd->callback([o] { rig::listen(*o); });
  add_rig_run_command(*rig_cmd);
  add_rig_keys_command(*rig_cmd);
}

}  // namespace vcloe::app
