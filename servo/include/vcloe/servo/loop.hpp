#pragma once
// vcloe/servo/loop.hpp — the one sampled-data schedule of the visual-servo loop (Li et al. 2019
// Fig. 3). Every path drives it: the twin, the forward sensitivities, validate-model, the
// virtual robot, and (stepping the same VisualServo) the live control process.
//
// Tick k (controller period Tc), in this order:
//   1. if frame j is exposed now, the camera measures the robot's true pose;
//   2. if frame j arrives now (exposure + latency), the outer controller updates the held U;
//   3. the robot advances one controller period under U (its drives run inside `step`);
//   4. the observer receives the tick's record (and may stop the run).
// Before the first frame arrives, U holds IK of the start pose. A LateReadout camera
// (components.hpp) is read out at step 2 instead of step 1 and shown the pose after step 3.
#include <string>
#include <vector>

#include "vcloe/servo/components.hpp"
#include "vcloe/servo/visual_servo.hpp"

namespace vcloe::servo {

template <typename T>
struct LoopResult {
  bool ok = true;
  std::string failure;  // why the run stopped early
  double failure_time = 0;
  std::vector<Vec6<T>> true_pose;  // robot pose at each exposure time
  std::vector<Vec6<T>> measured;   // what the camera reported for it
  std::vector<Vec6<T>> command;    // U after the update of frame j (or the start hold)
};

// What happened at one tick (emitted after the robot's step).
struct TickRecord {
  int tick = 0;
  int exposed = -1;  // frame exposed at this tick
  int arrived = -1;  // frame whose pose updated U at this tick
};

// An observer that records nothing.
struct NoObserver {
  bool operator()(const TickRecord&) const { return true; }
};

// Runs the loop over the controller's reference. The observer returns false to stop the run
// (reported as a failure with `observer_failure`).
template <typename T, typename Robot, typename Camera, typename Observer = NoObserver>
  requires CommandedRobot<Robot, T> && PoseSource<Camera, T>
LoopResult<T> run_loop(Robot& robot, VisualServo<T>& controller, Camera& camera, Observer&& observe = {},
                       const std::string& observer_failure = "stopped by its observer") {
  const TickClock& clock = controller.reference().clock;
  LoopResult<T> out;
  out.true_pose.reserve(static_cast<std::size_t>(clock.frames()));
  out.measured.reserve(out.true_pose.capacity());
  out.command.reserve(out.true_pose.capacity());
  auto stop = [&](int k, const std::string& why) {
    out.ok = false;
    out.failure_time = clock.time(k + 1);
    out.failure = "stopped during the controller period ending at t = " + std::to_string(out.failure_time) + " s: " + why;
    return out;
  };
  for (int k = 0; k < clock.total_ticks; ++k) {
    TickRecord tick{k, clock.exposed_at(k), clock.arriving_at(k)};
    if (tick.exposed >= 0) {
      out.true_pose.push_back(robot.pose());
      out.measured.push_back(camera.measure(tick.exposed, out.true_pose.back()));
      out.command.push_back(controller.command());
    }
    if (tick.arrived >= 0) {
      const auto j = static_cast<std::size_t>(tick.arrived);
      if constexpr (LateReadout<Camera, T>) out.measured[j] = camera.readout(tick.arrived);
      out.command[j] = controller.on_frame(tick.arrived, out.measured[j]);
    }
    if (!robot.step(controller.command())) return stop(k, robot.failure());
    if constexpr (LateReadout<Camera, T>) camera.after_tick(k, robot.pose());
    if (!observe(tick)) return stop(k, observer_failure);
  }
  if constexpr (LateReadout<Camera, T>)  // frames exposed that never reached the controller
    for (auto j = static_cast<std::size_t>(clock.updates()); j < out.measured.size(); ++j)
      out.measured[j] = camera.readout(static_cast<int>(j));
  return out;
}

}  // namespace vcloe::servo
