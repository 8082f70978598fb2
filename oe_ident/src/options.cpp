// oe_ident/src/options.cpp — IdentificationOptions::problem and validate: every numeric setting and the
// anchor range-checked in one place, for identify() and the settings-file parser alike.
#include <cmath>
#include <sstream>

#include "vcloe/core/defaults.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/oe_ident/problem.hpp"

namespace vcloe::oe_ident {

namespace {

std::optional<SettingProblem> expected(const char* option, const std::string& what, double x) {
  return SettingProblem{option, "expected " + what + ", got " + exact_number(x)};
}

// x finite and in the interval from lo to hi, each end open or closed.
std::optional<SettingProblem> in_range(const char* option, double x, double lo, bool lo_open, double hi, bool hi_open,
                                      const std::string& what) {
  if (std::isfinite(x) && (lo_open ? x > lo : x >= lo) && (hi_open ? x < hi : x <= hi)) return std::nullopt;
  return expected(option,
                  what + " in " + (lo_open ? "(" : "[") + exact_number(lo) + ", " +
                      (std::isinf(hi) ? std::string("inf") : exact_number(hi)) + (hi_open ? ")" : "]"),
                  x);
}

std::optional<SettingProblem> positive(const char* option, double x, const std::string& what) {
  if (std::isfinite(x) && x > 0) return std::nullopt;
  return expected(option, what, x);
}

// The weights and the stopping rules (docs/identification.md, "The settings' ranges"): a camera noise
// within what a run accepts and above a nanometre or nanoradian (below, a weighted residual of a
// start 1 m off passes 1e9 and its square the double's range), a robust loss's scale within 1e-3 to
// 1e3 sigmas, relative changes below 1 (at 1 or more the first iteration stops the fit).
std::optional<SettingProblem> check_weights_and_stopping(const IdentificationOptions& o) {
  std::optional<SettingProblem> bad;
  for (int c = 0; c < 6 && !bad; ++c)
    bad = c < 3 ? in_range("noise_sigma.position", o.sigma(c), kMinNoiseSigma, false, defaults::kMaxCameraNoisePosition,
                           false, "a camera noise (m)")
                : in_range("noise_sigma.angle", o.sigma(c), kMinNoiseSigma, false, defaults::kMaxCameraNoiseAngle, false,
                           "a camera noise (rad)");
  if (!bad) bad = in_range("loss.scale", o.loss_scale, kMinLossScale, false, kMaxLossScale, false, "a scale (in sigmas)");
  if (!bad) bad = in_range("stopping.tol1", o.tol1, 0, true, 1, true, "a relative cost change");
  if (!bad) bad = in_range("stopping.stage_tol1", o.stage_tol1, 0, true, 1, true, "a relative cost change");
  if (!bad) bad = in_range("stopping.tol2", o.tol2, 0, true, 1, true, "a relative parameter change");
  if (!bad && o.max_iterations < 1)
    bad = SettingProblem{"stopping.max_iterations", "expected at least 1 iteration, got " + std::to_string(o.max_iterations)};
  return bad;
}

// 0 (no prior) or a width a prior can have: below 1e-3 it pins every parameter at its start (fix
// them instead), above 100 (a factor e^100 per sigma) it is no prior (write 0).
std::optional<SettingProblem> check_prior(double width) {
  if (width == 0) return std::nullopt;
  const std::optional<SettingProblem> bad =
      in_range("prior_log_sigma", width, kMinPriorLogSigma, false, kMaxPriorLogSigma, false, "a width of log(value / start)");
  if (!bad) return bad;
  return SettingProblem{bad->key, "expected 0 (no prior) or " + bad->message.substr(std::string("expected ").size())};
}

std::optional<SettingProblem> check_horizons(const std::vector<double>& h) {
  std::ostringstream list;
  for (std::size_t i = 0; i < h.size(); ++i) list << (i ? ", " : "[") << exact_number(h[i]);
  const std::string given = h.empty() ? "[]" : list.str() + "]";
  if (h.empty() || h.back() != 1.0)
    return SettingProblem{"horizons", "expected increasing fractions in (0, 1] ending with 1 (the whole record), got " + given};
  for (std::size_t i = 0; i < h.size(); ++i)
    if (!(h[i] > 0 && h[i] <= 1) || (i > 0 && !(h[i] > h[i - 1])))
      return SettingProblem{"horizons", "expected increasing fractions in (0, 1] ending with 1, got " + given};
  return std::nullopt;
}

std::optional<SettingProblem> check_anchor(const Anchor& a) {
  if (a.kind != AnchorKind::KnownParameter) return std::nullopt;
  if (a.parameter < 0 || a.parameter >= sim::kNumLambda)
    return SettingProblem{"anchor.parameter", "expected a registry index in [0, " + std::to_string(sim::kNumLambda) +
                                                 "), got " + std::to_string(a.parameter)};
  const auto k = sim::parameter_registry()[static_cast<std::size_t>(a.parameter)].kind;
  if (k != sim::ParameterKind::Mass && k != sim::ParameterKind::GainP && k != sim::ParameterKind::GainI &&
      k != sim::ParameterKind::GainD)
    return SettingProblem{"anchor.parameter", "expected a mass or a joint PID gain as the anchor, got " +
                                                 sim::parameter_registry()[static_cast<std::size_t>(a.parameter)].name};
  return positive("anchor.value", a.value, "a positive known value (SI)");
}

std::optional<SettingProblem> check_start(const StartOptions& s) {
  std::optional<SettingProblem> bad = in_range("start.horizon", s.horizon, 0, false, 1, false, "a share of the record (0: the first horizon)");
  if (!bad) bad = in_range("start.range", s.range, 1, true, 100, false, "the largest factor searched");
  if (!bad && !(s.points >= 1 && s.points <= 20))
    bad = SettingProblem{"start.points", "expected 1 to 20 grid points per side, got " + std::to_string(s.points)};
  if (!bad && !(s.sweeps >= 0 && s.sweeps <= 10))
    bad = SettingProblem{"start.sweeps", "expected 0 to 10 sweeps, got " + std::to_string(s.sweeps)};
  if (!bad) bad = in_range("start.check_above_noise", s.check_above_noise, 0, false, kMaxCheckAboveNoise, false,
                           "camera sigmas (0: always; start.check: false for never)");
  if (!bad) bad = in_range("start.stuck_share", s.stuck_share, 0, true, 1, false, "a share");
  return bad;
}

}  // namespace

// The checks in the order of the settings file (docs/identification.md); the first failing
// one is reported.
std::optional<SettingProblem> IdentificationOptions::problem() const {
  if (spec.size() != static_cast<std::size_t>(sim::kNumLambda))
    return SettingProblem{"spec", "expected one entry per Lambda parameter (" + std::to_string(sim::kNumLambda) +
                                     "), got " + std::to_string(spec.size())};
  std::optional<SettingProblem> bad = check_anchor(anchor);
  if (!bad) bad = check_weights_and_stopping(*this);
  if (!bad) bad = check_horizons(horizons);
  if (!bad) bad = check_prior(prior_log_sigma);
  // Ceres' own limits of the radius (its default min_trust_region_radius and max_trust_region_radius).
  if (!bad) bad = in_range("initial_trust_region", initial_trust_region, kMinTrustRegion, false, kMaxTrustRegion, false,
                           "a radius (1 / initial damping)");
  if (!bad) bad = in_range("min_relative_decrease", min_relative_decrease, 0, true, 1, true, "a share");
  if (!bad) bad = in_range("rank_tolerance", rank_tolerance, 0, true, 1, true, "a singular value ratio");
  if (!bad) bad = in_range("rel_sigma_flag", rel_sigma_flag, 0, true, kMaxRelSigmaFlag, false, "a relative standard deviation");
  if (!bad) bad = in_range("uncertainty_block", uncertainty_block, 0, true, 60, true, "a block length in seconds");
  if (!bad) bad = in_range("qr_eps", qr_eps, 0, true, 1, true, "a pivot ratio");
  if (!bad) bad = check_start(start);
  // As the virtual rig's bound (hw::VirtualRig); the experiments' own bounds: check_identification_inputs.
  if (!bad) bad = in_range("latency.offset", latency.offset, -0.05, false, 0.05, false, "a latency offset (s)");
  if (!bad && !(latency.starts >= 1 && latency.starts <= 50))
    bad = SettingProblem{"latency.starts", "expected 1 to 50 starts of the latency offset, got " + std::to_string(latency.starts)};
  if (!bad) bad = in_range("latency.starts_above_noise", latency.starts_above_noise, 0, false, 1e3, false,
                           "camera sigmas (0: the starts always)");
  if (!bad && !(latency.start_iterations >= 0 && latency.start_iterations <= 1000))
    bad = SettingProblem{"latency.start_iterations", "expected 0 (the stage's own rule) to 1000 iterations per start, got " +
                                                         std::to_string(latency.start_iterations)};
  if (!bad && !(threads >= 1 && threads <= kMaxIdentificationThreads))
    bad = SettingProblem{"threads", "expected 1 to " + std::to_string(kMaxIdentificationThreads) + " threads, got " +
                                       std::to_string(threads)};
  return bad;
}

void IdentificationOptions::validate(const std::string& where) const {
  if (const auto bad = problem()) fail(where + " '" + bad->key + "'", bad->message);
}

}  // namespace vcloe::oe_ident
