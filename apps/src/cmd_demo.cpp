// `vcloe demo`: options declared here, the procedure in vcloe/workflow/demo.hpp.
#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/workflow/demo.hpp"

namespace vcloe::app {

void add_demo_command(CLI::App& app) {
  auto o = std::make_shared<workflow::DemoOptions>();
  o->config = defaults::identify_file();
  CLI::App* cmd = app.add_subcommand(
      "demo",
      "The whole method on the virtual rig with the default configs: optimise an excitation trajectory, run it\n"
      "on the virtual robot (and again with the known payload), identify, validate on fresh trajectories,\n"
      "run it again pre-corrected with the identified model, predict its loads, write the report.\n"
      "Every file goes to --dir; every step is printed as the command that does it.");
  cmd->add_option("--dir", o->dir, "output directory (created; must not exist unless --force)")->capture_default_str();
  cmd->add_option("--n", o->n, "validation trajectories")->capture_default_str();
  add_force_flag(cmd, o->force, "reuse an existing directory, overwriting its demo files");
  cmd->add_flag("--rig", o->rig,
                "record through the live rig's processes (`vcloe rig run --clock lockstep`: robot, vision and control "
                "over ZeroMQ) instead of in one process");
  cmd->callback([o] { workflow::demo(*o); });
}

}  // namespace vcloe::app
