// `vcloe trajectory random|check`: make and check pose-space Fourier trajectories (eq. 37;
// excitation::write_random_trajectory, excitation::check_trajectory_file).
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/excitation/workflows.hpp"

namespace vcloe::app {

void add_trajectory_command(CLI::App& app) {
  struct Options : excitation::RandomTrajectoryFileOptions {
    std::string file;
    bool json = false, twin = false;
    excitation::TwinCheckFiles twin_files{defaults::excitation_file(), defaults::experiment_file()};
  };
  auto opt = std::make_shared<Options>();
  opt->robot = defaults::robot_file();
  CLI::App* cmd = app.add_subcommand("trajectory", "Make or check pose-space Fourier trajectories (Li et al. 2019 eq. 37)");
  cmd->require_subcommand(1);

  CLI::App* random = cmd->add_subcommand(
      "random", "Write a random trajectory that passes every limit check (validation sets; seeded)");
  random->add_option("--robot", opt->robot, "robot file")->capture_default_str();
  random->add_option("--seed", opt->seed, "random seed (same seed, same trajectory)")->capture_default_str();
  random->add_option("--harmonics", opt->random.harmonics, "number of harmonics n")->capture_default_str();
  random->add_option("--f0", opt->random.f0, "fundamental frequency (Hz)")->capture_default_str();
  random->add_option("--duration", opt->random.duration, "duration (s)")->capture_default_str();
  random->add_option("--position-amplitude", opt->random.position_amplitude, "per-axis amplitude (m)")
      ->capture_default_str();
  random->add_option("--angle-amplitude", opt->random.angle_amplitude, "per-axis amplitude (rad)")
      ->capture_default_str();
  random->add_flag("--at-rest", opt->random.start_at_rest,
                   "start at rest: zero velocity and acceleration at t = 0 (a reference to repeat, vcloe learn)");
  add_out_option(random, opt->out, "trajectory YAML to write")->required();
  add_force_flag(random, opt->force, "overwrite an existing file");
  random->callback([opt] { std::cout << excitation::write_random_trajectory(*opt).text; });

  CLI::App* check = cmd->add_subcommand("check", "Check every sample of a trajectory against the robot's limits");
  check->add_option("file", opt->file, "trajectory YAML")->required();
  check->add_option("--robot", opt->robot, "robot file")->capture_default_str();
  check->add_option("--max-joint-velocity", opt->random.limits.max_joint_velocity, "rad/s")->capture_default_str();
  check->add_option("--max-joint-acceleration", opt->random.limits.max_joint_acceleration, "rad/s^2")
      ->capture_default_str();
  CLI::Option* twin = check->add_flag("--twin", opt->twin,
                  "also run it through the twin at the robot file's values, with and without the payload of\n"
                  "--config's tracking.*, and report how close to the safety stop each comes (docs/excitation-file.md)");
  check->add_option("--config", opt->twin_files.config, "excitation settings (tracking.*) for --twin")
      ->capture_default_str()
      ->needs(twin);
  check->add_option("--experiment", opt->twin_files.experiment, "timing and outer controller for --twin")
      ->capture_default_str()
      ->needs(twin);
  add_json_flag(check, opt->json, "print the report as JSON");
  check->callback([opt] {
    const excitation::TrajectoryCheck c = excitation::check_trajectory_file(
        opt->robot, opt->file, opt->random.limits,
        opt->twin ? std::optional<excitation::TwinCheckFiles>(opt->twin_files) : std::nullopt);
    std::cout << c.report.print(opt->json);
    if (!c.failure.empty()) throw Error(c.failure);
  });
}

}  // namespace vcloe::app
