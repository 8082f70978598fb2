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
      "values, excitation, drive torques; validation, calibration, tracking of runs of one reference and the\n"
      "loads predicted along it when given), figures by gnuplot embedded; opens offline.");
  cmd->add_option("--identification", o->identification, "the identify report (<model>.report.json)")->required();
  cmd->add_option("--validation", o->validation, "validation results (vcloe validate --out FILE)");
  cmd->add_option("--calibration", o->calibration, "the kinematic calibration's result (vcloe calibrate kinematics --result FILE)");
  // The tracking and load sections (docs/report.md, "Tracking"): runs of one reference, any of them.
  cmd->add_option("--servo-alone", o->tracking.servo_alone,
                  "trace of a run with the visual servo alone (vcloe run / rig run, with its sidecar)");
  cmd->add_option("--precorrected", o->tracking.precorrected,
                  "trace of the same reference run pre-corrected (run --precorrection P of vcloe precorrect)");
  cmd->add_option("--learnt", o->tracking.learnt,
                  "trace of the same reference run with the learnt command (run --precorrection P of vcloe learn)");
  cmd->add_option("--prediction", o->tracking.prediction,
                  "vcloe predict --out CSV along that reference: drive torques with the sigma band, joint forces");
  add_out_option(cmd, o->out, "HTML file to write")->required();
  add_force_flag(cmd, o->force, "overwrite an existing report");
  cmd->callback([o] {
    workflow::write_report(*o);
    std::cout << "wrote " << o->out << "\n";
  });
}

}  // namespace vcloe::app
