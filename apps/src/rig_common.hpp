#pragma once
// What the rig's three processes (`vcloe robot serve`, `vision serve`, `control`) and their
// launcher (`vcloe rig run`) share: the endpoints of the four streams, the two clocks, the
// safety timeouts as options, and the start handshake's pacing (docs/protocol.md, "Processes").
#include <CLI/CLI.hpp>
#include <chrono>
#include <string>

#include "vcloe/bridge/safety.hpp"
#include "vcloe/bridge/transport.hpp"

namespace vcloe::app {

// Each stream is bound by the process that publishes it.
struct RigEndpoints {
  std::string camera = "ipc:///tmp/vcloe-camera";      // robot -> vision: true poses (virtual camera only)
  std::string poses = "ipc:///tmp/vcloe-poses";        // vision -> control, robot, recorders
  std::string commands = "ipc:///tmp/vcloe-commands";  // control -> robot: commands and heartbeats
  std::string status = "ipc:///tmp/vcloe-status";      // robot -> control, vision
};
// Adds --camera-stream/--poses/--commands/--status for the streams named in `which` ("cpks").
void add_endpoint_options(CLI::App* cmd, RigEndpoints& endpoints, const std::string& which);
// What is wrong with a ZeroMQ endpoint ("" if nothing): ipc://PATH, or tcp://HOST:PORT with a
// port in 1..65535 and, for a dotted address, octets up to 255 (ZeroMQ only fails later, or
// waits for ever). A CLI11 check on every endpoint option.
std::string endpoint_problem(const std::string& endpoint);
// The endpoints under a directory (ipc) or on free local TCP ports.
RigEndpoints ipc_endpoints(const std::string& directory);
RigEndpoints tcp_endpoints();

enum class RigClock { Lockstep, Realtime };
RigClock parse_clock(const std::string& name);  // "lockstep" | "realtime"

// The timeouts as options. 0 = the clock's default: realtime 2 camera periods (pose) and 5
// (controller); lockstep 2 s each (nothing is paced there: they only find a process that died).
struct TimeoutOptions {
  double pose = 0, heartbeat = 0;
  void validate() const;  // each 0 (the default) or in (0, 60] s, as bridge::SafetyLimits
};
void add_timeout_options(CLI::App* cmd, TimeoutOptions& t);
bridge::SafetyLimits safety_limits(const TimeoutOptions& t, RigClock clock, double camera_period);

// Steady-clock time in s (the clock of every header, as double).
inline double now_s() { return static_cast<double>(bridge::steady_now_ns()) * 1e-9; }
// How often the handshake's heartbeats and a waiting process's status are sent (s).
inline constexpr double kHandshakePeriod = 0.005;

// Converts a duration in s to the poll timeout type.
inline std::chrono::microseconds micros(double seconds) {
  return std::chrono::microseconds(static_cast<std::int64_t>(std::max(seconds, 0.0) * 1e6));
}

}  // namespace vcloe::app
