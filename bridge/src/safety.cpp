#include "vcloe/bridge/safety.hpp"

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
  auto bad = [](const std::string& key, const std::string& what) { return SettingProblem{key, key + ": " + what}; };
  if (!(pose_timeout > 0 && pose_timeout <= 60)) return bad("pose_timeout", "expected a time in (0, 60] s");
  if (max_invalid_in_row < 1 || max_invalid_in_row > 1000000) return bad("max_invalid_in_row", "expected 1 to 1000000");
  if (!(heartbeat_timeout > 0 && heartbeat_timeout <= 60)) return bad("heartbeat_timeout", "expected a time in (0, 60] s");
  if (!(joint_limit > 0 && joint_limit <= M_PI)) return bad("joint_limit", "expected an angle in (0, pi] rad");
  if (!(max_command_speed > 0 && std::isfinite(max_command_speed)))
    return bad("max_command_speed", "expected a positive speed (rad/s)");
  return std::nullopt;
}

void SafetyLimits::validate(const std::string& where) const { throw_if(problem(), where); }

SafetyMonitor::SafetyMonitor(const SafetyLimits& limits, double camera_period)
    : limits_(limits), camera_period_(camera_period) {
  limits.validate();
  if (!(camera_period > 0)) fail("safety limits", "the camera period must be positive");
}

void SafetyMonitor::start(double now) {
  started_ = true;
  last_pose_ = last_controller_ = now;
}

void SafetyMonitor::trip(StopReason reason, const std::string& detail) {
  if (!stop_) stop_ = StopCause{reason, detail};
}

void SafetyMonitor::on_pose(double now, bool valid) {
  last_pose_ = now;
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
  if (previous_command_) {
    const double dt = std::max<std::int64_t>(frame - previous_frame_, 1) * camera_period_;
    for (int i = 0; i < 6; ++i) {
      const double speed = std::abs(theta(i) - (*previous_command_)(i)) / dt;
      if (speed > limits_.max_command_speed) {
        std::ostringstream s;
        s << "command for frame " << frame << ": joint " << i + 1 << " steps at " << speed << " rad/s, limit "
          << limits_.max_command_speed << " rad/s";
        return trip(StopReason::CommandRateLimit, s.str());
      }
    }
  }
  previous_command_ = theta;
  previous_frame_ = frame;
}

void SafetyMonitor::on_malformed_command(const std::string& why) { trip(StopReason::MalformedCommand, why); }

const std::optional<StopCause>& SafetyMonitor::check(double now) {
  if (!started_ || stop_) return stop_;
  if (now - last_pose_ > limits_.pose_timeout)
    trip(StopReason::PoseTimeout,
         "pose stream silent for " + ms(now - last_pose_) + " (timeout " + ms(limits_.pose_timeout) + ")");
  else if (now - last_controller_ > limits_.heartbeat_timeout)
    trip(StopReason::HeartbeatLost, "nothing from the controller for " + ms(now - last_controller_) + " (timeout " +
                                        ms(limits_.heartbeat_timeout) + ")");
  return stop_;
}

}  // namespace vcloe::bridge
