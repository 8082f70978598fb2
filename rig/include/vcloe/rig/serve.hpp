#pragma once
// The live rig's process entry points (docs/protocol.md, "Processes"): `vcloe robot serve`,
// `vision serve`, `control` and `rig listen` each call one of these with their options. Each role's part of the
// schedule is rig/roles.hpp; here it meets the sockets (bridge/), the wall clock, the start
// handshake, the safety monitor and the signals. Errors are vcloe::Error naming the option.
#include <cstdint>
#include <optional>
#include <string>

#include "vcloe/core/defaults.hpp"
#include "vcloe/oe_ident/payload.hpp"
#include "vcloe/rig/camera.hpp"
#include "vcloe/rig/common.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::rig {

struct RobotServeOptions {
  std::string backend = "virtual", truth, robot, experiment, reference, clock = "lockstep";
  RigEndpoints endpoints;
  TimeoutOptions timeouts;
  int max_invalid = 5;
  double max_command_speed = bridge::SafetyLimits{}.max_command_speed, hold = 0.5, start_timeout = 30;
  std::optional<oe_ident::Payload> payload;  // bolted to the virtual robot's platform
  // Before the run the robot moves from where it stands to the reference's start at this speed
  // (rad/s per joint; a faster one is slowed to max_command_speed), through the monitor's rate limit.
  double move_speed = 0.5;
  // --stand-at: the joint angles the virtual robot's drives hold before the move (none: it
  // stands at the start); a test of the move to start, or a robot left where the last run ended.
  std::optional<Vec6d> stand_at;
  // --precorrection: a pre-corrected command for this reference (vcloe precorrect / learn), added
  // tick by tick to the command due, before the safety monitor, as the in-process run adds it.
  std::string precorrection;
  // --move-speed positive, --stand-at finite (problem(): core/settings.hpp, the messages
  // beginning with the option), then the endpoints (validate() only: an ipc path is looked at),
  // before any file is read. Every time option (--start-timeout, --hold, the timeouts) is checked
  // once the experiment is read (serve_robot: rig_times_problem, rig/common.hpp).
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where = "") const;
};

// --stand-at (robot serve, rig run) against the truth file, before anything starts: each joint
// within limits.joint (encoder offsets taken off), a pose of the truth's kinematics there
// (forward kinematics from its home pose) away from the singularities (sim::check_pose).
std::optional<SettingProblem> stand_at_problem(const Vec6d& stand_at, const std::string& truth_file);
struct ExperimentSetup;  // rig/setup.hpp
// The robot's safety limits for a run of `setup` (rig/common.hpp safety_limits, --max-invalid,
// --max-command-speed, the robot file's limits.joint): robot serve's monitor, control's copy of
// its command check and rig run's check before any role starts. A rate limit reaching past the
// joint limit in one camera period is refused with its cause: at the default speed the
// experiment's timing.camera_hz (file and key), else --max-command-speed.
bridge::SafetyLimits robot_safety_limits(const RobotServeOptions& o, const ExperimentSetup& setup);
// The move from --stand-at to the reference's start at --move-speed (capped at max_command_speed)
// as the robot's StartRamp would refuse it, before anything starts (robot serve, rig run); then
// the platform along it (move_path_problem on the truth's kinematics, `truth_file`).
std::optional<SettingProblem> move_to_start_problem(const Vec6d& stand_at, const ExperimentSetup& setup,
                                                   double move_speed, double max_command_speed,
                                                   const std::string& truth_file);
// The platform along the move to the start: the truth's forward kinematics followed from where
// it stands at `stand_at` (as the virtual robot finds it: from the start pose, else the home
// pose) along the ramp's straight joint path, in steps of at most 5 mrad. "" if every pose
// keeps the safety stop's margins (the virtual robot's envelope) and the move ends at the pose
// the truth has at the start hold (found from `start_pose`); else where and why: the move would
// stop at a singularity, or the run would begin in another assembly mode (probe 19's --stand-at
// 0.99 0 0 0 0 0: beta -0.88 rad against the start's -0.03, the first commands then 0.36 rad a
// frame and a controlled stop at frame 2).
std::string move_path_problem(const sim::RobotModel& truth, const Vec6d& stand_at, const Vec6d& start_hold,
                              const Vec6d& start_pose);

// Serves the virtual robot behind the protocol until the run ends; a controlled stop throws
// vcloe::Error saying when and why (after holding the joints for `hold` s).
void serve_robot(const RobotServeOptions& options);
// What each role reads and checks before it binds a socket, done and discarded: the first step
// of serve_robot, serve_vision and run_control itself (one function each), so that `rig run`,
// calling them before it starts any process, refuses in one line whatever a role would refuse
// at its start — every file it reads included (docs/robustness.md, "Session 20's probe", M).
void check_robot_serve(const RobotServeOptions& options);
struct RobotPrepared {  // check_robot_serve's step, kept: what serve_robot runs on
  ExperimentSetup setup;
  sim::RobotFile truth;
};
RobotPrepared prepare_robot(const RobotServeOptions& options);

struct VisionServeOptions {
  std::string source = "virtual", experiment, rig, markers;  // rig, markers: "" = the defaults
  RigEndpoints endpoints;
  std::uint64_t seed = 1;
  double noise_position = defaults::kCameraNoisePosition, noise_angle = defaults::kCameraNoiseAngle;
  double robot_timeout = 2.0, start_timeout = 30;
  CameraOption camera;
  // validate(): the time options against the experiment's camera period (rig_times_problem),
  // then the endpoints and cameras (the file system: an experiment file, ipc paths looked at).
  void validate(const std::string& where = "") const;
};

// Publishes the pose stream of `source` (virtual | images:DIR | camera:LEFT,RIGHT) from the
// robot's start until it stops; prints how many poses were published.
void serve_vision(const VisionServeOptions& options);
void check_vision_serve(const VisionServeOptions& options);  // as check_robot_serve

struct ControlOptions {
  std::string robot, experiment, reference, out, clock = "lockstep";
  RigEndpoints endpoints;
  double robot_timeout = 0, start_timeout = 30;
  bool force = false, keep_partial_on_interrupt = false;
  std::optional<oe_ident::Payload> payload;  // bolted on for this run: recorded in the sidecar
  std::string precorrection;  // the robot's --precorrection: checked against the run, recorded in the sidecar
  // validate(): the endpoints, the outputs (TRACE, its sidecar, TRACE.partial), then the time
  // options against the experiment's camera period (rig_times_problem): files, so no problem().
  void validate(const std::string& where = "") const;
};

// Runs the visual-servo controller on the pose stream and writes the recorded trace.
void run_control(const ControlOptions& options);
void check_control(const ControlOptions& options);  // as check_robot_serve
ExperimentSetup prepare_control(const ControlOptions& options);  // check_control's step, kept

struct ListenOptions {
  std::string endpoint;
  double seconds = 10;
  int frames = 0;  // stop after this many poses (0: run for `seconds`)
  bool json = false;
  std::string keys;  // --keys DIR: listen to a keyed pose stream with the rig's listener key
  // An endpoint, seconds in (0, 86400], frames >= 0 (core/settings.hpp).
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where = "") const;
};

// Shows a live pose stream: a line a second (or, with json, only the summary at the end).
void listen(const ListenOptions& options);

}  // namespace vcloe::rig
