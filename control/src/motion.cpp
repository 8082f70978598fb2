#include "vcloe/control/motion.hpp"

#include <cmath>

#include "vcloe/core/error.hpp"

namespace vcloe::control {

SampledMotion sample_motion(const Motion& motion, double period) {
  if (!(period > 0) || !(motion.duration > 0) || !(motion.duration / period <= 1e8))
    fail("motion", "sample period " + exact_number(period) + " s and duration " + exact_number(motion.duration) +
                       " s must be positive, at most 10^8 samples");
  SampledMotion out;
  out.period = period;
  const auto n = static_cast<std::size_t>(std::floor(motion.duration / period + 1e-9)) + 1;
  out.samples.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.samples.push_back(motion.sample(out.time(i)));
  return out;
}

}  // namespace vcloe::control
