#include "vcloe/servo/reference.hpp"

#include <algorithm>
#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/core/series_size.hpp"
#include "vcloe/sim/kinematics.hpp"

namespace vcloe::servo {

namespace {
int ceil_div(int a, int b) { return a <= 0 ? 0 : (a + b - 1) / b; }
}  // namespace

int TickClock::frames() const { return ceil_div(total_ticks, timing.ticks_per_frame()); }
int TickClock::updates() const { return ceil_div(total_ticks - timing.latency_ticks(), timing.ticks_per_frame()); }

int TickClock::exposed_at(int tick) const {
  const int per_frame = timing.ticks_per_frame();
  return tick % per_frame == 0 && tick < total_ticks ? tick / per_frame : -1;
}

int TickClock::arriving_at(int tick) const {
  const int per_frame = timing.ticks_per_frame(), lag = timing.latency_ticks();
  return tick >= lag && (tick - lag) % per_frame == 0 && tick < total_ticks ? (tick - lag) / per_frame : -1;
}

PreparedReference prepare_reference(const sim::RobotModel& model, const LoopTiming& timing, double duration,
                                    const ReferenceFunction& reference) {
  timing.validate("experiment");
  if (!(duration > 0)) fail("experiment", "duration must be positive");
  const double Tc = timing.controller_period();
  if (!(duration / Tc <= 1e8))
    fail("experiment", "a run of " + exact_number(duration) + " s is more than 10^8 controller periods");
  // What a run holds per camera frame (its reference and outer law's, a trace row, the ticks'
  // pre-correction): the one bound of a series (a day at a 1 kHz camera asked for 40 GB).
  const double per_frame = sizeof(OuterReference) + 2 * sizeof(Vec6d) + sizeof(double) + 50 * sizeof(double) +
                           timing.ticks_per_frame() * sizeof(Vec6d);
  throw_if(series_size_problem("timing.camera_hz (its period)", duration, timing.camera_period(), per_frame,
                               "the reference at this experiment's camera rate"),
           "experiment");
  PreparedReference ref;
  ref.clock = {timing, static_cast<int>(std::lround(std::floor(duration / Tc + 1e-9)))};
  ref.duration = duration;

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

  if (ref.clock.updates() < 1)
    fail("experiment", "the latency of " + exact_number(timing.latency) + " s is not shorter than the run (" +
                           exact_number(duration) + " s): no measured pose would ever reach the controller");
  const OuterReference start = outer_reference(0.0);
  ref.start_pose = start.chi_d;
  ref.start_theta = start.theta_d;
  for (int j = 0; j < ref.clock.frames(); ++j) {
    const double t = ref.clock.time(ref.clock.exposure_tick(j));
    ref.exposure_times.push_back(t);
    ref.reference_at_exposure.push_back(reference(t).chi);
    if (j < ref.clock.updates()) ref.updates.push_back(outer_reference(ref.clock.time(ref.clock.arrival_tick(j))));
  }
  return ref;
}

PreparedReference truncate_reference(const PreparedReference& ref, std::size_t frames) {
  PreparedReference out = ref;
  frames = std::min(frames, ref.exposure_times.size());
  out.clock.total_ticks = std::min(ref.clock.total_ticks, ref.clock.exposure_tick(static_cast<int>(frames)));
  out.duration = out.clock.time(out.clock.total_ticks);
  out.exposure_times.resize(static_cast<std::size_t>(out.clock.frames()));
  out.reference_at_exposure.resize(out.exposure_times.size());
  out.updates.resize(static_cast<std::size_t>(out.clock.updates()));
  return out;
}

}  // namespace vcloe::servo
