// `vcloe rig run`: the live rig on this machine — `vcloe robot serve` (the virtual robot),
// `vision serve --source virtual` and `control` as three processes over ZeroMQ — recording the
// trace `identify` reads. With --clock lockstep the measured poses equal those of `vcloe run
// --backend virtual` with the same seed, truth and reference (docs/protocol.md, "Processes").
#include "cli_options.hpp"
#include "camera_option.hpp"
#include "commands.hpp"
#include "payload_option.hpp"
#include "rig_options.hpp"
#include "vcloe/rig/launch.hpp"

namespace vcloe::app {

void add_rig_run_command(CLI::App& rig_cmd) {
  struct Options {
    rig::RigRun run;
    PayloadOption payload;
    std::vector<double> stand_at;
  };
  auto o = std::make_shared<Options>();
  rig::RigRun& r = o->run;
  r.robot = defaults::robot_file();
  r.truth = defaults::truth_file();
  r.experiment = defaults::experiment_file();
  CLI::App* cmd = rig_cmd.add_subcommand("run", "Run a reference through the rig's three processes (robot, vision, control)");
  cmd->add_option("--reference", r.reference, "trajectory file")->required();
  cmd->add_option("--precorrection", r.precorrection,
                  "pre-corrected joint command for this reference (vcloe precorrect / learn; docs/control.md)");
  add_out_option(cmd, r.out, "trace CSV to write")->required();
  cmd->add_option("--clock", r.clock, "lockstep (deterministic) or realtime (wall clock)")
      ->check(CLI::IsMember({"lockstep", "realtime"}))
      ->capture_default_str();
  cmd->add_option("--endpoints", r.transport, "ipc (a fresh directory in /tmp) or tcp (free ports on 127.0.0.1)")
      ->check(CLI::IsMember({"ipc", "tcp"}))
      ->capture_default_str();
  cmd->add_option("--seed", r.seed, "the virtual camera's noise seed")->capture_default_str();
  cmd->add_option("--truth", r.truth, "the virtual robot's truth file")->capture_default_str();
  cmd->add_option("--robot", r.robot, "robot file")->capture_default_str();
  cmd->add_option("--experiment", r.experiment, "timing and outer controller")->capture_default_str();
  cmd->add_option("--noise-position", r.noise_position, "camera noise sigma per position channel (m)")
      ->capture_default_str();
  cmd->add_option("--noise-angle", r.noise_angle, "camera noise sigma per angle channel (rad)")->capture_default_str();
  add_camera_options(cmd, r.camera);
  add_payload_options(cmd, o->payload);
  add_timeout_options(cmd, r.timeouts);
  cmd->add_option("--robot-timeout", r.robot_timeout,
                  "control ends when the robot is silent this long (s; 0: 5 camera periods realtime, 2 s lockstep)")
      ->capture_default_str();
  cmd->add_option("--vision-robot-timeout", r.vision_robot_timeout, "vision ends when the robot is silent this long (s)")
      ->capture_default_str();
  cmd->add_option("--start-timeout", r.start_timeout, "each process waits this long for the others and the run's start (s; at least 3 handshake periods"
                  " (0.015 s) + one camera period + the move to the start: docs/protocol.md, \"Every timeout\")")
      ->capture_default_str();
  cmd->add_option("--move-speed", r.move_speed, "the robot moves to the start at this speed (rad/s per joint)")
      ->capture_default_str();
  cmd->add_option("--stand-at", o->stand_at, "joint angles the virtual robot stands at before the move (rad)")
      ->expected(6);
  cmd->add_option("--hold", r.hold, "after a controlled stop the robot holds this long (s)")->capture_default_str();
  // Endpoints given replace the fresh ones of --endpoints (each printed before the processes start).
  const auto check = [](const std::string& s) { return rig::endpoint_problem(s); };
  cmd->add_option("--camera-stream", r.endpoints.camera, "robot -> vision endpoint (default: fresh)")->check(check);
  cmd->add_option("--poses", r.endpoints.poses, "vision -> control, robot endpoint (default: fresh)")->check(check);
  cmd->add_option("--commands", r.endpoints.commands, "control -> robot endpoint (default: fresh)")->check(check);
  cmd->add_option("--status", r.endpoints.status, "robot -> control, vision endpoint (default: fresh)")->check(check);
  add_key_options(cmd, r.endpoints);
  add_force_flag(cmd, r.force, "overwrite an existing trace");
  cmd->callback([o] {
    // Every option the three processes would refuse, refused here: one line, before any starts.
    o->run.validate();
    o->run.payload = payload_from(o->payload);
    if (!o->stand_at.empty()) o->run.stand_at = Eigen::Map<const Vec6d>(o->stand_at.data());
    rig::run_rig(o->run);
  });
}

}  // namespace vcloe::app
