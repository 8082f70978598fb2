#include "vcloe/rig/virtual_camera.hpp"

#include <algorithm>
#include <cmath>

#include "vcloe/core/error.hpp"

namespace vcloe::rig {

VirtualCamera::VirtualCamera(const sim::RobotModel& truth, const hw::VirtualRig& rig, const servo::TickClock& clock,
                             const Vec6d& start_pose, std::function<Vec6d(const Vec6d&)> camera, std::uint64_t seed)
    : marker_frame_(truth.marker_frame),
      base_error_(rig.camera_from_base_error),
      rig_(rig),
      clock_(clock),
      camera_(std::move(camera)),
      jitter_(seed ^ 0x6a09e667f3bcc909ULL),
      history_(clock.timing.controller_period(), start_pose, clock.total_ticks) {
  rig.validate("virtual rig");
  const double shortest = clock.timing.latency + rig.latency_offset - 3 * rig.latency_jitter;
  if (!(shortest >= 0))
    fail(rig.source.empty() ? "virtual rig" : rig.source, "latency_offset " + exact_number(rig.latency_offset) + " s and 3 x latency_jitter " +
                            exact_number(3 * rig.latency_jitter) + " s make the true latency negative with the " +
                            exact_number(clock.timing.latency) + " s the experiment configures (timing.latency)");
}

Vec6d VirtualCamera::readout(int frame) {
  double delta = rig_.latency_offset;  // true latency - configured: the exposure was that much earlier
  if (rig_.latency_jitter > 0)
    delta += std::clamp(std::normal_distribution<double>(0, rig_.latency_jitter)(jitter_), -3 * rig_.latency_jitter,
                        3 * rig_.latency_jitter);
  const double t = clock_.time(clock_.exposure_tick(frame)) - delta;
  exposures_.push_back(t);
  return camera_(seen(history_.at(t)));  // between ticks: servo::PoseHistory
}

Vec6d VirtualCamera::seen(const Vec6d& chi) const {
  // T_O'M = T_OO'^-1 T_OE T_EM: the marker frame as the twin composes it (pose_of_attached),
  // then in the base frame the camera was calibrated to.
  const Vec6d marker = pose_of_attached<double>(chi, marker_frame_);
  if (base_error_ == Vec6d::Zero()) return marker;  // nothing departs: the pose itself, bit for bit
  return (Rigid<double>::of(base_error_).inverse() * Rigid<double>::of(marker)).pose();
}

}  // namespace vcloe::rig
