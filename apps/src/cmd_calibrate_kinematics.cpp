// `vcloe calibrate kinematics`: the robot's geometry, encoder offsets and marker frame from
// static poses measured by the camera (workflow::calibrate_kinematics_files; docs/calibration.md).
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/workflow/calibrate_kinematics.hpp"

namespace vcloe::app {

void add_calibrate_kinematics_command(CLI::App& parent) {
  auto o = std::make_shared<workflow::CalibrateKinematicsOptions>();
  auto json = std::make_shared<bool>(false);
  o->robot = defaults::robot_file();
  CLI::App* cmd = parent.add_subcommand(
      "kinematics", "Geometry, encoder offsets and marker frame from static poses (measured on the virtual robot or read)");
  cmd->add_option("--robot", o->robot, "robot file as drawn (structure and start values)")->capture_default_str();
  cmd->add_option("--poses", o->poses, "static-pose trace to fit (recorded on a rig); default: measure");
  cmd->add_option("--truth", o->truth, "virtual robot's truth file: measure on it, and compare the result with it");
  CLI::Option* measure = cmd->add_option("--measure", o->measure_out, "with --truth: static-pose trace to write (the data of the fit)");
  cmd->add_option("--result", o->result, "result JSON to write (parameters, sigma, null space, verdict, inputs)");
  add_out_option(cmd, o->out, "calibrated robot file to write");
  // Measuring on the virtual robot only (help "virtual robot: …"): with --poses nothing is
  // measured, so they are refused.
  cmd->add_option("--count", o->count, "virtual robot: poses to select and measure")->capture_default_str();
  cmd->add_option("--candidates", o->candidates, "virtual robot: candidate poses the selection chooses from")
      ->capture_default_str();
  cmd->add_option("--move", o->move_s, "virtual robot: time of each move (s)")->capture_default_str();
  cmd->add_option("--settle", o->settle_s, "virtual robot: wait after each move before measuring (s)")->capture_default_str();
  cmd->add_option("--hold", o->measure_s, "virtual robot: time the camera frames are averaged per pose (s)")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "virtual robot: pose selection and camera noise seed")->capture_default_str();
  cmd->add_option("--camera-residual", o->camera_residual,
                  "virtual robot: camera-to-base residual, pose of the base in the camera's base frame (6 numbers)")
      ->expected(6);
  std::vector<CLI::Option*> measuring = options_declared_for(cmd, "virtual robot:");
  measuring.push_back(measure);
  add_json_flag(cmd, *json);
  add_force_flag(cmd, o->force);
  add_quiet_flag(cmd, o->quiet);
  cmd->callback([o, json, measuring] {
    if (!o->poses.empty()) refuse_unused_options(measuring, "--poses", "measuring on the virtual robot: --truth without --poses");
    std::cout << workflow::calibrate_kinematics_files(*o).print(*json); });
}

}  // namespace vcloe::app
