#include "vcloe/bridge/safety.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "vcloe/core/error.hpp"

namespace vcloe::bridge {

namespace {

std::string ms(double seconds) {
  std::ostringstream s;
  s.precision(3);
  s << std::fixed << seconds * 1e3 << " ms";
  return s.str();
}

}  // namespace

std::optional<SettingProblem> SafetyLimits::problem() const {
  auto bad = [](const std::string& key, const std::string& what, double got) {
    return SettingProblem{key, key + ": " + what + ", got " + exact_number(got)};
  };
  if (!(pose_timeout > 0 && pose_timeout <= 60)) return bad("pose_timeout", "expected a time in (0, 60] s", pose_timeout);
  if (!(first_pose_timeout > 0 && first_pose_timeout <= 60))
    return bad("first_pose_timeout", "expected a time in (0, 60] s", first_pose_timeout);
  if (max_invalid_in_row < 1 || max_invalid_in_row > 1000000)
    return bad("max_invalid_in_row", "expected 1 to 1000000", max_invalid_in_row);
  if (!(heartbeat_timeout > 0 && heartbeat_timeout <= 60))
    return bad("heartbeat_timeout", "expected a time in (0, 60] s", heartbeat_timeout);
  if (!(joint_limit > 0 && joint_limit <= M_PI)) return bad("joint_limit", "expected an angle in (0, pi] rad", joint_limit);
  if (!(max_command_speed > 0 && std::isfinite(max_command_speed)))
    return bad("max_command_speed", "expected a positive speed (rad/s)", max_command_speed);
  return std::nullopt;
}

void SafetyLimits::validate(const std::string& where) const { throw_if(problem(), where); }

std::optional<SettingProblem> SafetyLimits::speed_problem(double camera_period, const std::string& sources) const {
  const double most = joint_limit / camera_period;
  if (max_command_speed <= most) return std::nullopt;
  return SettingProblem{"max_command_speed",
                        "max_command_speed: expected at most " + exact_number(most) + " rad/s, got " +
                            exact_number(max_command_speed) + ": one camera period (" + exact_number(camera_period) +
                            " s) at that speed reaches further than the joint limit (" + exact_number(joint_limit) +
                            " rad)" + (sources.empty() ? "" : " (" + sources + ")") +
                            ", and the rate limit would hold back nothing (docs/protocol.md, Safety)"};
}

SafetyMonitor::SafetyMonitor(const SafetyLimits& limits, double camera_period, double controller_period)
    : limits_(limits), camera_period_(camera_period), controller_period_(controller_period) {
  limits.validate();
  if (!(camera_period > 0)) fail("safety limits", "the camera period must be positive");
  throw_if(limits.speed_problem(camera_period), "safety limits");
  if (!(controller_period > 0 && controller_period <= camera_period))
    fail("safety limits", "the controller period must be positive and at most the camera period");
  set_applied(Vec6d::Zero());
}

void SafetyMonitor::start(double now) {
  started_ = true;
  pose_in_run_ = false;
  last_pose_ = last_controller_ = now;
}

void SafetyMonitor::trip(StopReason reason, const std::string& detail) {
  if (!stop_) stop_ = StopCause{reason, detail};
}

void SafetyMonitor::on_pose(double now, bool valid) {
  last_pose_ = now;
  pose_in_run_ = started_;
  invalid_in_row_ = valid ? 0 : invalid_in_row_ + 1;
  if (invalid_in_row_ >= limits_.max_invalid_in_row)
    trip(StopReason::InvalidPoses, std::to_string(invalid_in_row_) + " invalid poses in a row (limit " +
                                       std::to_string(limits_.max_invalid_in_row) + ")");
}

void SafetyMonitor::on_controller(double now) { last_controller_ = now; }

void SafetyMonitor::on_command(const Vec6d& theta, std::int64_t frame) {
  for (int i = 0; i < 6; ++i)
    if (!(std::abs(theta(i)) <= limits_.joint_limit)) {
      std::ostringstream s;
      s << "command for frame " << frame << ": joint " << i + 1 << " at " << theta(i) << " rad, outside +-"
        << limits_.joint_limit << " rad";
      return trip(StopReason::CommandOutOfRange, s.str());
    }
}

const Vec6d& SafetyMonitor::limit(const Vec6d& target) {
  const double reach = limits_.max_command_speed * camera_period_, step = limits_.max_command_speed * controller_period_;
  for (int i = 0; i < 6 && !stop_; ++i)
    if (!(std::abs(target(i) - applied_(i)) <= reach)) {
      std::ostringstream s;
      s << "command " << target(i) << " rad for joint " << i + 1 << " is " << std::abs(target(i) - applied_(i))
        << " rad from the " << applied_(i) << " rad applied; at the limit of " << limits_.max_command_speed
        << " rad/s one camera period covers " << reach << " rad";
      trip(StopReason::CommandRateLimit, s.str());
    }
  if (stop_) return applied_;
  bool held_back = false;
  for (int i = 0; i < 6; ++i) {
    allowance_(i) = std::min(allowance_(i) + step, reach);  // refilled by robot ticks only
    const double d = target(i) - applied_(i);
    const bool far = std::abs(d) > allowance_(i);
    held_back = held_back || far;
    applied_(i) = far ? applied_(i) + std::copysign(allowance_(i), d) : target(i);  // a reachable target exactly
    allowance_(i) = far ? 0.0 : allowance_(i) - std::abs(d);
  }
  limited_ticks_ += held_back;
  return applied_;
}

void SafetyMonitor::on_malformed_command(const std::string& why) { trip(StopReason::MalformedCommand, why); }
void SafetyMonitor::on_invalid_stream(const std::string& why) { trip(StopReason::InvalidPoses, why); }

const std::optional<StopCause>& SafetyMonitor::check(double now) {
  if (!started_ || stop_) return stop_;
  const double first = std::max(limits_.pose_timeout, limits_.first_pose_timeout);
  if (!pose_in_run_ && now - last_pose_ > first)
    trip(StopReason::PoseTimeout, "no pose for " + ms(now - last_pose_) + " since the start (timeout for the first pose " +
                                      ms(first) + ")");
  else if (pose_in_run_ && now - last_pose_ > limits_.pose_timeout)
    trip(StopReason::PoseTimeout,
         "pose stream silent for " + ms(now - last_pose_) + " (timeout " + ms(limits_.pose_timeout) + ")");
  else if (now - last_controller_ > limits_.heartbeat_timeout)
    trip(StopReason::HeartbeatLost, "nothing from the controller for " + ms(now - last_controller_) + " (timeout " +
                                        ms(limits_.heartbeat_timeout) + ")");
  return stop_;
}

}  // namespace vcloe::bridge
