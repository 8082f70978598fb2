// `vcloe run`: a reference on the robot (the MuJoCo virtual robot) under the visual-servo loop,
// recording the measured pose trace (rig::run_virtual_to_file; docs/traces.md,
// docs/virtual-robot.md).
#include <memory>

#include "cli_options.hpp"
#include "camera_option.hpp"
#include "commands.hpp"
#include "payload_option.hpp"
#include "vcloe/rig/runs.hpp"

namespace vcloe::app {

void add_run_command(CLI::App& app) {
  struct Options : rig::RunOptions {
    std::string backend = "virtual";
    PayloadOption payload_option;
  };
  auto o = std::make_shared<Options>();
  o->robot = defaults::robot_file();
  o->truth = defaults::truth_file();
  o->experiment = defaults::experiment_file();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run a reference on the robot under the visual-servo loop and record the measured pose trace");
  cmd->add_option("--backend", o->backend, "robot backend (virtual: the MuJoCo virtual robot)")
      ->check(CLI::IsMember({"virtual"}))
      ->capture_default_str();
  cmd->add_option("--truth", o->truth, "the virtual robot's truth file (never read by the twin)")->capture_default_str();
  cmd->add_option("--robot", o->robot, "robot file the reference is checked against")->capture_default_str();
  cmd->add_option("--experiment", o->experiment, "timing and outer controller")->capture_default_str();
  cmd->add_option("--reference", o->reference, "trajectory file")->required();
  cmd->add_option("--precorrection", o->precorrection,
                  "pre-corrected joint command for this reference (vcloe precorrect; docs/control.md)");
  add_out_option(cmd, o->out, "trace CSV to write")->required();
  cmd->add_option("--seed", o->seed, "measurement-noise seed")->capture_default_str();
  cmd->add_option("--noise-position", o->noise_position, "camera noise sigma per position channel (m)")
      ->capture_default_str();
  cmd->add_option("--noise-angle", o->noise_angle, "camera noise sigma per angle channel (rad)")->capture_default_str();
  add_camera_options(cmd, o->camera);
  add_payload_options(cmd, o->payload_option);
  add_force_flag(cmd, o->force, "overwrite existing output");
  cmd->callback([o] {
    o->validate();  // the options in their order: camera noise, camera, outputs, then the payload
    o->payload = payload_from(o->payload_option);
    rig::run_virtual_to_file(*o);
  });
}

}  // namespace vcloe::app
