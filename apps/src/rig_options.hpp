#pragma once
// The live rig's shared command-line options (`robot serve`, `vision serve`, `control`, `rig
// run`): the stream endpoints and the safety timeouts; what they mean is rig/common.hpp.
#include <CLI/CLI.hpp>
#include <string>

#include "vcloe/rig/common.hpp"

namespace vcloe::app {

// Adds --camera-stream/--poses/--commands/--status for the streams named in `which` ("cpks").
void add_endpoint_options(CLI::App* cmd, rig::RigEndpoints& endpoints, const std::string& which);
void add_timeout_options(CLI::App* cmd, rig::TimeoutOptions& t);
// --keys DIR and --plain-tcp (bridge/security.hpp); add_endpoint_options adds them too.
void add_key_options(CLI::App* cmd, rig::RigEndpoints& e);

}  // namespace vcloe::app
