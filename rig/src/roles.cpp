#include "vcloe/rig/roles.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "vcloe/bridge/safety.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/report.hpp"  // fixed
#include "vcloe/core/trace.hpp"
#include "vcloe/hw/virtual_robot.hpp"
#include "vcloe/rig/transport.hpp"
#include "vcloe/servo/components.hpp"
#include "vcloe/servo/corrected_robot.hpp"
#include "vcloe/sim/kinematics.hpp"

namespace vcloe::rig {

int RobotSchedule::begin_tick() {
  const int arrived = ticks_.arriving_at(tick_);
  if (arrived >= 0) due_ = arrived;
  return arrived;
}

std::string RobotSchedule::frame_problem(std::int64_t frame) const {
  // A controller acts on poses: a command for a frame not yet exposed (one frame of slack for a
  // camera's own clock) answers no pose; taken, it would make the honest next one "after" it.
  const std::int64_t newest = tick_ / ticks_.timing.ticks_per_frame();
  if (frame > newest + 1 && frame > last_frame_ && frame < ticks_.updates())
    return "command for frame " + std::to_string(frame) + " before its pose: the newest frame exposed is " +
           std::to_string(newest) + " (a command answers the pose of its frame)";
  if (frame > last_frame_ && frame < ticks_.updates()) return "";
  return "command for frame " + std::to_string(frame) + " after frame " + std::to_string(last_frame_) +
         " (frames 0 to " + std::to_string(ticks_.updates() - 1) + " reach the controller)";
}

void RobotSchedule::take(std::int64_t frame, const Vec6d& theta) {
  pending_[frame] = theta;
  last_frame_ = frame;
}

const Vec6d& RobotSchedule::apply_due(int arrived) {
  if (arrived >= 0 && !pending_.count(arrived)) {
    ++late_;
    if (first_late_.size() < kLateFramesKept) first_late_.push_back(arrived);
  }
  auto last_due = pending_.upper_bound(due_);
  if (last_due == pending_.begin()) return held_;
  held_ = std::prev(last_due)->second;
  pending_.erase(pending_.begin(), last_due);
  return held_;
}

void RobotSchedule::forget_pending() {
  pending_.clear();
  last_frame_ = -1;
}

std::string StartRamp::problem(const Vec6d& from, const Vec6d& start, double speed, double controller_period) {
  if (!(speed > 0 && std::isfinite(speed))) return "expected a positive speed (rad/s), got " + exact_number(speed);
  const double steps = (start - from).cwiseAbs().maxCoeff() / (speed * controller_period);
  if (!(steps < 1e9))
    return "the start is out of reach at " + exact_number(speed) + " rad/s (" + exact_number(steps) +
           " controller periods; at most 1e9)";
  return "";
}

StartRamp::StartRamp(const Vec6d& from, const Vec6d& start, double speed, double controller_period)
    : from_(from), start_(start) {
  if (const std::string why = problem(from, start, speed, controller_period); !why.empty()) fail("move to start", why);
  ticks_ = static_cast<int>(std::ceil((start - from).cwiseAbs().maxCoeff() / (speed * controller_period)));
}

Vec6d StartRamp::next() {
  ++k_;
  if (k_ >= ticks_) return start_;
  return from_ + (start_ - from_) * (static_cast<double>(k_) / ticks_);
}

VisionRole VisionRole::of(const VirtualRun& run) {
  if (run.camera) return VisionRole([camera = run.camera](int, const Vec6d& pose) { return camera(pose); });
  auto gaussian = std::make_shared<servo::GaussianPoseNoise>(run.noise_sigma, run.seed);
  return VisionRole([gaussian](int frame, const Vec6d& pose) { return gaussian->measure(frame, pose); });
}

bridge::PoseMessage VisionRole::on_truth(const bridge::PoseMessage& truth) {
  bridge::PoseMessage p;
  p.header.exposure_ns = truth.header.exposure_ns;
  p.frame = truth.frame;
  // A camera-stream pose marked invalid (its fields may hold NaN, docs/protocol.md) stays invalid,
  // as does a measurement that is not finite: never a valid pose holding NaN.
  p.valid = truth.valid && truth.pose.allFinite();
  if (p.valid) p.pose = camera_(static_cast<int>(truth.frame), truth.pose);
  p.valid = p.valid && p.pose.allFinite();
  if (!p.valid) p.pose.setZero();
  return p;
}

ControlRole::ControlRole(const ExperimentSetup& s)
    : s_(s), outer_(s.reference, s.experiment.outer), last_valid_(s.reference.start_pose) {}

bool ControlRole::acts_on(const bridge::PoseMessage& p) const {
  return p.frame > last_acted_ && p.frame < s_.reference.clock.updates();
}

std::string ControlRole::unreachable(const bridge::PoseMessage& p) const {
  if (!p.valid) return "";
  if (!(p.pose.cwiseAbs().maxCoeff() <= kMaxTraceMagnitude))
    return "it holds a value beyond " + exact_number(kMaxTraceMagnitude) + " (m or rad), which no trace holds";
  Vec6d theta;
  if (!sim::inverse_kinematics<double>(s_.model, p.pose, theta)) return "it is out of the robot's reach";
  if (!theta.allFinite()) return "its joint angles are not finite";
  if (last_valid_frame_ < 0) return "";
  const double frames = static_cast<double>(p.frame - last_valid_frame_);
  const double reach = kPoseJumpFactor * bridge::SafetyLimits{}.max_command_speed * frames *
                       s_.experiment.timing.camera_period();
  Eigen::Index joint = 0;
  const double moved = (theta - last_valid_theta_).cwiseAbs().maxCoeff(&joint);
  if (moved <= reach) return "";
  return "joint " + std::to_string(joint + 1) + " would have moved " + exact_number(moved) + " rad since frame " +
         std::to_string(last_valid_frame_) + ", more than the " + exact_number(reach) +
         " rad its drive can (" + exact_number(kPoseJumpFactor) + " x the rate limit of " +
         exact_number(bridge::SafetyLimits{}.max_command_speed) + " rad/s)";
}

std::string ControlRole::pose_not_followed(const bridge::PoseMessage& p, double joint_limit) const {
  Vec6d theta;
  if (!p.valid || !sim::inverse_kinematics<double>(s_.model, p.pose, theta) || !(theta.cwiseAbs().maxCoeff() <= joint_limit))
    return "";
  const auto& at = outer_.reference().reference_at_exposure;
  const auto j = static_cast<std::size_t>(std::max<std::int64_t>(p.frame, 0));
  const Vec6d error = j < at.size() ? Vec6d(at[j] - p.pose) : Vec6d::Zero();
  return "the pose itself is within the joint range, " + fixed(error.head<3>().norm() * 1e3, 1) + " mm and " +
         fixed(error.tail<3>().cwiseAbs().maxCoeff() * 1e3, 1) +
         " mrad from the reference: the measured pose did not follow the commands, and the outer loop's "
         "error grew (a robot that does not move, or a pose source that does not see it)";
}

std::optional<bridge::CommandMessage> ControlRole::on_pose(const bridge::PoseMessage& p) {
  if (!acts_on(p)) return std::nullopt;
  if (p.valid && sim::inverse_kinematics<double>(s_.model, p.pose, last_valid_theta_)) last_valid_frame_ = p.frame;
  const Vec6d U = p.valid ? outer_.on_frame(static_cast<int>(p.frame), p.pose) : outer_.command();
  bridge::CommandMessage c;
  c.header.exposure_ns = p.header.exposure_ns;
  c.frame = p.frame;
  c.theta = U;
  commands_sent_[p.frame] = U;
  last_acted_ = p.frame;
  return c;
}

// The first pose of a frame stays; a repeat (any pose) is counted, never recorded over it.
void ControlRole::record(const bridge::PoseMessage& p, std::int64_t receive_ns) {
  frames_.count(p, receive_ns);
  const bool sane = bridge::check_stamps(p.header, receive_ns) == bridge::StampCheck::Plausible;
  if (p.frame >= s_.reference.clock.frames()) ++frames_past_run_;
  if (p.frame >= 0 && p.frame < s_.reference.clock.frames()) rows_.emplace(p.frame, Received{p, receive_ns, sane});
}

// U held at frame j's exposure: after the last update that arrived before it (TickClock).
Vec6d ControlRole::command_at(std::int64_t j) const {
  if (auto it = commands_sent_.find(j); it != commands_sent_.end()) return it->second;
  const servo::TickClock& c = s_.reference.clock;
  Vec6d U = s_.reference.start_theta;
  for (const auto& [i, Ui] : commands_sent_)
    if (c.arrival_tick(static_cast<int>(i)) < c.exposure_tick(static_cast<int>(j))) U = Ui;
  return U;
}

// Rows leave in frame order once final: the frame was acted on (its command is known) or a
// later one was; at the end (`all`), every frame up to the last recorded. A frame the recorder
// never got (sequence gap) or an invalid pose repeats the last valid pose (as `vcloe run`'s
// stereo camera does) and is listed.
std::size_t ControlRole::emit_rows(bool all) {
  const std::int64_t known = rows_.empty() ? 0 : rows_.rbegin()->first + 1;
  // Receive times from the first row's exposure, or its receive time when its stamps are not
  // plausible (a hostile exposure of -2^63 would overflow the difference).
  const Received* first = rows_.empty() ? nullptr : &rows_.begin()->second;
  const std::int64_t start_ns = first == nullptr ? 0 : first->sane ? first->pose.header.exposure_ns : first->receive_ns;
  const std::size_t before = trace_.size();
  for (auto j = static_cast<std::int64_t>(trace_.size()); j < std::min(known, end_frame_) && (all || j <= last_acted_); ++j) {
    const auto it = rows_.find(j);
    if (it == rows_.end()) missing_.push_back(j);
    else if (!it->second.pose.valid) invalid_.push_back(j);
    else last_valid_ = it->second.pose.pose;
    const auto k = static_cast<std::size_t>(j);
    trace_.time.push_back(s_.reference.exposure_times[k]);
    trace_.reference.push_back(s_.reference.reference_at_exposure[k]);
    trace_.measured.push_back(last_valid_);
    trace_.command.push_back(command_at(j));
    const bool got = it != rows_.end();
    receive_s_.push_back(got ? (it->second.receive_ns - start_ns) * 1e-9 : -1);
    // A stamp ahead of the receive time or stale measures nothing (bridge::publish_to_receive_ms).
    const std::optional<double> latency = got ? bridge::publish_to_receive_ms(it->second.pose.header, it->second.receive_ns) : std::nullopt;
    latency_ms_.push_back(latency.value_or(-1));
  }
  return trace_.size() - before;
}

std::string running_tick_problem(std::int64_t tick, std::int64_t last_running) {
  if (last_running < 0 || tick >= last_running) return "";
  return "went back from tick " + std::to_string(last_running) + " to " + std::to_string(tick) +
         " (a robot restarted, or another one on the stream?)";
}

std::string stop_tick_problem(const servo::TickClock& clock, std::int64_t stop_tick, std::int64_t last_running,
                              double seconds_since) {
  const std::int64_t lo = std::max<std::int64_t>(last_running, 0);
  const double ahead = std::ceil(std::max(seconds_since, 0.0) / clock.timing.controller_period()) +
                       2.0 * clock.timing.ticks_per_frame() + clock.timing.latency_ticks();
  const double hi = std::min(static_cast<double>(clock.total_ticks), static_cast<double>(lo) + ahead);
  if (stop_tick >= lo && static_cast<double>(stop_tick) <= hi) return "";
  return "the robot's stop tick " + std::to_string(stop_tick) + " is outside the ticks it can have reached (" +
         std::to_string(lo) + " to " + std::to_string(static_cast<std::int64_t>(hi)) + ": its last running tick " +
         std::to_string(last_running) + ", the run's " + std::to_string(clock.total_ticks) + " ticks)";
}

bool StartSettle::update(const Vec6d& encoders, const Vec6d& start, double controller_period) {
  ++ticks_;
  const Vec6d off = (encoders - start).cwiseAbs();
  const Vec6d speed = last_ ? Vec6d((encoders - *last_).cwiseAbs() / controller_period) : Vec6d::Constant(INFINITY);
  last_ = encoders;
  const Vec6d share = off.cwiseMax(speed * camera_period_) / kStartTolerance;  // 1: at the tolerance
  Eigen::Index worst = 0;
  share.maxCoeff(&worst);
  worst_ = static_cast<int>(worst);
  off_ = off(worst), speed_ = speed(worst);
  in_a_row_ = share.maxCoeff() <= 1 ? in_a_row_ + 1 : 0;
  return in_a_row_ >= needed_;
}

std::string StartSettle::describe() const {
  return "joint " + std::to_string(worst_ + 1) + " " + exact_number(off_) + " rad off the start, moving " +
         exact_number(speed_) + " rad/s; expected within " + exact_number(kStartTolerance) + " rad, moving under " +
         exact_number(kStartTolerance / camera_period_) + " rad/s, for a camera period";
}

StoppedRecord stopped_record(const servo::TickClock& clock, const std::string& reason, std::int64_t frames,
                             std::int64_t stop_tick, std::int64_t last_running, double seconds_since) {
  const double Tc = clock.timing.controller_period();
  if (const std::string bad = stop_tick_problem(clock, stop_tick, last_running, seconds_since); !bad.empty())
    return {reason + "; " + bad + ": the time is its last running tick's", frames,
            static_cast<double>(std::max<std::int64_t>(last_running, 0)) * Tc};
  const std::int64_t tpf = clock.timing.ticks_per_frame();
  const std::int64_t exposed = (stop_tick + tpf - 1) / tpf;  // frames exposed at ticks before the stop
  std::string said = reason;
  if (exposed > frames)
    said += "; " + (exposed - 1 == frames ? "frame " + std::to_string(frames)
                                          : "frames " + std::to_string(frames) + " to " + std::to_string(exposed - 1)) +
            ", exposed before the stop by the robot's tick " + std::to_string(stop_tick) + ", never reached this controller";
  return {said, frames, static_cast<double>(stop_tick) * Tc};
}

namespace {

// One tick of the three roles over memory: the robot exposes, vision measures, control acts
// and records, the robot takes the commands and steps with the one due.
bool step_all(RobotSchedule& schedule, hw::VirtualRobot& robot, VisionRole& vision, ControlRole& control,
              MemoryStream& camera, MemoryStream& poses, MemoryStream& commands, const std::vector<Vec6d>& correction) {
  if (const int j = schedule.exposed(); j >= 0) {
    bridge::PoseMessage truth;
    truth.frame = j;
    truth.pose = robot.pose();
    truth.valid = true;
    camera.publish(truth);
  }
  while (auto m = camera.receive()) poses.publish(vision.on_truth(std::get<bridge::PoseMessage>(*m)));
  while (auto m = poses.receive()) {
    const auto& p = std::get<bridge::PoseMessage>(*m);
    control.record(p, 0);
    if (auto c = control.on_pose(p)) commands.publish(*c);
  }
  while (auto m = commands.receive()) {
    const auto& c = std::get<bridge::CommandMessage>(*m);
    if (const std::string why = schedule.frame_problem(c.frame); !why.empty()) fail("robot role", why);
    schedule.take(c.frame, c.theta);
  }
  const int arrived = schedule.begin_tick();
  if (!schedule.command_here(arrived)) fail("robot role", "no command for frame " + std::to_string(arrived));
  const bool ok = robot.step(servo::corrected_command<double>(correction, static_cast<std::size_t>(schedule.tick()),
                                                               schedule.apply_due(arrived)));
  schedule.advance();
  return ok;
}

}  // namespace

PoseTrace stepped_trace(const ExperimentSetup& s, const sim::RobotFile& truth, const VirtualRun& run,
                        const std::optional<oe_ident::Payload>& payload) {
  if (camera_departs(truth.model, run.departures))
    fail("rig", "the truth's camera departures (marker frame, camera-to-base residual, latency) are simulated by "
                "`vcloe run` only, not by the rig's roles");
  const hw::VirtualRobotOptions opt = virtual_robot_options(s, run.robot, run.departures);
  hw::VirtualRobot robot(truth.model, oe_ident::with_payload(truth.lambda, payload), s.reference.start_pose, opt);
  RobotSchedule schedule(s.reference.clock, s.reference.start_theta);
  VisionRole vision = VisionRole::of(run);
  ControlRole control(s);
  MemoryStream camera, poses, commands;
  while (!schedule.finished())
    if (!step_all(schedule, robot, vision, control, camera, poses, commands, s.reference.command_correction)) fail(closed_loop_of(s, "the virtual robot"), robot.failure());
  control.emit_rows(true);
  PoseTrace t = control.trace();
  t.metadata = trace_metadata(s, "rig");
  return t;
}

}  // namespace vcloe::rig
