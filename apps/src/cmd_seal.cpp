// `vcloe seal`: a sealed copy of a recording an older vcloe wrote (workflow::seal;
// docs/traces.md, "Sealed sidecars").
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/workflow/seal.hpp"

namespace vcloe::app {

void add_seal_command(CLI::App& app) {
  auto o = std::make_shared<workflow::SealOptions>();
  CLI::App* cmd = app.add_subcommand(
      "seal", "A sealed copy of a recording (pose or static-pose trace) an older vcloe wrote, after every check of its reader");
  cmd->add_option("recording", o->in, "trace CSV whose sidecar has no seal (docs/traces.md)")->required();
  add_out_option(cmd, o->out, "the sealed copy's CSV; its sidecar .meta.json beside it")->required();
  add_force_flag(cmd, o->force, "overwrite an existing output");
  cmd->callback([o] { std::cout << workflow::seal(*o); });
}

}  // namespace vcloe::app
