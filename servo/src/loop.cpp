#include "vcloe/servo/loop.hpp"

#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/sim/kinematics.hpp"

namespace vcloe::servo {

PreparedReference prepare_reference(const sim::RobotModel& model, const LoopTiming& timing, double duration,
                                    const ReferenceFunction& reference) {
  timing.validate("experiment");
  if (!(duration > 0)) fail("experiment", "duration must be positive");
  PreparedReference ref;
  ref.timing = timing;
  ref.duration = duration;
  const double Tc = timing.controller_period();
  ref.total_ticks = static_cast<int>(std::lround(std::floor(duration / Tc + 1e-9)));
  const int per_frame = timing.ticks_per_frame(), lag = timing.latency_ticks();

  auto outer_reference = [&](double t) {
    const ReferenceSample s = reference(t);
    OuterReference o;
    o.chi_d = s.chi;
    o.chi_dot_d = s.chi_dot;
    sim::Kinematics<double> k;
    if (!sim::compute_geometry<double>(model, s.chi, k))
      fail("reference", "pose at t = " + std::to_string(t) + " s is not reachable");
    o.theta_d = k.theta();
    sim::compute_jacobians<double>(model, Vec6d::Zero(), k);
    o.J_theta = sim::J_theta<double>(k, s.chi);  // eq. (29)
    return o;
  };

  const OuterReference start = outer_reference(0.0);
  ref.start_pose = start.chi_d;
  ref.start_theta = start.theta_d;
  // Frames exposed at ticks the loop visits (k < total_ticks); frame j updates U at tick
  // k + latency_ticks if that is still within the run.
  for (int j = 0; j * per_frame < ref.total_ticks; ++j) {
    const int k_exposure = j * per_frame;
    const double t = k_exposure * Tc;
    ref.exposure_times.push_back(t);
    ref.reference_at_exposure.push_back(reference(t).chi);
    const int k_update = k_exposure + lag;
    if (k_update < ref.total_ticks) ref.updates.push_back(outer_reference(k_update * Tc));
  }
  return ref;
}

}  // namespace vcloe::servo
