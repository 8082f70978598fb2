#pragma once
// What the fit's specifications share: a smooth random feasible reference on the default robot.
#include <cstdint>

#include "../test_support.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/servo/reference.hpp"

namespace vcloe::test {

// A random feasible trajectory of `duration` s (seed `seed`, 0.2 Hz base frequency, 30 mm and
// 0.12 rad amplitudes) prepared for the loop on the default robot at the default timing.
inline servo::PreparedReference fit_reference(double duration, std::uint64_t seed) {
  excitation::RandomTrajectoryOptions o;
  o.duration = duration;
  o.f0 = 0.2;
  o.position_amplitude = 0.03;
  o.angle_amplitude = 0.12;
  const auto tr = excitation::random_feasible_trajectory(default_robot(), seed, o);
  return servo::prepare_reference(default_robot(), servo::LoopTiming{}, tr);
}

}  // namespace vcloe::test
