// `vcloe run`: a reference on the robot (the MuJoCo virtual robot) under the visual-servo loop,
// recording the measured pose trace (docs/traces.md, docs/virtual-robot.md).
#include <iostream>

#include "camera_option.hpp"
#include "commands.hpp"
#include "experiment_setup.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/oe_ident/payload.hpp"

namespace vcloe::app {

void add_run_command(CLI::App& app) {
  struct Options {
    std::string backend = "virtual", robot, truth, experiment, reference, out;
    std::uint64_t seed = 1;
    double noise_position = 2e-5, noise_angle = 5e-5;
    double payload_mass = 0;
    std::vector<double> payload_inertia;
    bool force = false;
    CameraOption camera;
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
  const CLI::Option* mass = cmd->add_option("--payload-mass", o->payload_mass, "known payload bolted to the platform (kg)");
  const CLI::Option* inertia =
      cmd->add_option("--payload-inertia", o->payload_inertia, "its principal moments Ix Iy Iz (kg*m^2), with --payload-mass")
          ->expected(3);
  cmd->add_flag("--force", o->force, "overwrite existing output");
  cmd->callback([o, mass, inertia] {
    // A payload is both options or neither (a mass alone would silently be a point mass).
    std::optional<oe_ident::Payload> payload;
    if (mass->count() > 0 && inertia->count() == 0)
      fail("--payload-mass", "needs --payload-inertia Ix Iy Iz too (the payload's principal moments, kg*m^2)");
    if (inertia->count() > 0 && mass->count() == 0) fail("--payload-inertia", "needs --payload-mass too (kg)");
    if (mass->count() > 0) {
      const Vec3d moments(o->payload_inertia[0], o->payload_inertia[1], o->payload_inertia[2]);
      payload = oe_ident::make_payload(o->payload_mass, moments, "--payload-mass/--payload-inertia");
    }
    for (const std::string& f : {o->out, sidecar_path(o->out)})
      check_output_path(f, o->force, {o->robot, o->experiment, o->reference, o->truth});
    const ExperimentSetup s = load_setup(o->robot, o->experiment, o->reference);
    const sim::RobotFile truth = sim::load_robot(o->truth, true);
    VirtualRun vo;
    vo.seed = o->seed;
    if (!(o->noise_position >= 0) || !(o->noise_angle >= 0)) fail("--noise-*", "noise must be non-negative");
    vo.noise_sigma << o->noise_position, o->noise_position, o->noise_position, o->noise_angle, o->noise_angle,
        o->noise_angle;
    const auto add_camera_metadata = install_camera(o->camera, vo);
    PoseTrace t = virtual_trace(s, truth, vo, o->truth, payload);
    add_camera_metadata(t);
    write_trace(o->out, t, o->force);
    print_written(o->out, t);
    warn_if_not_following(t, o->out);
  });
}

}  // namespace vcloe::app
