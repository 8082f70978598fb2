// `vcloe identify`: options declared here, the procedure in vcloe/workflow/identify.hpp.
#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/workflow/identify.hpp"

namespace vcloe::app {

void add_identify_command(CLI::App& app) {
  auto q = std::make_shared<workflow::IdentifyOptions>();
  q->robot = defaults::robot_file();
  q->config = defaults::identify_file();
  CLI::App* cmd = app.add_subcommand(
      "identify",
      "Fit inertia, friction and the inner joint PID gains to measured pose traces (closed-loop output error,\n"
      "Levenberg-Marquardt with exact sensitivities). Needs a scale anchor (docs/identification.md).");
  cmd->add_option("--measured", q->measured, "measured trace (vcloe run)")->required();
  cmd->add_option("--payload-trace", q->payload_trace, "second trace, same reference, with a known payload");
  cmd->add_option("--payload", q->payload_file, "payload file: {mass, inertia: [Ix, Iy, Iz]}");
  cmd->add_option("--config", q->config, "identification settings")->capture_default_str();
  cmd->add_option("--robot", q->robot, "robot file with the priors")->capture_default_str();
  cmd->add_option("--reference", q->reference, "reference the trace ran (default: from its sidecar)");
  cmd->add_option("--experiment", q->experiment, "experiment file (default: from its sidecar)");
  add_out_option(cmd, q->out, "identified robot file to write (+ <out>.report.json)")->required();
  add_json_flag(cmd, q->json, "print the report as JSON");
  cmd->add_option("--report", q->report, "also write the HTML report (vcloe report) to this file");
  add_force_flag(cmd, q->force, "overwrite existing output");
  cmd->add_flag("--verbose", q->verbose, "print the optimiser's iterations (Ceres' table)");
  add_quiet_flag(cmd, q->quiet, "no progress line per iteration");
  cmd->add_flag("--accept-robot-mismatch", q->accept_robot_mismatch,
                "fit a trace whose recorded robot file differs from --robot or cannot be checked (moved, changed,\n"
                "unreadable, not recorded); a warning is printed instead of the refusal");
  cmd->callback([q] {
    if (const int status = workflow::identify(*q); status != 0) throw CommandExit{status};
  });
}

}  // namespace vcloe::app
