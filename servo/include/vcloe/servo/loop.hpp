#pragma once
// vcloe/servo/loop.hpp — the sampled-data visual-servo loop (seed 004 Fig. 3), shared by the
// twin and every real or virtual robot: only the robot and the measurement differ.
//
// Tick k (controller period Tc): if a camera frame is exposed now (k = j * ticks_per_frame),
// the robot's pose is measured; if frame j arrives now (k = j * ticks_per_frame +
// latency_ticks), the outer PID updates the held command U; then the robot advances one
// controller period under U (its inner PID runs inside `step`). Before the first frame
// arrives, U holds IK of the start pose.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "vcloe/servo/controllers.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::servo {

struct ReferenceSample {
  Vec6d chi, chi_dot;  // desired pose and its rate at one time
};
using ReferenceFunction = std::function<ReferenceSample(double t)>;

// Everything the loop needs that does not depend on the identified parameters, computed once.
struct PreparedReference {
  LoopTiming timing;
  double duration = 0;
  int total_ticks = 0;                    // controller periods simulated
  std::vector<double> exposure_times;     // t_j = j / camera_hz, t_j <= duration
  std::vector<Vec6d> reference_at_exposure;  // chi_d(t_j), for traces
  std::vector<OuterReference> updates;    // per frame j, at its arrival tick (if within the run)
  Vec6d start_pose = Vec6d::Zero();       // chi_d(0): both loops start at rest here
  Vec6d start_theta = Vec6d::Zero();
};

// Throws vcloe::Error if the timing is invalid or a reference pose is not reachable.
PreparedReference prepare_reference(const sim::RobotModel& model, const LoopTiming& timing, double duration,
                                    const ReferenceFunction& reference);

// The first `frames` camera frames of a prepared reference: the same experiment, stopped early
// (the identification fits growing prefixes of a record before the whole of it).
inline PreparedReference truncate_reference(const PreparedReference& ref, std::size_t frames) {
  PreparedReference out = ref;
  frames = std::min(frames, ref.exposure_times.size());
  const int per_frame = ref.timing.ticks_per_frame(), lag = ref.timing.latency_ticks();
  out.total_ticks = std::min(ref.total_ticks, static_cast<int>(frames) * per_frame);
  out.duration = out.total_ticks * ref.timing.controller_period();
  out.exposure_times.resize(frames);
  out.reference_at_exposure.resize(frames);
  std::size_t updates = 0;
  while (updates < ref.updates.size() && static_cast<int>(updates) * per_frame + lag < out.total_ticks) ++updates;
  out.updates.resize(updates);
  return out;
}

template <typename T>
struct LoopResult {
  bool ok = true;
  std::string failure;   // why the run stopped early
  double failure_time = 0;
  std::vector<Vec6<T>> true_pose;   // robot pose at each exposure time
  std::vector<Vec6<T>> measured;    // what the camera reported for it
  std::vector<Vec6<T>> command;     // U after the update of frame j (or the start hold)
};

// Robot concept: `Vec6<T> pose() const` and `bool step(const Vec6<T>& U)` (one controller
// period, inner PID included; false if the robot failed). Measure: Vec6<T>(int j, Vec6<T> pose).
template <typename T, typename Robot, typename Measure>
LoopResult<T> run_visual_servo(Robot& robot, const PreparedReference& ref, const OuterGains& gains,
                               Measure&& measure) {
  LoopResult<T> out;
  const LoopTiming& tm = ref.timing;
  const int per_frame = tm.ticks_per_frame(), lag = tm.latency_ticks();
  const std::size_t frames = ref.exposure_times.size();
  out.true_pose.reserve(frames);
  out.measured.reserve(frames);
  out.command.reserve(frames);

  OuterPid<T> outer;
  if (gains.literal && !ref.updates.empty()) outer.start_literal(gains, ref.updates.front(), ref.start_theta);
  Vec6<T> U = ref.start_theta.cast<T>();
  for (int k = 0; k < ref.total_ticks; ++k) {
    if (k % per_frame == 0) {
      const std::size_t j = static_cast<std::size_t>(k / per_frame);
      if (j < frames) {
        out.true_pose.push_back(robot.pose());
        out.measured.push_back(measure(static_cast<int>(j), out.true_pose.back()));
        out.command.push_back(U);
      }
    }
    if (k >= lag && (k - lag) % per_frame == 0) {
      const std::size_t j = static_cast<std::size_t>((k - lag) / per_frame);
      if (j < ref.updates.size()) {
        U = outer.update(gains, ref.updates[j], out.measured[j], tm.camera_period());
        out.command[j] = U;
      }
    }
    if (!robot.step(U)) {
      out.ok = false;
      out.failure_time = (k + 1) * tm.controller_period();
      out.failure = "robot failed during the controller period ending at t = " + std::to_string(out.failure_time) + " s";
      return out;
    }
  }
  return out;
}

}  // namespace vcloe::servo
