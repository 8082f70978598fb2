// `vcloe report`: options declared here, the procedure in vcloe/workflow/report.hpp (docs/report.md).
#include <iostream>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/workflow/report.hpp"

namespace vcloe::app {

void add_report_command(CLI::App& app) {
  auto o = std::make_shared<workflow::ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "One self-contained HTML report of an identification (tables, traces, residuals, correlation, singular\n"
      "values, excitation, drive torques; validation, calibration, tracking when given), figures by gnuplot\n"
      "embedded; opens offline.");
  cmd->add_option("--identification", o->identification, "the identify report (<model>.report.json)")->required();
  cmd->add_option("--validation", o->validation, "validation results (vcloe validate --out FILE)");
  cmd->add_option("--calibration", o->calibration, "the kinematic calibration's result (vcloe calibrate kinematics --result FILE)");
  cmd->add_option("--tracking", o->tracking, "traces of runs whose tracking to show: measured - reference (repeatable)");
  add_out_option(cmd, o->out, "HTML file to write")->required();
  add_force_flag(cmd, o->force, "overwrite an existing report");
  cmd->callback([o] {
    workflow::write_report(*o);
    std::cout << "wrote " << o->out << "\n";
  });
}

}  // namespace vcloe::app
