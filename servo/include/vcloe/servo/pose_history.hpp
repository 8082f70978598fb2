#pragma once
// vcloe/servo/pose_history.hpp — the pose at a time between controller ticks, and the twin's
// camera whose frames are exposed off their nominal tick.
//
// A camera whose true latency differs from the configured one exposes frame j at t_j - Delta,
// between two ticks (docs/virtual-robot.md, "Departures"). The loop knows the robot's pose at
// the ticks only; between them the pose is taken linear (over 1 ms the error is a t^2 / 8:
// 0.1 um at 1 m/s^2). One implementation serves the virtual rig's camera (rig::VirtualCamera),
// the twin's (ShiftedExposure: the identification's fitted latency offset, docs/identification.md)
// and the forward sensitivities of oe_ident, which differentiate the same interpolation.
#include <algorithm>
#include <cmath>
#include <vector>

#include "vcloe/core/error.hpp"
#include "vcloe/servo/components.hpp"
#include "vcloe/servo/reference.hpp"

namespace vcloe::servo {

// Where time t falls among the poses at the ticks' starts 0..last (pose `last` is the one after
// the run's last tick): pose(t) = (1 - weight) pose[tick] + weight pose[tick + 1]. Before the run
// the robot stands at its start pose (pose 0), after its end at the last one; there, and within
// 1e-9 of a tick, weight is 0. `moving`: t lies strictly inside the run, where d pose / dt =
// (pose[tick + 1] - pose[tick]) / tick_period (on a tick: the tick that follows).
struct TickInterpolation {
  int tick = 0;
  double weight = 0;
  bool moving = false;
};

inline TickInterpolation interpolate_ticks(double t, double tick_period, int last) {
  const double x = t / tick_period;
  if (!(x > 0)) return {0, 0, false};
  if (x >= last) return {last, 0, false};
  const double nearest = std::round(x);
  if (std::abs(x - nearest) < 1e-9) {
    const int k = static_cast<int>(nearest);
    return {k, 0, k < last};
  }
  const double k0 = std::floor(x);
  return {static_cast<int>(k0), x - k0, true};
}

// The robot's pose at the start of every tick of a run (and after its last), as the loop shows
// it to a servo::LateReadout camera, and the pose at any time of the run from them.
template <typename T>
class PoseHistory {
 public:
  PoseHistory(double tick_period, const Vec6<T>& start_pose, int ticks) : period_(tick_period) {
    poses_.reserve(static_cast<std::size_t>(std::max(ticks, 0)) + 1);
    poses_.push_back(start_pose);
  }

  // The pose after tick `tick` (the loop's order: 0, 1, 2, ...).
  void after_tick(int tick, const Vec6<T>& pose) {
    if (tick + 1 != static_cast<int>(poses_.size())) fail("pose history", "ticks out of order");
    poses_.push_back(pose);
  }

  int last() const { return static_cast<int>(poses_.size()) - 1; }
  const Vec6<T>& operator[](int k) const { return poses_[static_cast<std::size_t>(k)]; }
  TickInterpolation where(double t) const { return interpolate_ticks(t, period_, last()); }

  Vec6<T> at(double t) const {
    const TickInterpolation w = where(t);
    if (w.weight == 0) return (*this)[w.tick];
    return (*this)[w.tick] + T(w.weight) * ((*this)[w.tick + 1] - (*this)[w.tick]);
  }

 private:
  double period_;
  std::vector<Vec6<T>> poses_;
};

// The twin's camera when the pose stream's latency is off the configured one by `offset` (s,
// true - configured: frame j was exposed at t_j - offset): frame j reports the twin's pose there,
// read out when it arrives (a servo::LateReadout pose source, so the outer loop acts on it as on
// the real rig). offset 0 reports the pose at the nominal exposure, bit for bit ExactPose's.
// With a marker frame (sim::RobotModel::marker_frame) it reports that frame's pose there, as
// MarkerPose does (components.hpp).
template <typename T>
class ShiftedExposure {
 public:
  ShiftedExposure(const TickClock& clock, const Vec6<T>& start_pose, double offset,
                  const Vec6d& marker_frame = Vec6d::Zero())
      : clock_(clock), history_(clock.timing.controller_period(), start_pose, clock.total_ticks), offset_(offset),
        marker_{marker_frame} {}

  Vec6<T> measure(int, const Vec6<T>& pose) const { return pose; }  // a placeholder until read out
  void after_tick(int tick, const Vec6<T>& pose) { history_.after_tick(tick, pose); }
  Vec6<T> readout(int frame) const { return marker_.measure(frame, history_.at(exposure(frame))); }

  double exposure(int frame) const { return clock_.time(clock_.exposure_tick(frame)) - offset_; }
  const PoseHistory<T>& history() const { return history_; }

 private:
  TickClock clock_;
  PoseHistory<T> history_;
  double offset_;
  MarkerPose marker_;
};

}  // namespace vcloe::servo
