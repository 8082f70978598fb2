// `vcloe trajectory random|check`: make and check pose-space Fourier trajectories (eq. 37).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/excitation/fourier.hpp"

namespace vcloe::app {

namespace {

struct TrajectoryOptions {
  std::string robot;
  std::string out;
  std::string file;
  std::uint64_t seed = 1;
  excitation::RandomTrajectoryOptions random;
  bool force = false;
  bool json = false;
};

nlohmann::json report_json(const excitation::FeasibilityReport& r) {
  nlohmann::json j = {{"feasible", r.feasible},
          {"reason", r.reason},
          {"time", r.time},
          {"joint", r.joint + 1},
          {"samples", r.samples},
          {"max_abs_theta", r.max_abs_theta},
          {"max_abs_theta_dot", r.max_abs_theta_dot},
          {"max_abs_theta_ddot", r.max_abs_theta_ddot},
          {"min_transmission", r.min_transmission},
          {"min_parallel_conditioning", r.min_parallel_conditioning}};
  const auto& g = r.joint_error;
  if (g.max_rotation > 0)  // at least one pose passed the singularity checks
    j["joint_error"] = {{"max_displacement_mm_per_mrad", g.max_displacement},
                        {"max_rotation_mrad_per_mrad", g.max_rotation},
                        {"displacement_over_rotation_m", {g.min_ratio, g.max_ratio}}};
  return j;
}

void print_report(const excitation::FeasibilityReport& r) {
  std::cout << (r.feasible ? "feasible" : "NOT feasible: " + r.reason) << "\n"
            << "  samples checked        " << r.samples << "\n"
            << "  max |theta|            " << r.max_abs_theta << " rad\n"
            << "  max |theta_dot|        " << r.max_abs_theta_dot << " rad/s\n"
            << "  max |theta_ddot|       " << r.max_abs_theta_ddot << " rad/s^2\n"
            << "  min transmission       " << r.min_transmission << "\n"
            << "  min J_a2 conditioning  " << r.min_parallel_conditioning << "\n";
  const auto& g = r.joint_error;
  if (g.max_rotation > 0)
    std::cout << "  1 mrad at one joint    moves the platform <= " << g.max_displacement << " mm, turns it <= "
              << g.max_rotation << " mrad (displacement/rotation " << g.min_ratio << " to " << g.max_ratio
              << " m)\n";
}

}  // namespace

void add_trajectory_command(CLI::App& app) {
  auto opt = std::make_shared<TrajectoryOptions>();
  opt->robot = default_robot_file();
  CLI::App* cmd = app.add_subcommand("trajectory", "Make or check pose-space Fourier trajectories (seed 004 eq. 37)");
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
  random->add_option("--out", opt->out, "trajectory YAML to write")->required();
  random->add_flag("--force", opt->force, "overwrite an existing file");
  random->callback([opt] {
    opt->random.validate("trajectory random options");
    check_output_path(opt->out, opt->force, {opt->robot});
    const sim::RobotModel robot = sim::load_robot(opt->robot).model;
    const auto tr = excitation::random_feasible_trajectory(robot, opt->seed, opt->random);
    write_file_atomically(opt->out, excitation::trajectory_to_yaml(tr), opt->force);
    std::cout << "wrote " << opt->out << " (" << tr.harmonics() << " harmonics, f0 " << tr.f0 << " Hz, "
              << tr.duration << " s, seed " << opt->seed << ")\n";
    // The amplitudes are shrunk until the trajectory is feasible: say so when they were.
    Vec6d peak = Vec6d::Zero();
    for (int k = 0; k <= 2000; ++k) peak = peak.cwiseMax((tr.pose(k / (2000 * tr.f0)) - tr.offset).cwiseAbs());
    const double reached_position = peak.head<3>().maxCoeff(), reached_angle = peak.tail<3>().maxCoeff();
    if (reached_position < 0.99 * opt->random.position_amplitude || reached_angle < 0.99 * opt->random.angle_amplitude)
      std::cout << "amplitudes shrunk to fit the limits: largest excursion " << reached_position << " m and "
                << reached_angle << " rad (requested " << opt->random.position_amplitude << " m, "
                << opt->random.angle_amplitude << " rad)\n";
    print_report(excitation::check_feasibility(robot, tr, opt->random.limits));
  });

  CLI::App* check = cmd->add_subcommand("check", "Check every sample of a trajectory against the robot's limits");
  check->add_option("file", opt->file, "trajectory YAML")->required();
  check->add_option("--robot", opt->robot, "robot file")->capture_default_str();
  check->add_option("--max-joint-velocity", opt->random.limits.max_joint_velocity, "rad/s")->capture_default_str();
  check->add_option("--max-joint-acceleration", opt->random.limits.max_joint_acceleration, "rad/s^2")
      ->capture_default_str();
  check->add_flag("--json", opt->json, "print the report as JSON");
  check->callback([opt] {
    opt->random.limits.validate("trajectory check options");
    const sim::RobotModel robot = sim::load_robot(opt->robot).model;
    const auto tr = excitation::load_trajectory(opt->file);
    const auto r = excitation::check_feasibility(robot, tr, opt->random.limits);
    if (opt->json) std::cout << report_json(r).dump(2) << "\n";
    else print_report(r);
    if (!r.feasible) throw Error(opt->file + ": trajectory not feasible: " + r.reason);
  });
}

}  // namespace vcloe::app
