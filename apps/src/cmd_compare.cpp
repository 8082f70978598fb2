// `vcloe compare`: options declared here, the procedure in vcloe/workflow/compare.hpp.
#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/workflow/compare.hpp"

namespace vcloe::app {

void add_compare_command(CLI::App& app) {
  auto o = std::make_shared<workflow::CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Per-axis RMS and max of the pose difference of two traces (mm, mrad; Table 3 form), optional plot");
  cmd->add_option("a", o->a, "trace A (its timestamps are used)")->required();
  cmd->add_option("b", o->b, "trace B (interpolated if its times differ)")->required();
  cmd->add_option("--columns", o->columns, "which poses of A: measured, truth or reference")->capture_default_str();
  cmd->add_option("--columns-b", o->columns_b, "which poses of B (default: as A)");
  cmd->add_option("--plot", o->plot, "plot the six pose components of both (.png, .svg, .pdf)");
  add_json_flag(cmd, o->json, "print the result as JSON");
  add_force_flag(cmd, o->force, "overwrite an existing plot");
  cmd->callback([o] { workflow::compare(*o); });
}

}  // namespace vcloe::app
