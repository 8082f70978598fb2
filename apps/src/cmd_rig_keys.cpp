// `vcloe rig keys --dir DIR`: the rig's CURVE key pairs, one per role (robot, vision, control),
// for `--keys DIR` of every rig command (bridge/security.hpp, docs/protocol.md "Keys").
#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/bridge/security.hpp"

#include <iostream>

namespace vcloe::app {

void add_rig_keys_command(CLI::App& rig_cmd) {
  struct Options {
    std::string dir;
    bool force = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = rig_cmd.add_subcommand("keys", "Make the rig's key pairs, one per role (ZeroMQ CURVE)");
  cmd->add_option("--dir", o->dir, "directory to write ROLE.key (secret, mode 600) and ROLE.pub into")->required();
  add_force_flag(cmd, o->force, "replace the keys there");
  cmd->callback([o] { std::cout << bridge::write_rig_keys(o->dir, o->force) << std::flush; });
}

}  // namespace vcloe::app
