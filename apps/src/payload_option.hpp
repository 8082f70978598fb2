#pragma once
// A known payload bolted to the platform as command-line options (`vcloe run`, `robot serve`,
// `rig run`): --payload-mass and --payload-inertia, both or neither.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "vcloe/oe_ident/payload.hpp"

namespace vcloe::app {

struct PayloadOption {
  double mass = 0;
  std::vector<double> inertia;
  const CLI::Option* mass_option = nullptr;
  const CLI::Option* inertia_option = nullptr;
};
void add_payload_options(CLI::App* cmd, PayloadOption& option);
// The payload given, or none; a vcloe::Error naming the option if only one is given or the
// values are not a physical body.
std::optional<oe_ident::Payload> payload_from(const PayloadOption& option);

}  // namespace vcloe::app
