#pragma once
// vcloe/servo/reference.hpp — one experiment's reference prepared for the loop, and the tick
// arithmetic of the sampled-data schedule (Li et al. 2019 Fig. 3), in one place.
//
// Tick k is the controller period [k Tc, (k+1) Tc). Frame j is exposed at tick j * ticks_per_frame
// and reaches the outer controller `latency_ticks` later. A run of N ticks exposes the frames
// whose exposure tick is < N and updates the command for those whose arrival tick is < N.
#include <functional>
#include <vector>

#include "vcloe/servo/timing.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::servo {

// Which frame is exposed and which arrives at each tick of a run of `total_ticks`.
struct TickClock {
  LoopTiming timing;
  int total_ticks = 0;

  int exposure_tick(int frame) const { return frame * timing.ticks_per_frame(); }
  int arrival_tick(int frame) const { return exposure_tick(frame) + timing.latency_ticks(); }
  int frames() const;   // frames exposed within the run
  int updates() const;  // frames that reach the controller within the run
  int exposed_at(int tick) const;   // frame exposed at this tick, or -1
  int arriving_at(int tick) const;  // frame reaching the controller at this tick, or -1
  double time(int tick) const { return tick * timing.controller_period(); }
};

struct ReferenceSample {
  Vec6d chi, chi_dot;  // desired pose and its rate at one time
};
using ReferenceFunction = std::function<ReferenceSample(double t)>;

// What the outer controller needs from the reference at one update: chi_d, chi_dot_d, IK(chi_d)
// and J_theta(chi_d) (eq. 29). They do not depend on the parameters: computed once.
struct OuterReference {
  Vec6d chi_d, chi_dot_d;
  Vec6d theta_d;
  Mat6d J_theta;
};

// Everything the loop needs that does not depend on the identified parameters.
struct PreparedReference {
  TickClock clock;                           // timing and length of the run
  double duration = 0;                       // s, as asked (the run is clock.total_ticks long)
  std::vector<double> exposure_times;        // t_j, one per frame exposed
  std::vector<Vec6d> reference_at_exposure;  // chi_d(t_j), for traces
  std::vector<OuterReference> updates;       // per frame j, at its arrival tick
  Vec6d start_pose = Vec6d::Zero();          // chi_d(0): every loop starts at rest here
  Vec6d start_theta = Vec6d::Zero();
  // Per controller tick, added to the loop's joint command by the twin (simulate_twin, the
  // identification's sensitivities) and the virtual robot: a pre-corrected or learnt command
  // less the outer law's on a perfect run (control::correction_of; docs/control.md). Empty: none.
  std::vector<Vec6d> command_correction;
  // The pre-correction's first-tick step: the command its model gives at tick 0 less the encoders
  // on the reference's start, q_c(0) - theta_d(0) (control::start_step: the torque step a
  // reference that starts moving needs). The robot stands at the first command less it
  // (start_hold, corrected_robot.hpp). Zero without a correction.
  Vec6d start_step = Vec6d::Zero();
};

// Throws vcloe::Error if the timing is invalid or a reference pose is not reachable.
PreparedReference prepare_reference(const sim::RobotModel& model, const LoopTiming& timing, double duration,
                                    const ReferenceFunction& reference);

// The one adapter from a trajectory to the loop's reference: any path with a `duration` (s) and
// `sample(t)` giving the pose χ_d and its rate (an excitation::FourierTrajectory, a test's motion).
template <class Path>
  requires requires(const Path& p) {
    p.duration;
    p.sample(0.0).chi;
    p.sample(0.0).chi_dot;
  }
PreparedReference prepare_reference(const sim::RobotModel& model, const LoopTiming& timing, const Path& path) {
  return prepare_reference(model, timing, path.duration, [&path](double t) {
    const auto x = path.sample(t);
    return ReferenceSample{x.chi, x.chi_dot};
  });
}

// The first `frames` frames of a prepared reference: the same experiment, stopped early (the
// identification fits growing prefixes of a record before the whole of it).
PreparedReference truncate_reference(const PreparedReference& ref, std::size_t frames);

}  // namespace vcloe::servo
