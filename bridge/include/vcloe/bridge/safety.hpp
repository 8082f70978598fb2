#pragma once
// vcloe/bridge/safety.hpp — the robot side's watchdog (docs/design.md §6 and §10): when the
// pose stream goes silent, too many poses in a row are invalid, the controller stops sending,
// or a command is outside the joint range, faster than the rate limit or malformed, the robot
// comes to a controlled stop (holds position, drives enabled) and says why in its status.
//
// Pure bookkeeping on times the caller passes (s, any steady clock): no clock, no socket, so
// each rule is specified by a test with made-up times (tests/bridge/test_safety.cpp).
#include <optional>
#include <string>

#include "vcloe/bridge/messages.hpp"
#include "vcloe/core/defaults.hpp"
#include "vcloe/core/settings.hpp"

namespace vcloe::bridge {

struct SafetyLimits {
  double pose_timeout = 0.02;        // s; a pose stream silent longer than this stops (2 camera periods at 100 Hz)
  // s; from the start to the run's first pose (at least pose_timeout): the pipeline's first frame
  // may come late (a role descheduled as the run begins); until then the drives hold the start
  // and no command can come, since the controller acts on poses.
  double first_pose_timeout = 0.25;
  int max_invalid_in_row = 5;        // invalid (occluded, rejected) poses in a row that stop
  double heartbeat_timeout = 0.05;   // s; no command or heartbeat from the controller for longer stops
  double joint_limit = 0.9948;       // rad; every command must satisfy |theta_i| <= joint_limit
  // rad/s, a speed over one camera period. Each controller tick (robot time, never the frames'
  // numbers or stamps) adds max_command_speed * Tc to each joint's allowance, which holds at most
  // one camera period's reach (max_command_speed * T_camera); the command applied moves at most
  // the allowance, which it uses up. So a controller stepping once a camera period at up to this
  // speed is applied untouched (as `vcloe run` applies it), anything faster is held back, and
  // over any n ticks a joint moves at most (n * Tc + T_camera) * max_command_speed. A command
  // further than one camera period's reach from the one applied stops the robot (docs/protocol.md,
  // "Safety"). 10 rad/s (core/defaults.hpp): 0.1 rad reach at 100 Hz, above the check's 3 rad/s.
  double max_command_speed = defaults::kMaxCommandSpeed;

  // The first limit out of range ("<key>: what is expected"); validate throws it as
  // vcloe::Error "<where>: <message>" (core/settings.hpp).
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where = "safety limits") const;
  // The rate limit must hold something back: one camera period's reach (max_command_speed *
  // camera_period) at most joint_limit, half the joint range (99.48 rad/s at 100 Hz and the
  // default 0.9948 rad; 1e12 switched the limit off). Checked by every SafetyMonitor.
  // `sources` says where joint_limit and camera_period came from (files and keys), if known.
  std::optional<SettingProblem> speed_problem(double camera_period, const std::string& sources = "") const;
};

struct StopCause {
  StopReason reason = StopReason::None;
  std::string detail;  // plain words with the values that tripped it
};

class SafetyMonitor {
 public:
  // Throws vcloe::Error naming the first invalid limit.
  SafetyMonitor(const SafetyLimits& limits, double camera_period, double controller_period);

  // The watch starts now (the run begins): both streams count as fresh.
  void start(double now);
  void on_pose(double now, bool valid);
  void on_controller(double now);  // any command or heartbeat from the controller
  // A command for camera frame `frame` (-1: the start hold), checked against the joint range.
  // The first failure is kept.
  void on_command(const Vec6d& theta, std::int64_t frame);
  // The rate limit, once per controller tick: `target` is the command due (the newest received
  // whose tick has come, or the hold); returns the command to apply, which moves each joint at
  // most its allowance (SafetyLimits::max_command_speed) from the one applied at the tick before,
  // whatever the messages said. A target further than max_command_speed * camera_period from
  // it trips CommandRateLimit (the command is then not applied: the last one is returned).
  const Vec6d& limit(const Vec6d& target);
  // Where the drives stand (the start hold), at rest: a full allowance.
  void set_applied(const Vec6d& theta) {
    applied_ = theta;
    allowance_.setConstant(limits_.max_command_speed * camera_period_);
  }
  const Vec6d& applied() const { return applied_; }
  std::uint64_t limited_ticks() const { return limited_ticks_; }  // ticks the limit held a joint back
  void on_malformed_command(const std::string& why);
  void on_invalid_stream(const std::string& why);  // a pose stream it cannot read (InvalidPoses)

  // The stop that is due at `now`, if any (the first one found stays).
  const std::optional<StopCause>& check(double now);
  const std::optional<StopCause>& stop() const { return stop_; }

 private:
  SafetyLimits limits_;
  double camera_period_, controller_period_;
  bool started_ = false, pose_in_run_ = false;
  double last_pose_ = 0, last_controller_ = 0;
  int invalid_in_row_ = 0;
  Vec6d applied_ = Vec6d::Zero();
  Vec6d allowance_ = Vec6d::Zero();  // rad per joint the next tick may move, at most the reach
  std::uint64_t limited_ticks_ = 0;
  std::optional<StopCause> stop_;

  void trip(StopReason reason, const std::string& detail);
};

}  // namespace vcloe::bridge
