// oe_ident/src/spread.cpp — a fitted parameter's relative sigma and 95 % interval (spread.hpp).
#include "vcloe/oe_ident/spread.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "vcloe/sim/parameters.hpp"

namespace vcloe::oe_ident {

bool has_first_moment_floor(int index) {
  return sim::parameter_registry()[static_cast<std::size_t>(index)].kind == sim::ParameterKind::FirstMoment;
}

ParameterSpread parameter_spread(int index, double value, double sigma, double platform_mass) {
  ParameterSpread s;
  if (has_first_moment_floor(index)) {
    s.rel_sigma = sigma / std::max(std::abs(value), kFirstMomentFloor * platform_mass);
    s.low = value - 1.96 * sigma;
    s.high = value + 1.96 * sigma;
  } else {
    s.rel_sigma = sigma / std::max(std::abs(value), 1e-300);
    s.low = value * std::exp(-1.96 * s.rel_sigma);
    s.high = value * std::exp(1.96 * s.rel_sigma);
  }
  return s;
}

}  // namespace vcloe::oe_ident
