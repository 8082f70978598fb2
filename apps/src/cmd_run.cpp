// `vcloe run`: a reference on the robot (the MuJoCo virtual robot) under the visual-servo loop,
// recording the measured pose trace (docs/traces.md, docs/virtual-robot.md).
#include <iostream>

#include "camera_option.hpp"
#include "commands.hpp"
#include "experiment_setup.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"
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
    bool mass_given = false, inertia_given = false;

    // Every option before any file is read or the robot moves. Camera noise: at most 10 mm and
    // 0.1 rad (1e300 made the engine diverge; a noise-free camera, 0, is allowed). A payload is
    // both options or neither (a mass alone would silently be a point mass).
    std::optional<oe_ident::Payload> validate() const {
      if (!(noise_position >= 0 && noise_position <= 0.01))
        fail("--noise-position", "expected a camera noise sigma in [0, 0.01] m, got " + exact_number(noise_position));
      if (!(noise_angle >= 0 && noise_angle <= 0.1))
        fail("--noise-angle", "expected a camera noise sigma in [0, 0.1] rad, got " + exact_number(noise_angle));
      if (mass_given && !inertia_given)
        fail("--payload-mass", "needs --payload-inertia Ix Iy Iz too (the payload's principal moments, kg*m^2)");
      if (inertia_given && !mass_given) fail("--payload-inertia", "needs --payload-mass too (kg)");
      camera.validate();
      for (const std::string& f : {out, sidecar_path(out)}) check_output_path(f, force, {robot, experiment, reference, truth});
      if (!mass_given) return std::nullopt;
      const Vec3d moments(payload_inertia[0], payload_inertia[1], payload_inertia[2]);
      return oe_ident::make_payload(payload_mass, moments, "--payload-mass/--payload-inertia");
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
  const CLI::Option* mass = cmd->add_option("--payload-mass", o->payload_mass, "known payload bolted to the platform (kg)");
  const CLI::Option* inertia =
      cmd->add_option("--payload-inertia", o->payload_inertia, "its principal moments Ix Iy Iz (kg*m^2), with --payload-mass")
          ->expected(3);
  cmd->add_flag("--force", o->force, "overwrite existing output");
  cmd->callback([o, mass, inertia] {
    o->mass_given = mass->count() > 0;
    o->inertia_given = inertia->count() > 0;
    const std::optional<oe_ident::Payload> payload = o->validate();
    const ExperimentSetup s = load_setup(o->robot, o->experiment, o->reference);
    const sim::RobotFile truth = sim::load_robot(o->truth, true);
    VirtualRun vo;
    vo.seed = o->seed;
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
