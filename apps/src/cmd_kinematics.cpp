// `vcloe kinematics`: the robot file's start hold, inverse and forward kinematics
// (workflow::kinematics; docs/robot-file.md, "Kinematics from the command line").
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/workflow/kinematics.hpp"

namespace vcloe::app {

void add_kinematics_command(CLI::App& app) {
  struct Options : workflow::KinematicsOptions {
    std::vector<double> pose_values, theta_values;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  o->robot = defaults::robot_file();
  o->experiment = defaults::experiment_file();
  CLI::App* cmd = app.add_subcommand(
      "kinematics", "The robot file's kinematics: a reference's start hold, the joint angles of a pose, the pose at joint angles");
  cmd->add_option("--robot", o->robot, "robot file (docs/robot-file.md)")->capture_default_str();
  cmd->add_option("--experiment", o->experiment, "with --reference: timing (experiment file)")->capture_default_str();
  cmd->add_option("--reference", o->reference, "print the start hold of this trajectory file (IK of its start pose)");
  cmd->add_option("--pose", o->pose_values, "x y z (m) alpha beta gamma (rad): print its joint angles (IK)")->expected(6);
  cmd->add_option("--theta", o->theta_values, "theta1 .. theta6 (rad, as the encoders read): print the pose (FK)")
      ->expected(6);
  add_json_flag(cmd, o->json);
  cmd->callback([o] {
    if (!o->pose_values.empty()) o->pose = Eigen::Map<const Vec6d>(o->pose_values.data());
    if (!o->theta_values.empty()) o->encoders = Eigen::Map<const Vec6d>(o->theta_values.data());
    std::cout << workflow::kinematics(*o).print(o->json);
  });
}

}  // namespace vcloe::app
