// vcloe/oe_ident/plausible.hpp — the masses a user types for a robot (a payload, the scale
// anchor's known value) held against that robot before any work: units typed wrong (grams as kg)
// refused by name rather than blamed on the priors or the drives after a fit or a run fails.
#pragma once

#include <optional>
#include <string>

#include "vcloe/oe_ident/problem.hpp"

namespace vcloe::oe_ident {

// The one plausibility check of the masses a user types for a robot (a payload, a known parameter
// as the scale anchor) against that robot's priors `lambda` (of `robot_file`), before any work,
// whatever command takes them (run, control, robot serve, rig run, identify); the bodies of
// robot and truth files are bounded where they are read (sim::load_robot: a radius of gyration
// plausible for the body's size). A payload at most kPayloadPerPlatform times the platform's
// mass (a load in grams typed as kg is 1000 times what it means); a known parameter within a
// factor kAnchorPerPrior of its prior. "" if plausible, else "<from>: <key> <value> <unit> is …,
// expected … to … <unit> (…)". `payload_from`/`anchor_from` name where each came from.
inline constexpr double kPayloadPerPlatform = 10, kAnchorPerPrior = 10;
std::string implausible_for_robot(const sim::LambdaVector<double>& lambda, const std::string& robot_file,
                                  const std::optional<Payload>& payload, const std::string& payload_from,
                                  const Anchor& anchor = {}, const std::string& anchor_from = "");

}  // namespace vcloe::oe_ident
