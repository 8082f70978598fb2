#pragma once
// vcloe/oe_ident/spread.hpp — a fitted parameter's relative sigma and 95 % interval: the one rule
// that identify writes by and the identification report's reader checks by (report/identification).
// Positive parameters (masses, moments, friction, gains) are fitted in log coordinates: rel_sigma =
// sigma / |value| and the interval value * exp(+-1.96 rel_sigma) (Li et al. 2019, §4). The platform's
// first moments m c are signed and 0 on a symmetric platform: rel_sigma is judged against at least a
// 1 mm offset of the centre of mass, sigma / max(|m c|, m_p x 1 mm), and the interval is Gaussian,
// value +- 1.96 sigma (docs/identification.md).

namespace vcloe::oe_ident {

inline constexpr double kFirstMomentFloor = 1e-3;  // m: the centre-of-mass offset a first moment is judged against

struct ParameterSpread {
  double rel_sigma = 0;
  double low = 0, high = 0;  // the 95 % interval (may overflow to +-inf for a log one)
};

// Lambda entry `index` (sim::parameter_registry order) at `value` with standard deviation `sigma`;
// `platform_mass` is m_p at the same solution (the first moments' floor).
ParameterSpread parameter_spread(int index, double value, double sigma, double platform_mass);

// True for the entries whose rel_sigma has the first moments' floor (the words of the reader's complaint).
bool has_first_moment_floor(int index);

}  // namespace vcloe::oe_ident
