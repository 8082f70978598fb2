// `vcloe control` (rig::run_control): the control role of the live rig (docs/protocol.md, "Processes"): the
// visual-servo controller — servo::VisualServo, the eq. (30) code the twin runs — stepping on
// each pose it receives and sending the joint command for that frame to the robot. Two pose
// subscribers: the controller's (realtime: CONFLATE, the newest pose only; lockstep: every pose,
// in order) and the recorder's (every pose, gaps counted). The recorded trace is the format
// `identify` reads (docs/traces.md), its sidecar adds the stream's receive times, latencies,
// gap counts and, when the robot stopped early, where and why. Recorded data is always written.
#include <zmq.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "vcloe/core/error.hpp"
#include "vcloe/bridge/safety.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/rig/common.hpp"
#include "vcloe/rig/handshake.hpp"
#include "vcloe/rig/roles.hpp"
#include "vcloe/rig/serve.hpp"
#include "vcloe/rig/setup.hpp"

namespace vcloe::rig {

namespace {

// Invalid frames just before the end: control held its command through them, and the command
// after them catches up at once — often the stop's cause (session 20's probe, class F).
std::string invalid_before_end(const std::vector<std::int64_t>& invalid, std::int64_t frames) {
  std::string held;
  for (const std::int64_t f : invalid)
    if (f >= frames - 10) held += (held.empty() ? "" : ", ") + std::to_string(f);
  if (held.empty()) return "";
  return "; frames " + held + " before it were invalid (control held its command through them, the next one catching up at once)";
}

class Controller {
 public:
  Controller(const ControlOptions& o, const ExperimentSetup& s)
      : o_(o),
        s_(s),
        clock_(parse_clock(o.clock)),
        role_(s),
        files_{o.experiment, o.reference, o.robot, o.payload, o.precorrection},
        hello_(hello_of(bridge::Role::Control, files_, hello_clock(clock_))),
        security_(context_, o.endpoints, "control"),
        commands_(context_, o.endpoints.commands, 1000, security_.publisher()),
        control_(context_, o.endpoints.poses,
                 clock_ == RigClock::Realtime ? bridge::Subscriber::Keep::Latest : bridge::Subscriber::Keep::All, 1000,
                 security_.subscriber("vision"), bridge::Stream::Poses),
        recorder_(context_, o.endpoints.poses, bridge::Subscriber::Keep::All, 1000000, security_.subscriber("vision"),
                  bridge::Stream::Poses),
        status_(context_, o.endpoints.status, bridge::Subscriber::Keep::All, 1000, security_.subscriber("robot"),
                bridge::Stream::Status),
        safety_(command_limits(s), s.experiment.timing.camera_period(), s.experiment.timing.controller_period()) {
    const double Tcam = s.experiment.timing.camera_period();
    robot_timeout_ = o.robot_timeout > 0 ? o.robot_timeout : clock_ == RigClock::Realtime ? 5 * Tcam : 2.0;
    PoseTrace layout;  // the layout: reference and command columns
    layout.reference.push_back(Vec6d::Zero());
    layout.command.push_back(Vec6d::Zero());
    partial_.open(o.out + ".partial", o.force);  // a link there replaced, never written through
    partial_.write(trace_csv_header(layout));
  }

  void run() {
    try {
      handshake();
    } catch (const Error&) {  // nothing recorded: no TRACE.partial to block the next run
      partial_.close();
      std::error_code ec;
      std::filesystem::remove(o_.out + ".partial", ec);
      throw;
    }
    last_robot_ = now_s();
    try {
      loop();
      finish();
    } catch (const Error&) {
      say_end();
      throw;
    }
    say_end();
  }

 private:
  void loop() {
    while (!stopped_) {
      bridge::Subscriber::wait_any({&control_, &recorder_, &status_}, micros(0.002));
      record();
      act();
      emit_rows(false);
      read_status();
      // A heartbeat after a quarter camera period of silence: the robot's default timeout is 2
      // camera periods, so a live controller is never taken for a lost one by its own phase.
      if (now_s() - last_sent_ > s_.experiment.timing.camera_period() / 4) send(bridge::HeartbeatMessage{});
      if (interrupting_signal() != 0 && !stopped_) {
        stopped_ = true;
        end_reason_ = "interrupted by " + signal_name(interrupting_signal());
      }
    }
    // The last exposures may still be on their way: the recorder waits for vision's end (after
    // its last pose on the same stream), or every frame, at most a moment.
    const double end = now_s() + std::min(0.2, robot_timeout_);
    while (now_s() < end && !vision_ended_ && role_.frames_recorded() < s_.reference.clock.frames())
      if (bridge::Subscriber::wait_any({&recorder_}, micros(end - now_s()))) record();
  }

  // This role's end (docs/protocol.md, "The end"): after the trace is written (or refused), so
  // the robot, holding since its last tick, may exit. The socket lingers to send it.
  void say_end() {
    commands_.publish(bridge::EndMessage{{}, bridge::Role::Control, last_commanded_, commands_sent_});
    commands_.linger(std::chrono::milliseconds(200));
  }

  const ControlOptions& o_;
  const ExperimentSetup& s_;
  RigClock clock_;
  ControlRole role_;  // the controller and the recorder (rig/roles.hpp)
  RunFiles files_;
  bridge::HelloMessage hello_;  // this controller's files, by SHA-256 (rig/handshake.hpp)
  zmq::context_t context_;
  RoleSecurity security_;  // --keys: CURVE on every socket
  bridge::Publisher commands_;
  bridge::Subscriber control_, recorder_, status_;
  double robot_timeout_ = 2, last_sent_ = -1e300, last_robot_ = 0;
  bool running_ = false, stopped_ = false, robot_hello_ = false, robot_ended_ = false, vision_ended_ = false;
  std::int64_t last_commanded_ = -1;
  std::uint64_t commands_sent_ = 0;
  bridge::StatusMessage last_status_;
  std::pair<std::int64_t, double> last_running_{-1, 0.0};  // the last running status's tick, when heard
  std::string end_reason_;
  StreamedFile partial_;  // the trace's rows as they are emitted, in frame order
  bridge::SafetyMonitor safety_;  // the robot's own command check (bridge/safety.hpp), before a command leaves

  // The limits the robot's monitor applies to a command: its joint range (robot serve's too).
  static bridge::SafetyLimits command_limits(const ExperimentSetup& s) {
    return robot_safety_limits(RobotServeOptions{}, s);  // the robot's own, at its defaults
  }
  static std::string pose_text(const Vec6d& x) {
    std::string t;
    for (int i = 0; i < 6; ++i) t += (i ? " " : "") + exact_number(x(i));
    return t;
  }

  void send(const bridge::Message& m) {
    commands_.publish(m);
    last_sent_ = now_s();
  }

  // A peer's hello: refused by name when it runs other files (rig/handshake.hpp); true if heard.
  bool heard_hello(const std::optional<bridge::Message>& m, bridge::Role expected, const std::string& endpoint) {
    const auto* h = m ? std::get_if<bridge::HelloMessage>(&*m) : nullptr;
    if (!h) return false;
    if (const std::string why = hello_problem(hello_, files_, *h, expected, endpoint); !why.empty()) fail("control", why);
    return true;
  }

  // Until the robot runs: each pose subscriber has heard vision's hello and the status
  // subscriber the robot's, each checked; only then are our hellos sent, which the robot waits
  // for before it moves to the start (docs/protocol.md, "Handshake"), so no pose of the run can
  // be missed and no role runs other files.
  void handshake() {
    const double end = now_s() + o_.start_timeout;
    bool pose_stream = false, recorder = false;
    while (!running_) {
      if (now_s() > end)
        fail("control", start_timeout_message(!robot_hello_ ? "no hello from the robot on " + o_.endpoints.status
                                              : !(pose_stream && recorder)
                                                  ? "no hello from the pose source on " + o_.endpoints.poses + " (the robot's was heard)"
                                                  : std::string("the robot did not start"),
                                              o_.start_timeout, commands_.refused_peers(),
                                              !robot_hello_ ? &status_ : !pose_stream ? &control_ : !recorder ? &recorder_ : &status_));
      if (const int sig = interrupting_signal())  // the rig stopping it: at once, not after start_timeout
        fail("control", "interrupted by " + signal_name(sig) + " before the run began");
      // Up to the first hello only: a pose of the run may follow it (it is the run's, not ours to drop).
      while (!pose_stream)
        if (auto m = control_.receive(std::chrono::milliseconds(0))) pose_stream = heard_hello(m, bridge::Role::Vision, o_.endpoints.poses);
        else break;
      while (!recorder)
        if (auto m = recorder_.receive(std::chrono::milliseconds(0))) recorder = heard_hello(m, bridge::Role::Vision, o_.endpoints.poses);
        else break;
      read_status();
      if (!end_reason_.empty()) fail("control", end_reason_);
      if (stopped_ && last_status_.reason == bridge::StopReason::HandshakeRefused)
        fail("control", "the robot refused the handshake (its line says why); nothing recorded");
      if (stopped_) fail("control", "the robot stopped before the run began");
      if (running_) return;  // on at once, not after one more handshake period
      if (pose_stream && recorder && robot_hello_) send(hello_);
      bridge::Subscriber::wait_any({&status_}, micros(kHandshakePeriod));
    }
  }

  void record() {
    while (auto m = recorder_.receive(std::chrono::milliseconds(0))) {
      if (const auto* p = std::get_if<bridge::PoseMessage>(&*m)) role_.record(*p, bridge::steady_now_ns());
      if (const auto* e = std::get_if<bridge::EndMessage>(&*m)) vision_ended_ = e->role == bridge::Role::Vision;
    }
  }

  // Eq. (30) on the newest pose (realtime) or on each pose in order (lockstep); an invalid
  // pose holds U. Every pose that reaches the controller within the run gets its command.
  void act() {
    std::optional<bridge::PoseMessage> newest;
    while (auto m = control_.receive(std::chrono::milliseconds(0))) {
      const auto* p = std::get_if<bridge::PoseMessage>(&*m);
      if (!p || !role_.acts_on(*p)) continue;
      // Realtime acts on the newest only, but a pose no trace can hold is refused wherever it is.
      if (clock_ == RigClock::Lockstep || !role_.unreachable(*p).empty()) step(*p);
      else newest = *p;
    }
    if (newest) step(*newest);
  }

  // A pose the robot cannot have reached since the last one (ControlRole::unreachable), or a
  // command the robot's safety monitor would refuse, is never answered: the pose is none this
  // robot can have (a stream that jumps, in mm or degrees, another robot's): the run stops, said.
  void step(const bridge::PoseMessage& p) {
    if (stopped_) return;
    if (const std::string why = role_.acts_on(p) ? role_.unreachable(p) : ""; !why.empty()) {
      stopped_ = true;
      role_.end_at(p.frame);  // the trace holds what the controller took: up to there
      end_reason_ = "the pose of frame " + std::to_string(p.frame) + " on " + o_.endpoints.poses + " (" +
                    pose_text(p.pose) + ") is none " + o_.robot + " can have reached: " + why +
                    " (a pose source that jumped, or in other units?); not acted on";
      return;
    }
    if (const auto c = role_.on_pose(p)) {
      safety_.on_command(c->theta, c->frame);
      if (const auto& cause = safety_.stop()) {
        stopped_ = true;
        const std::string loop = role_.pose_not_followed(p, command_limits(s_).joint_limit);
        end_reason_ = loop.empty() ? "the pose of frame " + std::to_string(p.frame) + " on " + o_.endpoints.poses + " (" +
                                         pose_text(p.pose) + ") is none " + o_.robot + " can have: its " + cause->detail +
                                         " (the robot's safety monitor refuses it; poses in m and rad?); not sent"
                                   : "the outer loop's " + cause->detail + " (the robot's safety monitor refuses it), but " +
                                         loop + "; pose of frame " + std::to_string(p.frame) + " on " +
                                         o_.endpoints.poses + ": " + pose_text(p.pose) + "; not sent";
        return;
      }
      send(*c);
      last_commanded_ = c->frame;
      ++commands_sent_;
    }
  }

  void read_status() {
    while (auto m = status_.receive(std::chrono::milliseconds(0))) {
      if (!robot_hello_) robot_hello_ = heard_hello(m, bridge::Role::Robot, o_.endpoints.status);
      if (const auto* e = std::get_if<bridge::EndMessage>(&*m); e && e->role == bridge::Role::Robot)
        stopped_ = robot_ended_ = true;  // the run's end: "finished" statuses follow
      if (const auto* st = std::get_if<bridge::StatusMessage>(&*m)) {
        last_robot_ = now_s();
        last_status_ = *st;  // its tick is checked where it becomes a time (rig::stop_tick_problem)
        running_ = running_ || st->state == bridge::RobotState::Running;
        const std::string back = st->state == bridge::RobotState::Running ? running_tick_problem(st->tick, last_running_.first) : "";
        if (!back.empty() && end_reason_.empty()) {
          stopped_ = true;
          end_reason_ = "the robot's running status on " + o_.endpoints.status + " " + back;
        }
        if (st->state == bridge::RobotState::Running) last_running_ = {st->tick, last_robot_};
        if (st->state == bridge::RobotState::Stopped) stopped_ = true;
      }
    }
    for (const std::string& v : {version_problem(status_, "the robot", o_.endpoints.status, "controller"),
                                  version_problem(recorder_, "the pose source", o_.endpoints.poses, "controller")})
      if (!v.empty() && end_reason_.empty()) {
        stopped_ = true;
        end_reason_ = v;
      }
    if (running_ && !stopped_ && now_s() - last_robot_ > robot_timeout_) {
      stopped_ = true;
      end_reason_ = "nothing from the robot on " + o_.endpoints.status + " for " +
                    std::to_string(now_s() - last_robot_) + " s";
    }
  }

  void emit_rows(bool all);
  void finish();
  void record_stream(PoseTrace& t);
  std::string schedule_mismatch(bool finished, std::uint64_t lost) const;
  std::string dropped_pose() const;
};

// A robot on another experiment or reference than this controller (another camera or controller
// rate, another length) streams frames this controller would time wrongly: told by the frames
// numbered past this run, or by the last frame of a robot that finished (its tick count is not
// used: an adapter need not count ticks as the virtual robot does).
std::string Controller::schedule_mismatch(bool finished, std::uint64_t lost) const {
  const servo::TickClock& clock = s_.reference.clock;
  const std::string mine = " (" + o_.experiment + ", " + o_.reference + ")";
  if (const std::uint64_t past = role_.frames_past_run(); past > 0)
    return std::to_string(past) + " poses numbered past frame " + std::to_string(clock.frames() - 1) +
           ", the last of this controller's run" + mine;
  if (!finished) return "";
  const std::int64_t short_by = clock.frames() - 1 - role_.highest_frame();
  if (short_by > 0 && static_cast<std::uint64_t>(short_by) > lost)
    return "the robot finished at frame " + std::to_string(role_.highest_frame()) + ", this controller's run ends at frame " +
           std::to_string(clock.frames() - 1) + mine;
  return "";
}

// The rows now final (ControlRole::emit_rows), each flushed to TRACE.partial as it
// leaves: a controller killed mid-run leaves every row up to there on disk.
void Controller::emit_rows(bool all) {
  const std::size_t emitted = role_.emit_rows(all);
  const PoseTrace& t = role_.trace();
  for (std::size_t k = t.size() - emitted; k < t.size(); ++k) partial_.write(trace_csv_row(t, k));
}

// The trace up to the last frame recorded. A frame the recorder never got (sequence gap) or an
// invalid pose repeats the last valid pose (as `vcloe run`'s stereo camera does) and is listed.
void Controller::finish() {
  emit_rows(true);
  PoseTrace& t = role_.trace();
  const auto frames = static_cast<std::int64_t>(t.size());
  const std::vector<std::int64_t>& missing = role_.missing();
  const std::vector<std::int64_t>& invalid = role_.invalid();
  record_stream(t);
  const StreamRecord& stream = *t.metadata.stream;
  auto ms = [](double v) { return std::isnan(v) ? std::string("n/a") : exact_number(v) + " ms"; };
  const bridge::StreamCounters& c = recorder_.counters(bridge::MessageType::Pose);
  const bridge::FrameCounters& fc = role_.frame_counters();
  const bool finished = (robot_ended_ || (last_status_.state == bridge::RobotState::Stopped &&
                                         last_status_.reason == bridge::StopReason::Finished)) &&
                        end_reason_.empty();
  const std::string why = (finished ? "" : dropped_pose()) +
                          (!end_reason_.empty() ? end_reason_ : std::string(bridge::name_of(last_status_.reason)));
  // The robot's stop tick becomes the stop's time in one place (rig::stopped_record).
  if (!finished) {  // frames received past a refused pose (the trace ends before it) did reach this controller
    t.metadata.stopped = rig::stopped_record(s_.reference.clock, why, std::max(frames, role_.highest_frame() + 1),
                                             last_status_.tick, last_running_.first, last_robot_ - last_running_.second);
    t.metadata.stopped->frames = frames;
  }
  if (const std::string m = schedule_mismatch(finished, c.gaps); !m.empty()) {
    partial_.close();
    fail("control", "the robot and this controller run different schedules (another experiment or reference?): " + m +
                        "; the times would be wrong, " + o_.out + " not written (the rows are in " + o_.out + ".partial)");
  }
  if (frames == 0) {
    partial_.close();
    std::filesystem::remove(o_.out + ".partial");
    fail("control", "no pose recorded before the end (" + why + "); nothing written");
  }
  // An interrupted recording never takes the final name. Interrupted: this process got the
  // signal, or — under `rig run`, which passes its signal to every role — the robot stopped
  // for one first and its stop ended this loop before the signal reached this process.
  const bool robot_interrupted = last_status_.state == bridge::RobotState::Stopped &&
                                 last_status_.reason == bridge::StopReason::Interrupted;
  if (robot_interrupted)  // `rig run` signals every role at once: this one's signal is a moment away
    for (const double until = now_s() + 0.2; interrupting_signal() == 0 && now_s() < until;)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (o_.keep_partial_on_interrupt && (interrupting_signal() || robot_interrupted)) {
    partial_.close();
    const std::string by = interrupting_signal() ? signal_name(interrupting_signal()) : "the robot's signal";
    fail("control", "interrupted by " + by + ": the " + std::to_string(frames) + " poses recorded are kept in " + o_.out +
                        ".partial; " + o_.out + " not written");
  }
  write_trace(o_.out, t, o_.force);
  partial_.close();
  std::filesystem::remove(o_.out + ".partial");
  if (finished) warn_if_not_following(t, o_.out);  // as `run` and `simulate` judge their traces (a stop says its own)
  std::cout << "control: wrote " << o_.out << " (" << frames << " poses, " << t.time.back() << " s); latency p50 "
            << ms(stream.latency_p50_ms) << ", p99 " << ms(stream.latency_p99_ms) << ", max " << ms(stream.latency_max_ms)
            << "; sequence gaps " << c.gaps << ", missing " << missing.size() << ", invalid " << invalid.size()
            << ", repeated frames " << fc.repeated_frames << ", exposures backwards " << fc.exposure_backwards
            << ", stamps ahead " << fc.stamps_ahead << ", stale " << fc.stamps_stale << "; peers refused " << commands_.refused_peers() << "\n"
            << std::flush;
  if (!finished)
    fail("control", "the run ended early at frame " + std::to_string(frames) + ": " + why + invalid_before_end(invalid, frames) +
                        " (the trace up to there is " + o_.out + ")");
}

// A frame on the pose stream dropped as malformed after the last pose received (docs/protocol.md:
// counted and dropped) leaves the lockstep waiting for that frame: the cause of an early end, said
// by its frame before the timeout it led to (probe 24's E: "controller heartbeat lost" alone).
std::string Controller::dropped_pose() const {
  const auto& d = recorder_.dropped_since_last_message();
  if (!d) return "";
  const std::string what = bridge::describe(d->error);
  if (d->type == bridge::MessageType::Pose && d->frame)
    return "the pose of frame " + std::to_string(*d->frame) + " on " + o_.endpoints.poses + " was malformed (" + what +
           ") and dropped" + (d->count > 1 ? " with " + std::to_string(d->count - 1) + " malformed frame(s) after it" : "") +
           ", as every frame that does not decode is, so it was never answered; then ";
  return std::to_string(d->count) + " malformed frame(s) on " + o_.endpoints.poses + " after the last pose received (the first: " +
         what + ") were dropped, as every frame that does not decode is; then ";
}

// The sidecar's record of the run and its stream (what the poses said, checked:
// bridge::FrameCounters); the latencies of the poses whose stamps could be read.
void Controller::record_stream(PoseTrace& t) {
  const std::vector<double>& latency_ms = role_.latency_ms();
  const bridge::StreamCounters& c = recorder_.counters(bridge::MessageType::Pose);
  t.metadata = trace_metadata(s_, "rig");
  t.metadata.clock = o_.clock;
  const bridge::FrameCounters& fc = role_.frame_counters();
  t.metadata.stream_checks = StreamChecksRecord{fc.repeated_frames, fc.exposure_backwards, fc.stamps_ahead, fc.stamps_stale};
  if (const auto& p = o_.payload) t.metadata.payload = PayloadRecord{p->mass, p->inertia};
  t.metadata.endpoints = EndpointsRecord{o_.endpoints.poses, o_.endpoints.commands, o_.endpoints.status};
  t.metadata.stream = StreamRecord{c.received, c.gaps, c.duplicates, recorder_.malformed(), status_.malformed(),
                                   role_.missing(), role_.invalid(), latency_quantile(latency_ms, 0.5),
                                   latency_quantile(latency_ms, 0.99), latency_quantile(latency_ms, 1.0), role_.receive_s(),
                                   latency_ms};
}

}  // namespace

void run_control(const ControlOptions& o) {
  const ExperimentSetup s = prepare_control(o);
  catch_interrupts();
  Controller controller(o, s);
  controller.run();
}

}  // namespace vcloe::rig
