// oe_ident/src/problem.cpp — the small pieces of problem.hpp around identify(): the anchor's
// description, the default specification and the per-axis RMS of an experiment.
#include "vcloe/oe_ident/problem.hpp"

#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/servo/twin.hpp"

namespace vcloe::oe_ident {

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
                                const servo::OuterGains& gains, const Experiment& e, const std::string& where) {
  const auto r = servo::simulate_twin<double>(model, with_payload(lambda, e.payload), e.reference, gains);
  if (!r.ok) fail(e.name, "the twin cannot run " + where + ": " + r.failure);
  std::array<double, 6> out{};
  for (std::size_t j = 0; j < r.true_pose.size(); ++j)
    for (int c = 0; c < 6; ++c) out[c] += std::pow(e.measured[j](c) - r.true_pose[j](c), 2);
  for (int c = 0; c < 6; ++c) out[c] = std::sqrt(out[c] / static_cast<double>(r.true_pose.size())) * 1e3;
  return out;
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
