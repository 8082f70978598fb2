// `vcloe rig run`: the live rig on this machine — `vcloe robot serve` (the virtual robot),
// `vision serve --source virtual` and `control` as three processes over ZeroMQ — recording the
// trace `identify` reads. With --clock lockstep the measured poses equal those of `vcloe run
// --backend virtual` with the same seed, truth and reference (docs/protocol.md, "Processes").
#include "camera_option.hpp"
#include "commands.hpp"
#include "payload_option.hpp"
#include "rig_launch.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/servo/timing.hpp"

namespace vcloe::app {

void add_rig_run_command(CLI::App& rig) {
  struct Options {
    RigRun run;
    PayloadOption payload;
  };
  auto o = std::make_shared<Options>();
  RigRun& r = o->run;
  r.robot = default_robot_file();
  r.truth = default_config_dir() + "/truth.yaml";
  r.experiment = default_config_dir() + "/experiment.yaml";
  CLI::App* cmd = rig.add_subcommand("run", "Run a reference through the rig's three processes (robot, vision, control)");
  cmd->add_option("--reference", r.reference, "trajectory file")->required();
  cmd->add_option("--out", r.out, "trace CSV to write")->required();
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
  cmd->add_flag("--force", r.force, "overwrite an existing trace");
  cmd->callback([o] {
    RigRun& r = o->run;
    // Every option the three processes would refuse, refused here: one line, before any starts.
    defaults::check_camera_noise(r.noise_position, r.noise_angle);
    r.camera.validate();
    const double period = servo::load_experiment(r.experiment).timing.camera_period();
    r.timeouts.validate(period, r.experiment);
    r.payload = payload_from(o->payload);
    for (const std::string& f : {r.out, sidecar_path(r.out)})
      check_output_path(f, r.force, {r.robot, r.experiment, r.reference, r.truth});
    run_rig(r);
  });
}

}  // namespace vcloe::app
