// oe_ident/src/problem.cpp — the small pieces of problem.hpp around identify(): the anchor's
// description, the default specification, the per-axis RMS of an experiment and the checks of
// identify()'s inputs.
#include "vcloe/oe_ident/problem.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/oe_ident/payload.hpp"
#include "vcloe/servo/twin.hpp"
#include "vcloe/oe_ident/plausible.hpp"

namespace vcloe::oe_ident {

namespace {

// The measured poses against the exposures they measured (Experiment::frames).
void check_frames(const Experiment& e) {
  const std::size_t exposures = e.reference.exposure_times.size();
  if (e.frames.empty()) {
    if (e.measured.size() != exposures)
      fail(e.name, "measured trace has " + std::to_string(e.measured.size()) + " poses but the experiment exposes " +
                       std::to_string(exposures) + " frames");
    return;
  }
  if (e.frames.size() != e.measured.size())
    fail(e.name, "names the exposures of " + std::to_string(e.frames.size()) + " poses for " +
                     std::to_string(e.measured.size()) + " measured poses");
  for (std::size_t j = 0; j < e.frames.size(); ++j)
    if (e.frames[j] >= exposures || (j > 0 && e.frames[j] <= e.frames[j - 1]))
      fail(e.name, "measured pose " + std::to_string(j) + " names exposure " + std::to_string(e.frames[j]) +
                       ": expected increasing exposures below " + std::to_string(exposures));
}

void check_experiments(const std::vector<Experiment>& exps, const Anchor& anchor) {
  if (exps.empty()) fail("identify", "no experiment given");
  int with = 0, without = 0;
  for (const Experiment& e : exps) {
    check_frames(e);
    for (std::size_t j = 0; j < e.measured.size(); ++j)
      if (!e.measured[j].allFinite()) fail(e.name, "non-finite measured pose at frame " + std::to_string(j));
    if (e.payload) make_payload(e.payload->mass, e.payload->inertia, e.name + " (payload)");
    (e.payload ? with : without)++;
  }
  if (anchor.kind == AnchorKind::None)
    fail("identify",
         "no scale anchor: pose data alone cannot fix the scale (multiplying every inertia, mass, friction "
         "coefficient and the three joint PID gains by one factor leaves every pose trace unchanged, "
         "Li et al. 2019 eq. 32). Give a known mass (anchor: {parameter: m_p, value: ...}), a known gain, "
         "or a second experiment with a known payload");
  if (anchor.kind == AnchorKind::Payload && (with == 0 || without == 0))
    fail("identify", "a payload anchor needs one experiment with the known payload and one without");
}

void check_latency(const std::vector<Experiment>& exps, const LatencyOptions& l) {
  const LatencyBounds b = latency_bounds(exps);
  const std::string where = l.source.empty() ? "identification option 'latency.offset'" : l.source;
  if (l.fit && !(b.low <= l.offset && l.offset <= b.high))
    fail(where, "expected a start within the fitted offset's bounds [" + exact_number(b.low) + ", " +
                    exact_number(b.high) +
                    "] s (half a camera period, and no earlier than minus the configured latency), got " +
                    exact_number(l.offset) + " s; latency.fit: false holds it at any causal value");
  if (!l.fit && !(l.offset >= -b.latency))
    fail(where, "expected at least -" + exact_number(b.latency) + " s (a frame is read before it arrives: " +
                    "the configured latency), got " + exact_number(l.offset) + " s");
}

}  // namespace

LatencyBounds latency_bounds(const std::vector<Experiment>& exps) {
  LatencyBounds b{-INFINITY, INFINITY, INFINITY};
  for (const Experiment& e : exps) {
    const servo::LoopTiming& t = e.reference.clock.timing;
    b.latency = std::min(b.latency, t.latency);
    b.high = std::min(b.high, 0.5 * t.camera_period());
    b.low = std::max(b.low, -std::min(0.5 * t.camera_period(), t.latency));
  }
  return b;
}

std::string implausible_for_robot(const sim::LambdaVector<double>& lambda, const std::string& robot_file,
                                  const std::optional<Payload>& payload, const std::string& payload_from,
                                  const Anchor& anchor, const std::string& anchor_from) {
  const double platform = lambda(sim::platform_index(0));
  auto three = [](double x) {  // derived figures to 3 significant digits (the typed ones exact)
    if (std::abs(x) >= 100 && std::abs(x) < 1e9) return std::to_string(std::llround(x));
    std::ostringstream s;
    s << std::setprecision(3) << x;
    return s.str();
  };
  if (payload && !(payload->mass <= kPayloadPerPlatform * platform))
    return payload_from + ": payload mass " + exact_number(payload->mass) + " kg is " +
           three(payload->mass / platform) + " times the platform's " + exact_number(platform) + " kg (" +
           robot_file + "): expected a load in kg this robot carries, 0.001 to " +
           three(kPayloadPerPlatform * platform) + " kg (" + exact_number(kPayloadPerPlatform) +
           " times the platform's mass; a mass in grams?)";
  if (anchor.kind != AnchorKind::KnownParameter) return "";
  const sim::ParameterInfo& p = sim::parameter_registry()[static_cast<std::size_t>(anchor.parameter)];
  const double prior = lambda(anchor.parameter), ratio = anchor.value / prior;
  if (ratio >= 1 / kAnchorPerPrior && ratio <= kAnchorPerPrior) return "";
  return anchor_from + ": key 'anchor.value': " + p.name + " " + exact_number(anchor.value) + " " + p.unit + " is " +
         three(ratio) + " times its prior " + exact_number(prior) + " " + p.unit + " (" + robot_file +
         "): expected the known value in " + p.unit + ", " + three(prior / kAnchorPerPrior) + " to " +
         three(prior * kAnchorPerPrior) + " " + p.unit + " (within a factor " + exact_number(kAnchorPerPrior) +
         " of the prior; " + (ratio > 1 ? "grams typed as kg?)" : "kg typed as tonnes?)");
}

void check_identification_inputs(const std::vector<Experiment>& exps, const IdentificationOptions& o) {
  o.validate();
  check_experiments(exps, o.anchor);
  check_latency(exps, o.latency);
  for (int k = 0; k < sim::kNumLambda; ++k)
    if (o.spec[static_cast<std::size_t>(k)].mode != Mode::Fixed &&
        !(o.anchor.kind == AnchorKind::KnownParameter && o.anchor.parameter == k))
      return;
  fail("identify", "no free parameter left to identify (every one is fixed or the anchor)");
}

std::string LatencyResult::fitted_status(double value, double low, double high) {
  const double margin = 1e-3 * (high - low);
  return value - low < margin || high - value < margin
             ? "fitted, at its bound (the true offset may lie beyond: check the experiment file's latency)"
             : "fitted";
}

std::string Anchor::describe() const {
  switch (kind) {
    case AnchorKind::None:
      return "none";
    case AnchorKind::KnownParameter:
      return "known " + sim::parameter_registry()[parameter].name + " = " + exact_number(value) + " " +
             sim::parameter_registry()[parameter].unit;
    case AnchorKind::Payload:
      return "payload experiment";
  }
  return "?";
}

std::array<double, 6> rms_error(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                                const servo::OuterGains& gains, const Experiment& e, const std::string& where,
                                double latency_offset) {
  const auto r = servo::simulate_twin<double>(model, with_payload(lambda, e.payload), e.reference, gains, latency_offset);
  if (!r.ok) fail(e.name, "the twin cannot run " + where + ": " + r.failure);
  std::array<double, 6> out{};
  for (std::size_t j = 0; j < e.measured.size(); ++j) {
    const Vec6d d = measured_minus_twin(e.measured[j], r.measured[e.exposure(j)]);
    for (int c = 0; c < 6; ++c) out[c] += std::pow(d(c), 2);
  }
  for (int c = 0; c < 6; ++c) out[c] = std::sqrt(out[c] / static_cast<double>(e.measured.size())) * 1e3;
  return out;
}

Experiment prefix_of(const Experiment& e, double horizon) {
  Experiment p = e;
  const std::size_t exposures = e.reference.exposure_times.size();
  auto n = static_cast<std::size_t>(std::ceil(horizon * static_cast<double>(exposures)));
  if (!e.measured.empty()) n = std::max(n, e.exposure(0) + 1);  // at least one measured pose
  p.reference = servo::truncate_reference(e.reference, n);
  const std::size_t kept = p.reference.exposure_times.size();
  std::size_t j = 0;
  while (j < e.measured.size() && e.exposure(j) < kept) ++j;
  p.measured.resize(j);
  if (!p.frames.empty()) p.frames.resize(j);
  return p;
}

std::vector<ParameterSpec> default_specification() {
  std::vector<ParameterSpec> spec(sim::kNumLambda);
  for (int i = 0; i < sim::kLegs; ++i) {
    spec[sim::wrench_index(i, 0)].mode = Mode::Fixed;
    spec[sim::link_index(i, 0)].mode = Mode::Fixed;
    spec[sim::link_index(i, 1)] = {Mode::Tied, 100 + i};
    spec[sim::link_index(i, 2)] = {Mode::Tied, 100 + i};
  }
  return spec;
}

}  // namespace vcloe::oe_ident
