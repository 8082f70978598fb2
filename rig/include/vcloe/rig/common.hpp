#pragma once
// What the rig's three processes (`vcloe robot serve`, `vision serve`, `control`) and their
// launcher (`vcloe rig run`) share: the endpoints of the four streams, the two clocks, the
// safety timeouts, and the start handshake's pacing (docs/protocol.md, "Processes"). Their
// command-line options are declared in apps/src/rig_options.hpp.
#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "vcloe/core/subprocess.hpp"
#include "vcloe/bridge/safety.hpp"
#include "vcloe/bridge/transport.hpp"
#include "vcloe/core/settings.hpp"

namespace vcloe::rig {

// Each stream is bound by the process that publishes it.
struct RigEndpoints {
  std::string camera = "ipc:///tmp/vcloe-camera";      // robot -> vision: true poses (virtual camera only)
  std::string poses = "ipc:///tmp/vcloe-poses";        // vision -> control, robot, recorders
  std::string commands = "ipc:///tmp/vcloe-commands";  // control -> robot: commands and heartbeats
  std::string status = "ipc:///tmp/vcloe-status";      // robot -> control, vision
  std::string keys;        // --keys DIR: the rig's CURVE keys (`vcloe rig keys`); "": none
  bool plain_tcp = false;  // --plain-tcp: bind a tcp endpoint other hosts reach without keys
};

// What one role's sockets run with (bridge/security.hpp): with --keys, its own key pair, the
// publishers' public keys, and an allow-list of the roles that subscribe to its streams (robot:
// control and vision; vision: control and robot; control: robot), answered by one Authenticator
// per context. Declare it right after the role's ZeroMQ context.
class RoleSecurity {
 public:
  RoleSecurity(zmq::context_t& context, const RigEndpoints& endpoints, const std::string& role);
  bridge::Security publisher() const;
  bridge::Security subscriber(const std::string& publisher_role) const;
  std::uint64_t refused() const { return zap_ ? zap_->refused() : 0; }  // keys refused by the allow-list

 private:
  std::optional<bridge::RoleKeys> keys_;
  bool plain_tcp_ = false;
  std::unique_ptr<bridge::Authenticator> zap_;
};
// What is wrong with a ZeroMQ endpoint ("" if nothing), before ZeroMQ fails with an errno text
// (or waits for ever): ipc://PATH — at most 107 bytes (sockaddr_un), not ending in '/', in a
// directory that exists, where nothing other than a socket is (ZeroMQ's bind deletes whatever
// is there; a socket left by an earlier run is reused) — or tcp://HOST:PORT with a port in
// 1..65535, for a dotted address octets up to 255, no IPv6 literal (vcloe's sockets run IPv4)
// and, when `connected` (this process connects to it), no bind-only wildcard (`*`, 0.0.0.0) and
// a host name that resolves; when `bound` (a socket is bound to it), no host name but an
// interface's (ZeroMQ binds an address, `*` or an interface). Neither: the form alone (an option's
// own check, before which process binds it is known).
// The one check of every endpoint option, of every role and of `rig run` before its roles start.
std::string endpoint_problem(const std::string& endpoint, bool connected = false, bool bound = false);
// Before any socket is bound: every endpoint of the streams in `which` ("cpks") checked (the
// defaults too; those in `connects` as connected to, the others — or, when given, those in
// `binds` — as bound), and no two the same endpoint (ipc paths as files, tcp by host and port).
std::optional<SettingProblem> endpoints_problem(const RigEndpoints& endpoints, const std::string& which,
                                                const std::string& connects, const std::string& binds = "");
// The streams in `bound` ("cpks") as bound: one other hosts reach (tcp, not the loopback) needs
// keys or --plain-tcp (bridge::Publisher's rule), and --plain-tcp needs such a stream (else it
// has no effect). Part of endpoints_problem (the streams it does not connect to); `rig run`,
// whose roles bind every stream, asks it for all four.
std::optional<SettingProblem> open_tcp_problem(const RigEndpoints& endpoints, const std::string& bound);
void check_endpoints(const RigEndpoints& endpoints, const std::string& which, const std::string& connects,
                     const std::string& binds = "");
// The endpoints under a directory (ipc) or on free local TCP ports.
RigEndpoints ipc_endpoints(const std::string& directory);
RigEndpoints tcp_endpoints();

enum class RigClock { Lockstep, Realtime };
RigClock parse_clock(const std::string& name);  // "lockstep" | "realtime"
bridge::HelloClock hello_clock(RigClock clock);   // as stated in a hello

// Every timeout option of the rig: `seconds` in [least, most] s, or 0 when `zero` says what 0
// means ("0 (the clock's default)"; empty: 0 is refused). `least` is the shortest the stream can
// keep, said as `least_is` ("one camera period (0.01 s at 100 Hz in exp.yaml)"): a shorter
// timeout would trip on every run.
// timeout_problem: the problem (core/settings.hpp), keyed by `option`; rig_times_problem's part.
std::optional<SettingProblem> timeout_problem(const std::string& option, double seconds, double least,
                                              const std::string& least_is, double most, const std::string& zero = "");
// "one camera period (0.01 s at 100 Hz in FILE)": the least of a timeout on a stream sent once a frame.
std::string one_camera_period(double camera_period, const std::string& experiment_file);

// A role's refusal at its start timeout, the one wording for the three: "<what> within S s
// (--start-timeout)", and when peers were refused for their keys meanwhile, how many (a peer
// without the rig's key looks like no peer at all: docs/protocol.md, "Keys"), and when frames
// were dropped as malformed on the stream waited on (`awaited`), how many and why the latest
// (a peer's hello with a bad field is not "no hello": probe 34, C).
std::string start_timeout_message(const std::string& what, double start_timeout, std::uint64_t refused_peers,
                                  const bridge::Subscriber* awaited = nullptr);
// "; N malformed frame(s) were dropped on it meanwhile (the latest: …)", or "" if none (or no
// stream): the one wording of a wait that heard only frames it could not use (roles, rig listen).
std::string dropped_meanwhile(const bridge::Subscriber* stream);

// Every time option of the rig — `rig run`'s and each role's — checked in ONE place
// (rig_times_problem), each against the least it can keep at the experiment's camera rate, said
// with why; a process fills in the ones it takes (std::nullopt: not an option of it):
// - start: each process waits this long for the others and (control, vision) for the run to
//   begin. The least, least_start_timeout: the handshake's chain of hellos (the robot's, vision's
//   answer, control's; each sent within one handshake period, kHandshakePeriod, of hearing the one
//   before: 3 periods) plus one camera period (the first status of the run) plus the move to the
//   start (`move_s`: rig run and robot serve with --stand-at, at --move-speed), which control and
//   vision wait through. In [least, 3600] s.
// - pose, heartbeat (TimeoutOptions), robot, vision_robot: a stream sent once a camera period is
//   silent this long: in [one camera period, 60 or 3600] s, 0 the clock's default where it has one.
// - hold: in [0, 3600] s.
struct RigTimes {
  RigTimes(std::optional<double> start_ = {}, std::optional<double> pose_ = {}, std::optional<double> heartbeat_ = {},
           std::optional<double> robot_ = {}, std::optional<double> vision_robot_ = {}, std::optional<double> hold_ = {})
      : start(start_), pose(pose_), heartbeat(heartbeat_), robot(robot_), vision_robot(vision_robot_), hold(hold_) {}
  std::optional<double> start, pose, heartbeat, robot, vision_robot, hold;
  double move_s = 0;
  std::string vision_robot_option = "--vision-robot-timeout";  // vision serve's own: "--robot-timeout"
};
inline constexpr int kHandshakeHellos = 3;  // robot -> vision -> control, each answering the one before
double least_start_timeout(double camera_period, double move_s = 0);
std::optional<SettingProblem> rig_times_problem(const RigTimes& t, double camera_period,
                                                const std::string& experiment_file);

// The timeouts as options. 0 = the clock's default: realtime 2 camera periods (pose and
// controller); lockstep 2 s each (nothing is paced there: they only find a process that died).
struct TimeoutOptions {
  double pose = 0, heartbeat = 0;  // each 0 (the default) or in [one camera period, 60] s: rig_times_problem
};
bridge::SafetyLimits safety_limits(const TimeoutOptions& t, RigClock clock, double camera_period);

// The stop signals (SIGINT, SIGTERM, SIGHUP: core/subprocess.hpp, kStopSignals) caught
// (installed by each rig process): interrupting_signal() is the signal received, 0 if none; each
// process stops in its own controlled way when it is set (signal_name names it).
void catch_interrupts();
int interrupting_signal();
// "" or, when `stream` received a CRC-checked frame of another schema version (a half-upgraded
// peer), "<peer> on <endpoint> speaks schema version N; this <role> speaks version 1".
std::string version_problem(const bridge::Subscriber& stream, const std::string& peer, const std::string& endpoint,
                            const std::string& role);

// Steady-clock time in s (the clock of every header, as double).
inline double now_s() { return static_cast<double>(bridge::steady_now_ns()) * 1e-9; }
// How often the handshake's heartbeats and a waiting process's status are sent (s).
inline constexpr double kHandshakePeriod = 0.005;

// Converts a duration in s to the poll timeout type.
inline std::chrono::microseconds micros(double seconds) {
  return std::chrono::microseconds(static_cast<std::int64_t>(std::max(seconds, 0.0) * 1e6));
}

}  // namespace vcloe::rig
