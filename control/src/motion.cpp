#include "vcloe/control/motion.hpp"

#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/core/series_size.hpp"
#include "vcloe/sim/kinematics.hpp"

namespace vcloe::control {

MotionSample platform_motion(const sim::RobotModel& model, const MotionSample& marker) {
  if (model.marker_frame == Vec6d::Zero()) return marker;
  MotionSample e = marker;
  e.chi = sim::platform_pose_of_marker(model, marker.chi);
  const Vec3d r = Rigid<double>::of(e.chi).R * model.marker_frame.head<3>();  // E to the marker, in O
  const Vec3d w = marker.v.tail<3>(), w_dot = marker.v_dot.tail<3>();
  e.v.head<3>() -= w.cross(r);
  e.v_dot.head<3>() -= w_dot.cross(r) + w.cross(w.cross(r));
  return e;
}

SampledMotion sample_motion(const Motion& motion, double period) {
  throw_if(series_size_problem("sample period", motion.duration, period, sizeof(MotionSample), "the motion"), "");
  SampledMotion out;
  out.period = period;
  const auto n = static_cast<std::size_t>(std::floor(motion.duration / period + 1e-9)) + 1;
  out.samples.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.samples.push_back(motion.sample(out.time(i)));
  return out;
}

}  // namespace vcloe::control
