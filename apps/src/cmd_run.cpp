// `vcloe run`: a reference on the robot (the MuJoCo virtual robot) under the visual-servo loop,
// recording the measured pose trace (docs/traces.md, docs/virtual-robot.md).
#include <iostream>

#include "camera_option.hpp"
#include "commands.hpp"
#include "vcloe/rig/setup.hpp"
#include "payload_option.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/oe_ident/payload.hpp"

namespace vcloe::app {

void add_run_command(CLI::App& app) {
  struct Options {
    std::string backend = "virtual", robot, truth, experiment, reference, out;
    std::uint64_t seed = 1;
    double noise_position = 2e-5, noise_angle = 5e-5;
    PayloadOption payload;
    bool force = false;
    rig::CameraOption camera;

    // Every option before any file is read or the robot moves. Camera noise: at most 10 mm and
    // 0.1 rad (1e300 made the engine diverge; a noise-free camera, 0, is allowed); the payload
    // both options or neither (payload_option.hpp).
    std::optional<oe_ident::Payload> validate() const {
      rig::check_camera_noise(noise_position, noise_angle);
      camera.validate();
      for (const std::string& f : {out, sidecar_path(out)}) check_output_path(f, force, {robot, experiment, reference, truth});
      return payload_from(payload);
    }
  };
  auto o = std::make_shared<Options>();
  o->robot = default_robot_file();
  o->truth = default_config_dir() + "/truth.yaml";
  o->experiment = default_config_dir() + "/experiment.yaml";
  CLI::App* cmd = app.add_subcommand(
      "run", "Run a reference on the robot under the visual-servo loop and record the measured pose trace");
  cmd->add_option("--backend", o->backend, "robot backend (virtual: the MuJoCo virtual robot)")
      ->check(CLI::IsMember({"virtual"}))
      ->capture_default_str();
  cmd->add_option("--truth", o->truth, "the virtual robot's truth file (never read by the twin)")->capture_default_str();
  cmd->add_option("--robot", o->robot, "robot file the reference is checked against")->capture_default_str();
  cmd->add_option("--experiment", o->experiment, "timing and outer controller")->capture_default_str();
  cmd->add_option("--reference", o->reference, "trajectory file")->required();
  cmd->add_option("--out", o->out, "trace CSV to write")->required();
  cmd->add_option("--seed", o->seed, "measurement-noise seed")->capture_default_str();
  cmd->add_option("--noise-position", o->noise_position, "camera noise sigma per position channel (m)")
      ->capture_default_str();
  cmd->add_option("--noise-angle", o->noise_angle, "camera noise sigma per angle channel (rad)")->capture_default_str();
  add_camera_options(cmd, o->camera);
  add_payload_options(cmd, o->payload);
  cmd->add_flag("--force", o->force, "overwrite existing output");
  cmd->callback([o] {
    const std::optional<oe_ident::Payload> payload = o->validate();
    const rig::ExperimentSetup s = rig::load_setup(o->robot, o->experiment, o->reference);
    const sim::RobotFile truth = sim::load_robot(o->truth, true);
    rig::VirtualRun vo;
    vo.seed = o->seed;
    vo.noise_sigma << o->noise_position, o->noise_position, o->noise_position, o->noise_angle, o->noise_angle,
        o->noise_angle;
    const auto add_camera_metadata = rig::install_camera(o->camera, vo);
    PoseTrace t = rig::virtual_trace(s, truth, vo, o->truth, payload);
    add_camera_metadata(t);
    write_trace(o->out, t, o->force);
    rig::print_written(o->out, t);
    rig::warn_if_not_following(t, o->out);
  });
}

}  // namespace vcloe::app
