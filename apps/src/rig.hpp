#pragma once
// The rig: where a controller (servo), a plant (the twin or the virtual robot, hw) and a pose
// source meet (DESIGN.md section 2: composed at the top, not inside a library). Shared by the
// simulate, run, identify, validate and demo commands.
#include <optional>
#include <string>

#include "vcloe/core/trace.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/hw/virtual_robot.hpp"
#include "vcloe/oe_ident/problem.hpp"
#include "vcloe/servo/loop.hpp"

namespace vcloe::app {

struct ExperimentSetup {
  std::string robot_file, experiment_file, reference_file;
  sim::RobotModel model;                  // the robot file (priors or identified model)
  servo::ExperimentConfig experiment;     // timing and outer controller
  excitation::FourierTrajectory trajectory;
  servo::PreparedReference reference;
};

// Loads the three files and checks every reference sample against the robot's limits before
// any motion: an infeasible reference is refused naming the time and the joint.
ExperimentSetup load_setup(const std::string& robot_file, const std::string& experiment_file,
                           const std::string& reference_file);
ExperimentSetup make_setup(const sim::RobotModel& model, const servo::ExperimentConfig& experiment,
                           const excitation::FourierTrajectory& trajectory, const std::string& reference_name);

// The twin's trace (measured = simulated pose) for parameters lambda.
PoseTrace twin_trace(const ExperimentSetup& setup, const sim::LambdaVector<double>& lambda);

// The virtual robot's trace: measured poses (noise), true poses, commands.
PoseTrace virtual_trace(const ExperimentSetup& setup, const sim::RobotModel& truth,
                        const hw::VirtualRobotOptions& options, const std::string& truth_file,
                        const std::optional<oe_ident::Payload>& payload = std::nullopt);

// An identification experiment from a measured trace recorded on this setup's reference.
oe_ident::Experiment to_experiment(const ExperimentSetup& setup, const PoseTrace& measured, const std::string& name,
                                   const std::optional<oe_ident::Payload>& payload = std::nullopt);

}  // namespace vcloe::app
