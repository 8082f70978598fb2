#pragma once
// Starting the live rig's three processes on this machine and waiting for them: what `vcloe rig
// run` and `vcloe demo --rig` do (docs/protocol.md, "Processes").
#include <cstdint>
#include <optional>
#include <string>

#include "vcloe/core/defaults.hpp"
#include "vcloe/rig/camera.hpp"
#include "vcloe/rig/common.hpp"
#include "vcloe/oe_ident/payload.hpp"

namespace vcloe::rig {

struct RigRun {
  std::string robot, truth, experiment, reference, out;
  std::string clock = "lockstep";   // lockstep | realtime
  std::string transport = "ipc";    // ipc | tcp
  std::uint64_t seed = 1;           // the virtual camera's noise
  double noise_position = defaults::kCameraNoisePosition, noise_angle = defaults::kCameraNoiseAngle;
  CameraOption camera;
  std::optional<oe_ident::Payload> payload;
  TimeoutOptions timeouts;          // the robot's --pose-timeout and --heartbeat-timeout
  double robot_timeout = 0;         // control's: 0 = its clock's default (5 camera periods realtime, 2 s lockstep)
  double vision_robot_timeout = 2;  // vision's --robot-timeout
  double start_timeout = 30, hold = 0.5;  // each process's --start-timeout; the robot's --hold
  double move_speed = 0.5;                // the robot's --move-speed (rad/s)
  std::optional<Vec6d> stand_at;         // the robot's --stand-at (none: it stands at the start)
  std::string precorrection;             // robot's and control's --precorrection (none: the servo alone)
  // Given endpoints ("" = fresh: a new 0700 directory in /tmp for ipc, free loopback ports for tcp).
  RigEndpoints endpoints{"", "", "", "", "", false};
  bool force = false;

  // Every option the three processes would refuse, refused here: one line, before any starts
  // (camera noise, camera, timeouts against the experiment's camera period). problem(): the
  // noise and the camera; validate() then reads the experiment for the timeouts (a file: not in
  // problem(), which stays pure). The messages begin with the option (core/settings.hpp).
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where = "") const;
  // Its time options for rig_times_problem (rig/common.hpp); `move_s`: the move to the start.
  RigTimes times(double move_s = 0) const;
};

// Starts `vcloe robot serve`, `vision serve --source virtual` and `control` (this binary) on
// the endpoints given or fresh ones (printed before they start) as one core ChildGroup (each ends
// when this process does, even by SIGKILL), waits for all three and removes the ipc directory. When one ends with an
// error the others get a grace period to come to their controlled stop, then are ended.
// Throws vcloe::Error naming the process(es) that failed; the trace control wrote stays.
void run_rig(const RigRun& run);  // validates first, then checks the outputs (TRACE, its sidecar)

}  // namespace vcloe::rig
