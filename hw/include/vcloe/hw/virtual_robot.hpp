#pragma once
// vcloe/hw/virtual_robot.hpp — the stand-in for real hardware (DESIGN.md section 6): the MuJoCo
// model of the robot with its own truth parameters, joint drives running their built-in PID
// (eq. 31 with hidden gains) at the controller rate, joint friction as applied torques, and a
// pose measurement of the true platform pose with per-channel Gaussian noise. Latency and the
// camera rate are the loop's business (servo::run_visual_servo).
#include <cstdint>
#include <functional>
#include <random>

#include "vcloe/hw/mujoco_model.hpp"

namespace vcloe::hw {

struct VirtualRobotOptions {
  MujocoOptions engine;
  double controller_hz = 1000.0;
  // Measurement noise per channel, optical-CMM level (docs/virtual-robot.md): 20 um, 50 urad.
  Vec6d noise_sigma = (Vec6d() << 2e-5, 2e-5, 2e-5, 5e-5, 5e-5, 5e-5).finished();
  // Optional camera model replacing the Gaussian noise above: the measured pose for a true
  // pose. The rig layer installs one (e.g. vision::StereoCamera, the stereo pose pipeline on
  // noisy marker centroids); hw itself knows nothing about cameras.
  std::function<Vec6d(const Vec6d& true_pose)> camera;
  std::uint64_t seed = 1;
  // Safety stop (what a real controller's limit monitoring does): the true pose must pass the
  // robot file's pose check with the joint limit widened by this margin and the singularity
  // margins halved, in the working assembly mode, with the loops closed to this bound.
  double joint_range_margin = 0.1;    // rad
  double max_closure_error = 1e-3;    // m
};

class VirtualRobot {
 public:
  // `truth` is the robot as it really is (config/truth.yaml): consistent inertias required
  // (after engine_consistent), the gains of its drives and its joint friction.
  VirtualRobot(const sim::RobotModel& truth, const Vec6d& start_pose, const VirtualRobotOptions& options);

  Vec6d pose() const { return engine_.platform_pose(); }  // the true pose (never seen by identification)
  // One controller period: each drive runs eq. (31) on its encoder angle and the held
  // command U, and the torque (plus friction, per engine step) is applied.
  // Returns false (and failure() says why) when the engine fails or the safety stop trips.
  bool step(const Vec6d& U);
  const std::string& failure() const { return failure_; }
  // What the camera reports for a true pose: options.camera if set, else pose + N(0, sigma^2)
  // per channel.
  Vec6d measure(const Vec6d& true_pose);
  double closure_error() const { return engine_.closure_error(); }
  const std::vector<std::string>& adjustments() const { return adjustments_; }

 private:
  sim::RobotModel truth_;
  std::vector<std::string> adjustments_;
  VirtualRobotOptions options_;
  MujocoRobot engine_;
  int substeps_ = 1;
  std::mt19937_64 rng_;
  // Drive state (eq. 31): integral, previous command and encoder angle.
  Vec6d integral_ = Vec6d::Zero(), previous_command_ = Vec6d::Zero(), previous_theta_ = Vec6d::Zero();
  bool has_previous_ = false;
  std::string failure_;
  sim::RobotModel envelope_;  // truth_ with the safety-stop limits

  bool within_envelope();
};

}  // namespace vcloe::hw
