#pragma once
// The live rig's three roles as steppable objects (docs/protocol.md, "Processes"), written once
// on servo::TickClock, the schedule of the in-process loop (servo::run_loop): the robot applies
// frame j's command at TickClock::arrival_tick(j); vision measures each exposure; control steps
// servo::VisualServo::on_frame on each pose and records the trace. No sockets and no clocks
// here: the processes (`robot serve`, `vision serve`, `control`) feed them from bridge/, and
// stepped_trace feeds them from memory (rig/transport.hpp).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vcloe/bridge/messages.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/rig/setup.hpp"
#include "vcloe/servo/reference.hpp"
#include "vcloe/servo/visual_servo.hpp"

namespace vcloe::rig {

// The robot's side of the schedule: per tick, the frame exposed and the frame whose command is
// due; commands arrive by frame and wait until due. A frame whose command has not come when
// due leaves the previous command held (counted late); a late one is applied once it comes.
class RobotSchedule {
 public:
  RobotSchedule(const servo::TickClock& ticks, const Vec6d& start_theta) : ticks_(ticks), held_(start_theta) {}

  const servo::TickClock& ticks() const { return ticks_; }
  int tick() const { return tick_; }
  bool finished() const { return tick_ >= ticks_.total_ticks; }
  int exposed() const { return ticks_.exposed_at(tick_); }
  // The frame whose command is due at this tick (-1: none); marks it due.
  int begin_tick();
  // Lockstep: the robot waits at frame `arrived`'s arrival tick until its command is here.
  bool command_here(int arrived) const { return arrived < 0 || last_frame_ >= arrived; }
  // Why a command for `frame` cannot be taken ("" if it can): frames come in order, within the run.
  std::string frame_problem(std::int64_t frame) const;
  void take(std::int64_t frame, const Vec6d& theta);
  // At this tick: the newest command due replaces the held one; returns the command to apply.
  const Vec6d& apply_due(int arrived);
  void advance() { ++tick_; }
  void hold(const Vec6d& theta) { held_ = theta; }  // a controlled stop: hold where the joints are
  void forget_pending();                             // after the start handshake
  const Vec6d& held() const { return held_; }
  int late() const { return late_; }
  // The first late frames (at most kLateFramesKept), for the robot's summary: where they fall.
  static constexpr std::size_t kLateFramesKept = 8;
  const std::vector<std::int64_t>& first_late_frames() const { return first_late_; }

 private:
  servo::TickClock ticks_;
  Vec6d held_;
  std::map<std::int64_t, Vec6d> pending_;  // commands received, by frame, not yet due
  std::int64_t last_frame_ = -1, due_ = -1;
  int tick_ = 0, late_ = 0;
  std::vector<std::int64_t> first_late_;
};

// The robot's move to the start (docs/protocol.md, "Move to start"): the command goes from where
// the drives hold it to the start hold on a straight line in joint space, every joint at most
// `speed` * Tc a tick, all arriving together. At a speed within the safety monitor's
// max_command_speed its rate limit (the one of the run) never holds the ramp back.
class StartRamp {
 public:
  StartRamp(const Vec6d& from, const Vec6d& start, double speed, double controller_period);
  // What the constructor refuses ("" if nothing): robot serve's and rig run's --move-speed check.
  static std::string problem(const Vec6d& from, const Vec6d& start, double speed, double controller_period);
  int ticks() const { return ticks_; }  // ceil(max_i |start_i - from_i| / (speed Tc)); 0 when there
  bool done() const { return k_ >= ticks_; }
  Vec6d next();  // the command of the next tick (the start itself at the last)

 private:
  Vec6d from_, start_;
  int ticks_ = 0, k_ = 0;
};

// After the ramp, the robot settled at the start hold before frame 0 (robot serve's move to
// start): every joint within kStartTolerance of it and moving less than kStartTolerance per
// camera period, both for a whole camera period (ticks_per_frame ticks in a row); at most
// kSettleLimit s after the ramp, else a controlled stop saying so (describe()).
inline constexpr double kStartTolerance = 1e-3, kSettleLimit = 5.0;  // rad, s
class StartSettle {
 public:
  StartSettle(int ticks_per_frame, double camera_period) : needed_(ticks_per_frame), camera_period_(camera_period) {}
  // One tick's encoder reading against the start hold; true once settled.
  bool update(const Vec6d& encoders, const Vec6d& start, double controller_period);
  int ticks() const { return ticks_; }  // readings so far
  // The last reading's worst joint: "joint 2 0.0031 rad off the start, moving 0.41 rad/s".
  std::string describe() const;

 private:
  int needed_;
  double camera_period_;
  int in_a_row_ = 0, ticks_ = 0, worst_ = 0;
  double off_ = 0, speed_ = 0;
  std::optional<Vec6d> last_;
};

// The vision role on the virtual camera: frame j's true pose in, its measurement out.
class VisionRole {
 public:
  // camera: the measurement of frame j's true pose (Gaussian noise, or the stereo pipeline).
  explicit VisionRole(std::function<Vec6d(int frame, const Vec6d& true_pose)> camera) : camera_(std::move(camera)) {}
  // The camera of a virtual run: run.camera if set, else its seeded Gaussian pose noise.
  static VisionRole of(const VirtualRun& run);
  bridge::PoseMessage on_truth(const bridge::PoseMessage& truth);

 private:
  std::function<Vec6d(int, const Vec6d&)> camera_;
};

// The drives follow a command whose applied motion is rate-limited (docs/protocol.md, Safety); with
// their overshoot a joint may briefly move faster, never three times as fast.
inline constexpr double kPoseJumpFactor = 3.0;

// The control role: the controller (eq. 30 on each pose, an invalid pose holds U) and the
// recorder (every pose, by frame), emitting the trace's rows in frame order once final.
class ControlRole {
 public:
  explicit ControlRole(const ExperimentSetup& setup);

  // The command for pose p, or none when p is not a new frame reaching the controller.
  std::optional<bridge::CommandMessage> on_pose(const bridge::PoseMessage& p);
  bool acts_on(const bridge::PoseMessage& p) const;  // a new frame within the run
  // Why pose p is none the robot can have reached since the last valid pose acted on ("" if it
  // can): a joint would have moved faster than kPoseJumpFactor times the drives' rate limit
  // (bridge::SafetyLimits::max_command_speed), or p is out of the robot's reach. A pose source
  // that jumps (a glitch, another marker, another unit from some frame on) is told at its first
  // frame, before any command answers it. First of all: a value no trace can hold (beyond
  // kMaxTraceMagnitude, docs/traces.md) or joint angles that are not finite.
  std::string unreachable(const bridge::PoseMessage& p) const;
  // Why the command answering p left the joint range (|theta| <= joint_limit) when p itself is
  // within it: the outer loop's error grew because the measured pose did not follow the commands
  // (a robot that does not move, a pose source that does not see it). "" when p's own joint
  // angles are out of the range too (then the pose is the cause, not the loop).
  std::string pose_not_followed(const bridge::PoseMessage& p, double joint_limit) const;
  // The run ends at `frame` (a pose refused there): no row from it on is emitted, so the trace
  // written holds only poses the controller took (a refused value may be none a trace can hold).
  void end_at(std::int64_t frame) { end_frame_ = std::min(end_frame_, frame); }
  void record(const bridge::PoseMessage& p, std::int64_t receive_ns);
  // Appends the rows now final (all: every frame up to the last recorded); returns how many.
  std::size_t emit_rows(bool all);
  std::int64_t frames_recorded() const { return static_cast<std::int64_t>(rows_.size()); }
  std::int64_t highest_frame() const { return rows_.empty() ? -1 : rows_.rbegin()->first; }
  std::uint64_t frames_past_run() const { return frames_past_run_; }  // poses numbered beyond the run
  PoseTrace& trace() { return trace_; }
  const std::vector<std::int64_t>& missing() const { return missing_; }
  const std::vector<std::int64_t>& invalid() const { return invalid_; }
  const std::vector<double>& receive_s() const { return receive_s_; }
  const std::vector<double>& latency_ms() const { return latency_ms_; }
  const bridge::FrameCounters& frame_counters() const { return frames_; }

 private:
  struct Received {
    bridge::PoseMessage pose;
    std::int64_t receive_ns = 0;
    bool sane = true;  // plausible stamps (bridge::check_stamps): its latency measures something
  };
  bridge::FrameCounters frames_;  // repeated frames, exposures backwards, stamps ahead: counted
  std::uint64_t frames_past_run_ = 0;
  const ExperimentSetup& s_;
  servo::VisualServo<double> outer_;
  std::map<std::int64_t, Received> rows_;        // by frame, as recorded
  std::map<std::int64_t, Vec6d> commands_sent_;  // U after each frame's update
  std::int64_t last_acted_ = -1;
  std::int64_t end_frame_ = INT64_MAX;  // end_at
  std::int64_t last_valid_frame_ = -1;  // the last valid pose acted on, and its joint angles
  Vec6d last_valid_theta_ = Vec6d::Zero();
  PoseTrace trace_;
  Vec6d last_valid_;
  std::vector<std::int64_t> missing_, invalid_;
  std::vector<double> receive_s_, latency_ms_;

  Vec6d command_at(std::int64_t frame) const;
};

// The robot's stop tick (a peer's number) checked against the run's ticks before it becomes the
// sidecar's stopped.time_s: not before its last running status's tick `last_running` (ticks never
// go back; -1: none heard), not after the run's last tick, and not more ticks ahead of
// `last_running` than the time since that status (`seconds_since`) plus two frames and the latency
// allow. "" if it holds, else what is wrong.
std::string stop_tick_problem(const servo::TickClock& clock, std::int64_t stop_tick, std::int64_t last_running,
                              double seconds_since);
// A running status's tick below the last running status's (`last_running`, -1: none heard): ticks
// only count up (docs/protocol.md, Status), so the robot restarted mid-run or another one speaks
// on the stream. "" if it holds, else what is wrong ("went back from tick 500 to 3 …").
std::string running_tick_problem(std::int64_t tick, std::int64_t last_running);

// The one place the robot's stop tick becomes the sidecar's `stopped` record (control's finish):
// `reason` as the robot said it, `frames` the trace's rows (frames 0 to frames - 1 received).
// A tick stop_tick_problem refuses is said and the last running tick's time kept. A plausible
// tick AHEAD of the frames received — the robot's account has exposures ceil(tick / ticks per
// frame) beyond them — is the robot's stop time all the same (it is where the robot stopped);
// the frames exposed but never received are said in the reason ("frames 50 to 51, exposed
// before the stop by the robot's tick, never reached this controller"), never filled in.
StoppedRecord stopped_record(const servo::TickClock& clock, const std::string& reason, std::int64_t frames,
                             std::int64_t stop_tick, std::int64_t last_running, double seconds_since);

// The three roles stepped together in this process, lockstep, over memory streams: the
// recorded trace (time, reference, measured, command) equals virtual_trace's to the last bit.
PoseTrace stepped_trace(const ExperimentSetup& setup, const sim::RobotFile& truth, const VirtualRun& run,
                        const std::optional<oe_ident::Payload>& payload = std::nullopt);

}  // namespace vcloe::rig
