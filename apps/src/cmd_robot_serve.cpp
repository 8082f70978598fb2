// `vcloe robot serve`: the robot role of the live rig, rig::serve_robot (rig/serve.hpp,
// docs/protocol.md "Processes"): the options declared, the payload read, the robot served.
#include "cli_options.hpp"
#include "commands.hpp"
#include "payload_option.hpp"
#include "rig_options.hpp"
#include "vcloe/rig/serve.hpp"

namespace vcloe::app {

void add_robot_command(CLI::App& app) {
  CLI::App* robot = app.add_subcommand("robot", "The robot role of the live rig (docs/protocol.md)");
  robot->require_subcommand(1);
  struct Options {
    rig::RobotServeOptions serve;
    PayloadOption payload;
    std::vector<double> stand_at;
  };
  auto options = std::make_shared<Options>();
  rig::RobotServeOptions* o = &options->serve;
  o->robot = defaults::robot_file();
  o->truth = defaults::truth_file();
  o->experiment = defaults::experiment_file();
  CLI::App* cmd = robot->add_subcommand("serve", "Serve the virtual robot behind the rig protocol");
  cmd->add_option("--backend", o->backend, "virtual: the MuJoCo virtual robot")
      ->check(CLI::IsMember({"virtual"}))
      ->capture_default_str();
  cmd->add_option("--truth", o->truth, "the virtual robot's truth file")->capture_default_str();
  cmd->add_option("--robot", o->robot, "robot file the reference is checked against")->capture_default_str();
  cmd->add_option("--experiment", o->experiment, "timing (controller and camera rates, latency)")->capture_default_str();
  cmd->add_option("--reference", o->reference, "trajectory file: the start pose and the run's length")->required();
  cmd->add_option("--precorrection", o->precorrection,
                  "pre-corrected joint command for this reference, added tick by tick (docs/control.md)");
  cmd->add_option("--clock", o->clock, "lockstep (waits for each command) or realtime (wall clock)")
      ->check(CLI::IsMember({"lockstep", "realtime"}))
      ->capture_default_str();
  add_endpoint_options(cmd, o->endpoints, "cpks");
  add_timeout_options(cmd, o->timeouts);
  sets_keys(cmd->add_option("--max-invalid", o->max_invalid, "invalid poses in a row that stop the robot"),
            {"max_invalid_in_row"})
      ->capture_default_str();
  cmd->add_option("--max-command-speed", o->max_command_speed, "rate limit of the commands (rad/s)")->capture_default_str();
  cmd->add_option("--move-speed", o->move_speed, "before the run, move to the start at this speed (rad/s per joint)")
      ->capture_default_str();
  cmd->add_option("--stand-at", options->stand_at, "joint angles the virtual robot stands at before the move (rad)")
      ->expected(6);
  cmd->add_option("--hold", o->hold, "after a controlled stop, hold this long before exiting (s)")->capture_default_str();
  cmd->add_option("--start-timeout", o->start_timeout, "wait this long for the other processes (s; at least 3 handshake periods"
                  " (0.015 s) + one camera period: docs/protocol.md, \"Every timeout\")")->capture_default_str();
  add_payload_options(cmd, options->payload);
  cmd->callback([options] {
    options->serve.validate();
    options->serve.payload = payload_from(options->payload);
    if (!options->stand_at.empty()) options->serve.stand_at = Eigen::Map<const Vec6d>(options->stand_at.data());
    rig::serve_robot(options->serve);
  });
}

}  // namespace vcloe::app
