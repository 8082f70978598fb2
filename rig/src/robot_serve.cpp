// `vcloe robot serve` (rig::serve_robot): the robot role of the live rig (docs/protocol.md, "Processes"): the MuJoCo
// virtual robot behind the protocol, the test double of a real robot. It takes joint position
// commands, runs its drives at the controller rate, publishes its status at the camera rate and,
// for the virtual camera only, its true platform pose at each exposure. Safety lives here
// (bridge::SafetyMonitor): a silent pose stream or controller, invalid poses, a command out of
// range, too fast or malformed bring it to a controlled stop (hold, drives enabled).
//
// Each command carries the camera frame whose pose produced it; the robot applies it at that
// frame's arrival tick (exposure + the experiment's latency, servo::TickClock), the schedule of
// the in-process loop. lockstep: the robot waits at that tick until the command is there.
// realtime: ticks are paced by the wall clock; a late command is applied on the tick it arrives.
#include <zmq.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <set>

#include "vcloe/core/error.hpp"
#include "vcloe/rig/common.hpp"
#include "vcloe/rig/handshake.hpp"
#include "vcloe/rig/roles.hpp"
#include "vcloe/rig/serve.hpp"
#include "vcloe/servo/corrected_robot.hpp"
#include "vcloe/sim/kinematics.hpp"
#include "vcloe/sim/robot.hpp"
#include "vcloe/oe_ident/plausible.hpp"

namespace vcloe::rig {

namespace {

class RobotServer {
 public:
  RobotServer(const RobotServeOptions& o, const ExperimentSetup& s, const sim::RobotFile& truth)
      : o_(o),
        clock_(parse_clock(o.clock)),
        schedule_(s.reference.clock, s.reference.start_theta),
        Tc_(s.experiment.timing.controller_period()),
        monitor_(robot_safety_limits(o, s), s.experiment.timing.camera_period(), Tc_),
        robot_(truth.model, oe_ident::with_payload(truth.lambda, o.payload), s.reference.start_pose,
               robot_options(s, o, truth)),
        files_{o.experiment, o.reference, o.robot, o.payload, o.precorrection},
        hello_(hello_of(bridge::Role::Robot, files_, hello_clock(clock_))),
        security_(context_, o.endpoints, "robot"),
        status_pub_(context_, o.endpoints.status, 1000, security_.publisher()),
        camera_pub_(context_, o.endpoints.camera, 1000, security_.publisher()),
        commands_(context_, o.endpoints.commands, bridge::Subscriber::Keep::All, 1000, security_.subscriber("control"),
                  bridge::Stream::Commands),
        poses_(context_, o.endpoints.poses, bridge::Subscriber::Keep::All, 1000, security_.subscriber("vision"),
               bridge::Stream::Poses),
        payload_(o.payload ? exact_number(o.payload->mass) + " kg" : "none"),
        correction_(s.reference.command_correction),
        start_hold_(servo::start_hold(s.reference)) {
    const Vec6d standing = o.stand_at.value_or(servo::start_hold(s.reference));
    monitor_.on_command(standing, -1);  // where the drives hold, and the start hold, within the joint range
    monitor_.on_command(servo::start_hold(s.reference), -1);
    monitor_.set_applied(standing);     // where the rate limit counts from
  }

  void serve() {
    handshake();
    move_to_start();
    // What the controller sends before any frame is exposed, read for one handshake period while
    // the state still says so: a command among it answers no pose, and on_command stops on it (a
    // controller sending commands with its hellos had one applied as frame 0's: probe 34, P131).
    pump(kHandshakePeriod, [] { return false; });
    state_ = bridge::RobotState::Running;
    monitor_.start(now_s());
    t0_ = now_s();
    for (; !schedule_.finished(); schedule_.advance()) {
      if (const int j = schedule_.exposed(); j >= 0) expose(j);
      const int arrived = schedule_.begin_tick();
      const bool wait = clock_ == RigClock::Lockstep && arrived >= 0;
      pump(wait ? 1e300 : 0.0, [&] { return !wait || schedule_.command_here(arrived); });
      if (const auto why = stop_cause()) return controlled_stop(waiting_cause(*why, wait, arrived));
      // The rate limit per tick of robot time, whatever the frames said (bridge::SafetyMonitor::limit).
      // The pre-correction (--precorrection) added as in the in-process run (servo::CorrectedRobot).
      const Vec6d U = monitor_.limit(servo::corrected_command<double>(correction_, static_cast<std::size_t>(tick()),
                                                                       schedule_.apply_due(arrived)));
      if (const auto why = stop_cause()) return controlled_stop(*why);
      if (!robot_.step(U))
        return controlled_stop({bridge::StopReason::RobotFailure, robot_.failure()});
      if (clock_ == RigClock::Realtime) pump(t0_ + (tick() + 1) * Tc_ - now_s(), [] { return false; });
      if (const auto why = stop_cause()) return controlled_stop(*why);
    }
    end_of_run();
  }

 private:
  const RobotServeOptions& o_;
  RigClock clock_;
  RobotSchedule schedule_;  // the tick schedule (servo::TickClock) and the commands by frame
  double Tc_;
  bridge::SafetyMonitor monitor_;
  hw::VirtualRobot robot_;
  RunFiles files_;
  bridge::HelloMessage hello_;  // this robot's files, by SHA-256 (rig/handshake.hpp)
  zmq::context_t context_;
  RoleSecurity security_;  // --keys: CURVE on every socket (before them: destroyed after them)
  bridge::Publisher status_pub_, camera_pub_;
  bridge::Subscriber commands_, poses_;
  std::string payload_;  // what the robot carries, stated in its summary
  std::vector<Vec6d> correction_;  // per tick, added to the command due (--precorrection); empty: none
  Vec6d start_hold_;  // where the move to start ends: the first tick's command (servo::start_hold)
  std::uint64_t last_sequence_ = 0, poses_seen_ = 0, exposures_ = 0;
  std::set<std::int64_t> pose_frames_;  // the frames whose pose came on the pose stream (waiting_cause)
  double t0_ = 0, last_status_ = -1e300;
  bridge::RobotState state_ = bridge::RobotState::Waiting;
  bool controller_hello_ = false, vision_hello_ = false, controller_ended_ = false;
  std::string refusal_;  // a peer's hello refused (rig/handshake.hpp): its one line

  int tick() const { return schedule_.tick(); }

  // Lockstep, waiting for frame `arrived`'s command: the pose stream is silent because the robot
  // waits (no exposure until it moves on), so a pose timeout then is the controller's missing
  // command (it sent heartbeats only, or nothing), said as such — unless the pose of that frame
  // never came on the pose stream: then the pose source lost it, and the controller had nothing
  // to answer (probe 36, R06 and R13: vision skipping frames was blamed on the controller).
  bridge::StopCause waiting_cause(const bridge::StopCause& why, bool wait, int arrived) const {
    if (!wait || schedule_.command_here(arrived) || why.reason != bridge::StopReason::PoseTimeout) return why;
    if (!pose_frames_.count(arrived))
      return {bridge::StopReason::PoseTimeout,
              "no pose of frame " + std::to_string(arrived) + " on " + o_.endpoints.poses +
                  " (lockstep: the controller answers each pose, and the pose source sent none for this frame; " +
                  why.detail + ")"};
    return {bridge::StopReason::HeartbeatLost,
            "no command for frame " + std::to_string(arrived) + " from the controller on " + o_.endpoints.commands +
                " (lockstep: the robot waits for it, and the pose stream waits for the robot; " + why.detail + ")"};
  }

  // Why the robot must stop now (during the move to the start and the run): its safety monitor,
  // SIGINT/SIGTERM/SIGHUP (the operator, `rig run` passing on its own interruption, a closed session), or the
  // controller's end before the run's (it commands nothing more): a controlled stop each.
  std::optional<bridge::StopCause> stop_cause() const {
    if (monitor_.stop()) return *monitor_.stop();
    if (const int sig = interrupting_signal())
      return bridge::StopCause{bridge::StopReason::Interrupted, signal_name(sig) + " received"};
    if (controller_ended_)
      return bridge::StopCause{bridge::StopReason::HeartbeatLost, "the controller said its end before the run's end"};
    return std::nullopt;
  }

  static hw::VirtualRobotOptions robot_options(const ExperimentSetup& s, const RobotServeOptions& o,
                                               const sim::RobotFile& truth) {
    const hw::VirtualRig departures = hw::load_virtual_rig(o.truth);
    if (camera_departs(truth.model, departures))
      fail(o.truth, "its camera departures (marker_frame, virtual_rig: camera_from_base_error, latency) are simulated "
                    "by `vcloe run` only, not by the rig's processes");
    hw::VirtualRobotOptions opt = virtual_robot_options(s, {}, departures);
    if (o.stand_at) opt.start_command = *o.stand_at;  // standing off the start: the move brings it there
    return opt;
  }

  // The true pose at frame j's exposure, for the virtual camera, and the status.
  void expose(int j) {
    bridge::PoseMessage p;
    const double exposure = clock_ == RigClock::Realtime ? t0_ + tick() * Tc_ : now_s();
    p.header.exposure_ns = static_cast<std::int64_t>(exposure * 1e9);
    p.frame = j;
    p.pose = robot_.pose();
    p.valid = true;
    camera_pub_.publish(p);
    ++exposures_;
    publish_status(bridge::RobotState::Running, bridge::StopReason::None);
  }

  void publish_status(bridge::RobotState state, bridge::StopReason reason) {
    bridge::StatusMessage m;
    m.header.exposure_ns = bridge::steady_now_ns();
    m.state = state;
    m.reason = reason;
    m.last_command = last_sequence_;
    m.tick = tick();
    m.theta = robot_.joint_angles();
    status_pub_.publish(m);
    last_status_ = now_s();
  }

  // Everything that has arrived, until `seconds` have passed or `done()` holds; the status
  // goes on at the camera rate meanwhile, and the watchdog is checked.
  template <typename Done>
  void pump(double seconds, Done done) {
    const double deadline = now_s() + seconds;
    const double period = std::min(schedule_.ticks().timing.camera_period(), 0.01);
    for (;;) {
      while (auto m = commands_.receive(std::chrono::milliseconds(0))) on_command(*m);
      while (auto m = poses_.receive(std::chrono::milliseconds(0))) on_pose(*m);
      check_peers();
      const double now = now_s();
      if (monitor_.check(now) || interrupting_signal() || done()) return;
      if (now - last_status_ > period) publish_status(state_, bridge::StopReason::None);  // in lockstep too
      if (now >= deadline) return;
      bridge::Subscriber::wait_any({&commands_, &poses_}, micros(std::min({deadline - now, 0.001})));
    }
  }

  // A peer of another schema version, named: a stop during the run, a refusal before it.
  std::string version_problems() const {
    const std::string c = version_problem(commands_, "the controller", o_.endpoints.commands, "robot");
    return c.empty() ? version_problem(poses_, "the pose source", o_.endpoints.poses, "robot") : c;
  }
  // A message of another type on the command stream (a pose, a status): a peer publishing on the
  // wrong stream, or a controller that is not one (docs/protocol.md, "Safety": reason 6).
  std::string wrong_stream_problem() const {
    if (!commands_.wrong_type()) return "";
    return "a " + std::string(bridge::name_of(*commands_.wrong_type())) + " message on the command stream " +
           o_.endpoints.commands + ", which carries hello, command, heartbeat and end only";
  }
  void check_peers() {
    if (const std::string w = wrong_stream_problem(); !w.empty()) monitor_.on_malformed_command(w);
    if (commands_.foreign_version()) monitor_.on_malformed_command(version_problems());
    else if (poses_.foreign_version()) monitor_.on_invalid_stream(version_problems());
    if (!refusal_.empty()) monitor_.on_malformed_command(refusal_);
  }

  // A peer's hello, checked against this robot's files (rig/handshake.hpp); the first refusal kept.
  bool heard_hello(const bridge::HelloMessage& h, bridge::Role expected, const std::string& endpoint) {
    const std::string why = hello_problem(hello_, files_, h, expected, endpoint);
    if (!why.empty() && refusal_.empty()) refusal_ = why;
    return why.empty();
  }

  void on_command(const bridge::Message& m) {
    monitor_.on_controller(now_s());
    if (const auto* h = std::get_if<bridge::HelloMessage>(&m))
      controller_hello_ = heard_hello(*h, bridge::Role::Control, o_.endpoints.commands) || controller_hello_;
    if (const auto* e = std::get_if<bridge::EndMessage>(&m)) controller_ended_ = e->role == bridge::Role::Control;
    if (!std::holds_alternative<bridge::CommandMessage>(m)) return;
    const auto& c = std::get<bridge::CommandMessage>(m);
    // Before the run no frame is exposed: a command then answers no pose (probe 34, P131: one sent
    // with the hellos was applied as frame 0's).
    if (state_ != bridge::RobotState::Running)
      return monitor_.on_malformed_command("command for frame " + std::to_string(c.frame) + " before the run began (the robot was " +
                                           std::string(state_ == bridge::RobotState::Moving ? "moving to the start" : "waiting") +
                                           "): a command answers the pose of its frame");
    if (const std::string why = schedule_.frame_problem(c.frame); !why.empty()) return monitor_.on_malformed_command(why);
    monitor_.on_command(c.theta, c.frame);
    if (monitor_.stop()) return;  // never applied
    schedule_.take(c.frame, c.theta);
    last_sequence_ = c.header.sequence;
  }

  void on_pose(const bridge::Message& m) {
    if (const auto* h = std::get_if<bridge::HelloMessage>(&m)) {
      vision_hello_ = heard_hello(*h, bridge::Role::Vision, o_.endpoints.poses) || vision_hello_;
      if (state_ != bridge::RobotState::Running) monitor_.on_pose(now_s(), true);  // alive before the run
    }
    if (const auto* p = std::get_if<bridge::PoseMessage>(&m)) {
      ++poses_seen_;
      pose_frames_.insert(p->frame);
      monitor_.on_pose(now_s(), p->valid);
    }
  }

  // Until every process is connected and has said which files it runs: hellos on the camera and
  // status streams and a waiting status, so no pose or command is lost to ZeroMQ's slow joiner
  // (docs/protocol.md, "Handshake"). A peer on other files or another version is refused here.
  void handshake() {
    const double end = now_s() + o_.start_timeout;
    while (!(controller_hello_ && vision_hello_)) {
      if (const int sig = interrupting_signal())
        fail("robot serve", "interrupted by " + signal_name(sig) + " before the run began");
      if (now_s() > end)
        fail("robot serve", start_timeout_message(std::string("no hello from ") +
                                                      (controller_hello_ ? "the pose source on " + o_.endpoints.poses
                                                                         : "the controller on " + o_.endpoints.commands),
                                                  o_.start_timeout, refused_peers(), controller_hello_ ? &poses_ : &commands_));
      camera_pub_.publish(hello_);
      status_pub_.publish(hello_);
      publish_status(bridge::RobotState::Waiting, bridge::StopReason::None);
      const double until = now_s() + kHandshakePeriod;
      while (now_s() < until && !(controller_hello_ && vision_hello_)) {
        if (auto m = commands_.receive(std::chrono::milliseconds(1))) on_command(*m);
        if (auto m = poses_.receive(std::chrono::milliseconds(0))) on_pose(*m);
        if (const std::string v = version_problems(); !v.empty()) refuse(v);
        if (const std::string w = wrong_stream_problem(); !w.empty()) refuse(w);
        if (!refusal_.empty()) refuse(refusal_);
      }
    }
    schedule_.forget_pending();
  }

  // A refused handshake: said on the status stream every handshake period for --hold s (at
  // least three times: the others end at once, a late subscriber still hears it), then this process.
  [[noreturn]] void refuse(const std::string& why) {
    const double end = now_s() + o_.hold;
    for (int n = 0; n < 3 || now_s() < end; ++n) {
      publish_status(bridge::RobotState::Stopped, bridge::StopReason::HandshakeRefused);
      bridge::Subscriber::wait_any({&commands_}, micros(kHandshakePeriod));
    }
    fail("robot serve", why);
  }

  void move_to_start();
  void end_of_run();
  void hold_until(double end, const std::function<bool()>& done, bridge::StopReason reason);
  void controlled_stop(const bridge::StopCause& why);
  void summary(const std::string& how);
  std::string late_frames() const;
  std::uint64_t refused_peers() { return status_pub_.refused_peers() + camera_pub_.refused_peers(); }
};

// From where the drives hold to the start hold (servo::start_hold: a pre-corrected run's first
// command, so the run starts with no step), one controller tick at a time through the
// safety monitor's rate limit, the status saying "moving"; then held until the joints have
// SETTLED there (StartSettle: within kStartTolerance of the start hold, each moving less than
// that per camera period, for a whole camera period) — at most kSettleLimit s after the ramp,
// else a controlled stop that says so. Frame 0 comes only after: a joint still swinging from a
// long move (--stand-at 0.99: 1 rad) made the first frames' poses jump. At the start, nothing moves.
void RobotServer::move_to_start() {
  StartRamp ramp(monitor_.applied(), start_hold_, std::min(o_.move_speed, o_.max_command_speed), Tc_);
  if (ramp.done()) return;
  state_ = bridge::RobotState::Moving;
  monitor_.start(now_s());
  const double t0 = now_s();
  const int limit = static_cast<int>(std::ceil(kSettleLimit / Tc_));
  StartSettle settled(schedule_.ticks().timing.ticks_per_frame(), schedule_.ticks().timing.camera_period());
  for (int k = 0;; ++k) {
    if (settled.update(robot_.joint_angles(), start_hold_, Tc_) && ramp.done()) break;
    if (k > ramp.ticks() + limit)
      return controlled_stop({bridge::StopReason::RobotFailure, "the joints did not settle at the start within " +
                                                                    exact_number(kSettleLimit) + " s of the move (" +
                                                                    settled.describe() + ")"});
    const Vec6d U = monitor_.limit(ramp.done() ? start_hold_ : ramp.next());
    if (const auto why = stop_cause()) return controlled_stop(*why);
    if (!robot_.step(U)) return controlled_stop({bridge::StopReason::RobotFailure, robot_.failure()});
    pump(clock_ == RigClock::Realtime ? t0 + (k + 1) * Tc_ - now_s() : 0.0, [] { return false; });
    if (const auto why = stop_cause()) return controlled_stop(*why);
  }
  std::cout << "robot serve: moved to the start in " << ramp.ticks() << " ticks (" << ramp.ticks() * Tc_
            << " s), settled there at tick " << settled.ticks() << "\n";
}

// The end of the run (docs/protocol.md, "The end"): the end message on the camera and status
// streams, "finished" three times, then the joints held until the controller says its end
// (its trace is written), at most --start-timeout; exit 0 either way: the run was complete.
void RobotServer::end_of_run() {
  const bridge::EndMessage e{{}, bridge::Role::Robot, schedule_.ticks().frames() - 1, exposures_};
  camera_pub_.publish(e);
  status_pub_.publish(e);
  for (int n = 0; n < 3; ++n) publish_status(bridge::RobotState::Stopped, bridge::StopReason::Finished);
  schedule_.hold(monitor_.applied());  // the last command the drives got
  hold_until(now_s() + o_.start_timeout, [&] { return controller_ended_ || interrupting_signal() != 0; },
             bridge::StopReason::Finished);
  summary("finished: " + std::to_string(tick()) + " ticks (" + std::to_string(tick() * Tc_) + " s); the controller " +
          (controller_ended_ ? "said its end" : "did not say its end within " + exact_number(o_.start_timeout) + " s"));
}

// The drives holding schedule_.held() at the controller rate, the status "stopped" (with
// `reason`) every camera period, until `end` or `done()`.
void RobotServer::hold_until(double end, const std::function<bool()>& done, bridge::StopReason reason) {
  for (double next = now_s(); now_s() < end && !done(); next += Tc_) {
    if (!robot_.step(schedule_.held())) break;
    if (now_s() - last_status_ > schedule_.ticks().timing.camera_period())
      publish_status(bridge::RobotState::Stopped, reason);
    while (now_s() < next) bridge::Subscriber::wait_any({&commands_}, micros(next - now_s()));
    while (auto m = commands_.receive(std::chrono::milliseconds(0)))
      if (const auto* e = std::get_if<bridge::EndMessage>(&*m)) controller_ended_ = e->role == bridge::Role::Control;
  }
}

// Holds the joints where they are, drives enabled, for --hold seconds, saying why; then ends.
void RobotServer::controlled_stop(const bridge::StopCause& why) {
  const bool failed = why.reason == bridge::StopReason::RobotFailure;
  schedule_.hold(robot_.joint_angles());
  const double stopped_at = tick() * Tc_;
  publish_status(bridge::RobotState::Stopped, why.reason);
  hold_until(failed ? now_s() : now_s() + o_.hold, [] { return false; }, why.reason);
  publish_status(bridge::RobotState::Stopped, why.reason);
  summary("controlled stop");
  fail("robot serve", "controlled stop at t = " + std::to_string(stopped_at) + " s (" +
                          std::string(bridge::name_of(why.reason)) + "): " + why.detail);
}

// " (frames 0, 1, ...)": where the first late commands fell (the start, or a stall mid-run).
std::string RobotServer::late_frames() const {
  const std::vector<std::int64_t>& f = schedule_.first_late_frames();
  if (f.empty()) return "";
  std::string s = " (frames";
  for (std::size_t i = 0; i < f.size(); ++i) s += (i ? ", " : " ") + std::to_string(f[i]);
  return s + (static_cast<std::size_t>(schedule_.late()) > f.size() ? ", ...)" : ")");
}

void RobotServer::summary(const std::string& how) {
  const bridge::StreamCounters& c = commands_.counters(bridge::MessageType::Command);
  std::cout << "robot serve: " << how << "; commands " << c.received << " (sequence gaps " << c.gaps << ", duplicates " << c.duplicates << ", late "
            << schedule_.late() << late_frames() << ", ticks held back by the rate limit " << monitor_.limited_ticks()
            << "), malformed frames: commands " << commands_.malformed() << ", poses " << poses_.malformed()
            << "; poses " << poses_seen_ << "; peers refused " << refused_peers() << "; payload " << payload_ << "\n"
            << std::flush;
  if (monitor_.limited_ticks() > 0)  // the drives did not get what was sent: the run is not its twin's
    std::cerr << "vcloe: warning: robot serve: the rate limit held back " << monitor_.limited_ticks()
              << " ticks (commands faster than --max-command-speed " << exact_number(o_.max_command_speed)
              << " rad/s over a camera period): the motion recorded is not the one commanded\n";
}

}  // namespace

void serve_robot(const RobotServeOptions& o) {
  const RobotPrepared p = prepare_robot(o);
  catch_interrupts();
  RobotServer server(o, p.setup, p.truth);
  server.serve();
}

}  // namespace vcloe::rig
