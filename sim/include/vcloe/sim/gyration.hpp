#pragma once
// vcloe/sim/gyration.hpp — how large a body's moments may be for its mass and size: the one bound
// of both the robot file's reader (sim::load_robot refuses a body outside it: grams typed as kg)
// and identify's consistent model (oe_ident::make_consistent keeps every body inside it).
#include "vcloe/sim/robot.hpp"

namespace vcloe::sim {

// A body's radius of gyration sqrt(I_max / m) against its span (the platform joints' circle, the
// crank's or the link's length): from kMinGyrationPerSpan to kMaxGyrationPerSpan times the span.
inline constexpr double kMinGyrationPerSpan = 1.0 / 50, kMaxGyrationPerSpan = 3;

// The span of the body whose mass is Lambda entry `first` (platform_index(0), wrench_index(i, 0)
// or link_index(i, 0)) on this robot's geometry, m.
double body_span(const RobotModel& model, int first);

}  // namespace vcloe::sim
