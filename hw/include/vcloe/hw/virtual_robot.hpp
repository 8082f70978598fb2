#pragma once
// vcloe/hw/virtual_robot.hpp — the stand-in for real hardware (docs/design.md §6): the MuJoCo
// model of the robot with its own truth parameters, joint drives running their built-in PID
// (eq. 31 with hidden gains) at the controller rate, and joint friction as applied torques. A
// servo::CommandedRobot: the loop (servo::run_loop) steps it and a camera (a servo::PoseSource,
// e.g. servo::GaussianPoseNoise) measures it. The firmware's eq. (31) is deliberately its own
// code, independent of servo's model of it.
//
// Departures from the robot file it simulates where they act (docs/virtual-robot.md): the truth
// file's geometry (MuJoCo is built from it), each encoder's zero offset (Leg::encoder_offset:
// the drives servo on the encoder, so the crank settles at command - offset), backlash in the
// gears (the motor-side encoder leads the crank by half the play in the torque's direction) and
// the platform's centre of mass off E (RobotModel::platform_com: MuJoCo's platform body, as the
// twin's model has it).
#include <optional>
#include <string>
#include <vector>

#include "vcloe/hw/mujoco_model.hpp"

namespace vcloe::hw {

struct VirtualRobotOptions {
  MujocoOptions engine;
  double controller_hz = 1000.0;
  bool joint_friction = true;   // the truth's Coulomb and viscous friction (off: rigid comparison)
  bool start_holding = true;    // drives start holding the robot against gravity (docs/loop.md)
  bool safety_stop = true;
  // Safety stop (what a real controller's limit monitoring does): the true pose must pass the
  // robot file's pose check with the joint limit widened by this margin and the singularity
  // margins halved, in the working assembly mode, with the loops closed to this bound.
  double joint_range_margin = 0.1;    // rad
  double max_closure_error = 1e-3;    // m
  // The joint command the drives hold before the run (the loop's start hold, IK of the start
  // pose on the robot file the controller has). Set: the robot stands where its encoders read
  // it — with encoder offsets, backlash or a truth geometry off the robot file, not at the start
  // pose (found by the truth's forward kinematics). Unset: it stands at the start pose.
  std::optional<Vec6d> start_command;
  // Backlash of every drive's gear (unmodelled by the twin): the full play (rad) and the torque
  // over which the crank crosses from one flank to the other (N*m; smooth, tanh).
  double backlash = 0, backlash_torque = 1;
};

class VirtualRobot {
 public:
  // The robot as it really is (config/truth.yaml): its structure and its truth values `lambda`
  // (consistent inertias required after engine_consistent, the drives' gains, joint friction).
  VirtualRobot(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda, const Vec6d& start_pose,
               const VirtualRobotOptions& options);

  Vec6d pose() const { return engine_.platform_pose(); }  // the true pose (never seen by identification)
  Vec6d joint_angles() const { return encoders(engine_.joint_angles()); }  // the encoders (rad)
  Vec6d crank_angles() const { return engine_.joint_angles(); }  // the true crank angles (rad)
  // One controller period: each drive runs eq. (31) on its encoder angle and the held
  // command U, and the torque (plus friction, per engine step) is applied.
  // Returns false (and failure() says why) when the engine fails or the safety stop trips.
  bool step(const Vec6d& U);
  const std::string& failure() const { return failure_; }
  double closure_error() const { return engine_.closure_error(); }
  // The drives' torques held over the last period (N*m; the holding torques before the first)
  // and the platform's true twist [h_dot; omega]: what control/'s predictions are checked on.
  const Vec6d& torque() const { return tau_; }
  Vec6d twist() const { return engine_.platform_twist(); }
  const std::vector<std::string>& adjustments() const { return adjustments_; }

 private:
  sim::RobotModel model_;
  std::vector<std::string> adjustments_;
  sim::LambdaVector<double> truth_;
  VirtualRobotOptions options_;
  Vec6d standing_;  // the pose it stands at before the run
  MujocoRobot engine_;
  int substeps_ = 1;
  // Drive state (eq. 31): integral, previous command and encoder angle.
  Vec6d integral_ = Vec6d::Zero(), previous_command_ = Vec6d::Zero(), previous_theta_ = Vec6d::Zero();
  bool has_previous_ = false;
  std::string failure_;
  sim::RobotModel envelope_;  // the model with the safety-stop limits

  Vec6d tau_ = Vec6d::Zero();  // the torque held over the last period (backlash: which flank)

  bool within_envelope();
  // What the encoders read at true crank angles theta: offset, and half the play towards tau_.
  Vec6d encoders(const Vec6d& theta) const;
  void start_holding(const Vec6d& start_pose);
};

// Where the robot stands before the run: `start_pose`, or with options.start_command set, the
// pose at which the truth's encoders read that command (the drives holding it).
Vec6d standing_pose(const sim::RobotModel& truth, const sim::LambdaVector<double>& lambda, const Vec6d& start_pose,
                    const VirtualRobotOptions& options);

}  // namespace vcloe::hw
