// `vcloe control`: the control role of the live rig, rig::run_control (rig/serve.hpp,
// docs/protocol.md "Processes"): the options declared, the payload read, the controller run.
#include "cli_options.hpp"
#include "commands.hpp"
#include "payload_option.hpp"
#include "rig_options.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/rig/serve.hpp"

namespace vcloe::app {

void add_control_command(CLI::App& app) {
  struct Options {
    rig::ControlOptions control;
    PayloadOption payload;
  };
  auto options = std::make_shared<Options>();
  rig::ControlOptions* o = &options->control;
  o->robot = defaults::robot_file();
  o->experiment = defaults::experiment_file();
  CLI::App* cmd = app.add_subcommand("control", "The control role of the live rig: the visual-servo controller");
  cmd->add_option("--robot", o->robot, "robot file (kinematics of the outer loop)")->capture_default_str();
  cmd->add_option("--experiment", o->experiment, "timing and outer controller")->capture_default_str();
  cmd->add_option("--reference", o->reference, "trajectory file")->required();
  cmd->add_option("--precorrection", o->precorrection,
                  "the pre-corrected command the robot applies (its --precorrection): checked, recorded in the sidecar");
  add_out_option(cmd, o->out, "trace CSV to write")->required();
  cmd->add_option("--clock", o->clock, "lockstep (every pose, in order) or realtime (the newest pose)")
      ->check(CLI::IsMember({"lockstep", "realtime"}))
      ->capture_default_str();
  cmd->add_option("--robot-timeout", o->robot_timeout,
                  "end when the robot is silent this long (s; 0: 5 camera periods realtime, 2 s lockstep)")
      ->capture_default_str();
  cmd->add_option("--start-timeout", o->start_timeout, "wait this long for the robot to start (s; at least 3 handshake periods"
                  " (0.015 s) + one camera period + the move to the start: docs/protocol.md, \"Every timeout\")")->capture_default_str();
  add_endpoint_options(cmd, o->endpoints, "pks");
  add_payload_options(cmd, options->payload);
  add_force_flag(cmd, o->force, "overwrite an existing trace");
  cmd->add_flag("--keep-partial-on-interrupt", o->keep_partial_on_interrupt,
                "on SIGINT/SIGTERM/SIGHUP keep the rows in TRACE.partial and write no TRACE (as `rig run` does)");
  cmd->callback([options] {
    options->control.payload = payload_from(options->payload);
    rig::run_control(options->control);
  });
}

}  // namespace vcloe::app
