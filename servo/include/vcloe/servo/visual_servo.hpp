#pragma once
// vcloe/servo/visual_servo.hpp — the outer controller as a component that runs alone: a
// measured pose and its frame (or exposure time) in, the held joint command U out (eq. 30).
//
// The loop (loop.hpp) steps it at each frame's arrival tick; a control process that receives
// poses over the network steps it the same way, on each pose as it arrives. Before the first
// frame arrives it holds IK of the start pose.
#include <cmath>
#include <string>

#include "vcloe/core/error.hpp"
#include "vcloe/servo/controllers.hpp"

namespace vcloe::servo {

template <typename T>
class VisualServo {
 public:
  VisualServo(const PreparedReference& reference, const OuterGains& gains)
      : ref_(reference), gains_(gains), U_(reference.start_theta.cast<T>()) {
    // Literal form: the integrator starts where U equals the start angles (docs/design.md §5).
    if (gains.literal && !reference.updates.empty())
      pid_.start_literal(gains, reference.updates.front(), reference.start_theta);
  }

  const PreparedReference& reference() const { return ref_; }
  const Vec6<T>& command() const { return U_; }  // the held joint command (rad)

  // Frame j's measured pose has arrived: eq. (30) with the reference at its arrival tick. Frames
  // come in order; a skipped frame (lost by the camera) integrates over the time it covered.
  const Vec6<T>& on_frame(int j, const Vec6<T>& measured) {
    if (j <= last_frame_ || j >= static_cast<int>(ref_.updates.size()))
      fail("visual servo", "frame " + std::to_string(j) + " out of order or past the reference (last " +
                               std::to_string(last_frame_) + ", " + std::to_string(ref_.updates.size()) + " frames)");
    const int covered = last_frame_ < 0 ? 1 : j - last_frame_;
    const double Tcam = ref_.clock.timing.camera_period();
    U_ = pid_.update(gains_, ref_.updates[static_cast<std::size_t>(j)], measured, covered == 1 ? Tcam : covered * Tcam);
    last_frame_ = j;
    return U_;
  }

  // The same for a pose exposed at `exposure_time` (s from the start of the reference), as a
  // process receiving time-stamped poses calls it. The time must lie on the camera's grid.
  const Vec6<T>& on_pose(double exposure_time, const Vec6<T>& measured) {
    const double frames = exposure_time * ref_.clock.timing.camera_hz;
    const double j = std::round(frames);
    if (!(std::abs(frames - j) < 1e-6) || j < 0)
      fail("visual servo", "exposure time " + std::to_string(exposure_time) + " s is not on the camera's grid");
    return on_frame(static_cast<int>(j), measured);
  }

 private:
  const PreparedReference& ref_;
  OuterGains gains_;
  OuterPid<T> pid_;
  Vec6<T> U_;
  int last_frame_ = -1;
};

}  // namespace vcloe::servo
