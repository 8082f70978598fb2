#pragma once
// vcloe/servo/timing.hpp — the sampled-data timing of the visual-servo loop and the
// experiment configuration (docs/design.md §5), in vcloe::servo. The types and the experiment
// file's reader are core's (core/experiment_file.hpp: the one trace reader checks a sidecar's
// copies of the timing by the same rules).
#include "vcloe/core/experiment_file.hpp"

namespace vcloe::servo {

using vcloe::ExperimentConfig;
using vcloe::kMaxStepsPerSecond;
using vcloe::load_experiment;
using vcloe::LoopTiming;
using vcloe::OuterGains;
using vcloe::parse_experiment;

// RK4 substeps measured converged (docs/virtual-robot.md, "Convergence of the two engines").
inline constexpr int kConvergedSubsteps = 4;

}  // namespace vcloe::servo
