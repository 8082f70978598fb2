#include "vcloe/rig/common.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <net/if.h>
#include <netdb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <utility>
#include <vector>

#include "vcloe/core/error.hpp"
#include "vcloe/core/subprocess.hpp"

namespace vcloe::rig {

namespace {

// An ipc PATH ZeroMQ can bind and connect: sun_path holds 107 bytes and the terminating NUL.
std::string ipc_path_problem(const std::string& endpoint, const std::string& path) {
  constexpr std::size_t kMaxSocketPath = sizeof(sockaddr_un::sun_path) - 1;
  if (path.size() > kMaxSocketPath)
    return endpoint + ": a socket path of " + std::to_string(path.size()) + " bytes; the system allows " +
           std::to_string(kMaxSocketPath) + " (use a shorter directory)";
  if (path.back() == '/') return endpoint + ": ends in '/'; expected the path of a socket, not a directory";
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
    return endpoint + ": directory " + dir.string() + " does not exist (ZeroMQ makes the socket, not its directory)";
  return "";
}

}  // namespace

std::string endpoint_problem(const std::string& endpoint, bool connected, bool bound) {
  const std::string expected = "expected ipc://PATH or tcp://HOST:PORT, got '" + endpoint + "'";
  if (endpoint.rfind("ipc://", 0) == 0) {
    if (endpoint.size() <= 6) return expected;
    if (const std::string why = ipc_path_problem(endpoint, endpoint.substr(6)); !why.empty()) return why;
    struct stat st{};
    if (lstat(endpoint.c_str() + 6, &st) == 0 && !S_ISSOCK(st.st_mode))
      return endpoint + ": the path exists and is not a socket; ZeroMQ would delete it";
    return "";
  }
  if (endpoint.rfind("tcp://", 0) != 0) return expected;
  const std::string hostport = endpoint.substr(6);
  const auto colon = hostport.rfind(':');
  if (colon == std::string::npos || colon == 0) return expected;
  const std::string host = hostport.substr(0, colon), port = hostport.substr(colon + 1);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(port) < 1 || std::stoi(port) > 65535)
    return "port '" + port + "' of " + endpoint + ": expected 1 to 65535";
  if (host.front() == '[')
    return "address '" + host + "' of " + endpoint + ": an IPv6 address; vcloe's sockets run IPv4 (an IPv4 address or a host name)";
  if (connected && (host == "*" || host == "0.0.0.0"))
    return "host '" + host + "' of " + endpoint + ": every interface, which a socket can be bound to but not connect to; "
           "give the host to reach (tcp://127.0.0.1:" + port + " on this machine)";
  if (host.find_first_not_of("0123456789.") == std::string::npos) {  // a dotted IPv4 address
    std::size_t start = 0, parts = 0;
    for (std::size_t dot = 0; dot != std::string::npos; start = dot + 1, ++parts) {
      dot = host.find('.', start);
      const std::string octet = host.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (octet.empty() || octet.size() > 3 || std::stoi(octet) > 255)
        return "address '" + host + "' of " + endpoint + ": expected four numbers 0 to 255";
    }
    if (parts != 4) return "address '" + host + "' of " + endpoint + ": expected four numbers 0 to 255";
  } else if (bound && host != "*" && ::if_nametoindex(host.c_str()) == 0) {
    // ZeroMQ binds an address, * or an interface's name, never a host name: "cannot bind: No such
    // device" after the roles started (probe 32, h13).
    return "host '" + host + "' of " + endpoint + ": a host name, which a socket cannot be bound to (ZeroMQ binds an IPv4 "
           "address, * or an interface such as lo); give an address (tcp://127.0.0.1:" + port + " for this machine only)";
  }
  if (connected && host.find_first_not_of("0123456789.") != std::string::npos && host != "*") {
    // a name ZeroMQ would try to reach for ever in silence (probe 31, L015)
    addrinfo hints{};
    hints.ai_family = AF_INET;
    addrinfo* found = nullptr;
    if (const int e = ::getaddrinfo(host.c_str(), nullptr, &hints, &found); e != 0)
      return "host '" + host + "' of " + endpoint + ": no IPv4 address for this name (" + ::gai_strerror(e) +
             "); give an address or a name this machine resolves";
    ::freeaddrinfo(found);
  }
  return "";
}

namespace {

// One name per place an endpoint reaches: an ipc path made absolute and normal (symbolic links
// resolved where they exist), a tcp port with its host ("local" for this machine's names).
std::string endpoint_identity(const std::string& endpoint) {
  if (endpoint.rfind("ipc://", 0) == 0) {
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(endpoint.substr(6)), ec);
    return "ipc:" + (ec ? std::filesystem::path(endpoint.substr(6)).lexically_normal().string() : p.string());
  }
  const std::string hostport = endpoint.substr(6);
  const auto colon = hostport.rfind(':');
  std::string host = hostport.substr(0, colon);
  std::transform(host.begin(), host.end(), host.begin(), [](unsigned char c) { return std::tolower(c); });
  if (host == "localhost" || host == "127.0.0.1" || host == "*" || host == "0.0.0.0") host = "local";
  return "tcp:" + host + ":" + std::to_string(std::stoi(hostport.substr(colon + 1)));
}

}  // namespace

std::optional<SettingProblem> endpoints_problem(const RigEndpoints& e, const std::string& which,
                                                const std::string& connects, const std::string& binds) {
  auto bad = [](const std::string& key, const std::string& what) { return SettingProblem{key, key + ": " + what}; };
  const std::vector<std::pair<char, std::pair<std::string, const std::string*>>> all = {
      {'c', {"--camera-stream", &e.camera}}, {'p', {"--poses", &e.poses}},
      {'k', {"--commands", &e.commands}},    {'s', {"--status", &e.status}}};
  std::vector<std::pair<std::string, const std::string*>> used;
  for (const auto& [letter, option] : all) {
    if (which.find(letter) == std::string::npos) continue;
    const std::string& endpoint = *option.second;
    const bool connected = connects.find(letter) != std::string::npos;
    const bool bound = binds.empty() ? !connected : binds.find(letter) != std::string::npos;
    if (const std::string why = endpoint_problem(endpoint, connected, bound); !why.empty()) return bad(option.first, why);
    for (const auto& [earlier, other] : used)
      if (endpoint_identity(endpoint) == endpoint_identity(*other))
        return bad(option.first, "the same endpoint as " + earlier + " (" + *other + "); each stream needs its own");
    used.push_back(option);
  }
  std::string bound;
  for (const char letter : which)
    if (connects.find(letter) == std::string::npos) bound += letter;
  return open_tcp_problem(e, bound);
}

std::optional<SettingProblem> open_tcp_problem(const RigEndpoints& e, const std::string& bound) {
  const std::vector<std::pair<char, std::pair<std::string, const std::string*>>> all = {
      {'c', {"--camera-stream", &e.camera}}, {'p', {"--poses", &e.poses}},
      {'k', {"--commands", &e.commands}},    {'s', {"--status", &e.status}}};
  bool reached_by_others = false;
  for (const auto& [letter, option] : all) {
    if (bound.find(letter) == std::string::npos) continue;
    const std::string& endpoint = *option.second;
    if (endpoint.rfind("tcp://", 0) != 0 || bridge::loopback_tcp(endpoint)) continue;
    reached_by_others = true;
    if (e.keys.empty() && !e.plain_tcp)  // the publisher's own rule (bridge::Publisher), before any role starts
      return SettingProblem{option.first, option.first + ": " + endpoint +
                                              ": a tcp endpoint other hosts can reach, without keys: anyone reaching it "
                                              "could read or impersonate the stream; give the rig's keys (--keys DIR) "
                                              "or allow it (--plain-tcp)"};
  }
  if (e.plain_tcp && !reached_by_others)
    return SettingProblem{"--plain-tcp", "--plain-tcp: no endpoint bound here is a tcp endpoint other hosts reach "
                                         "(ipc or the loopback only): it would have no effect"};
  return std::nullopt;
}

void check_endpoints(const RigEndpoints& e, const std::string& which, const std::string& connects, const std::string& binds) {
  throw_if(endpoints_problem(e, which, connects, binds), "");
}

RoleSecurity::RoleSecurity(zmq::context_t& context, const RigEndpoints& e, const std::string& role)
    : plain_tcp_(e.plain_tcp) {
  if (e.keys.empty()) return;
  keys_ = bridge::load_role_keys(e.keys, role);
  std::set<std::string> allowed;
  for (const char* subscriber : role == "robot" ? std::vector<const char*>{"control", "vision"}
                                : role == "vision" ? std::vector<const char*>{"control", "robot"}
                                                   : std::vector<const char*>{"robot"})
    allowed.insert(keys_->public_keys.at(subscriber));
  if (role == "vision" && keys_->public_keys.count(bridge::kListener))  // `rig listen --keys`
    allowed.insert(keys_->public_keys.at(bridge::kListener));
  zap_ = std::make_unique<bridge::Authenticator>(context, allowed);
}

bridge::Security RoleSecurity::publisher() const {
  bridge::Security s;
  s.plain_tcp = plain_tcp_;
  if (keys_) s.own = keys_->own, s.authenticator = zap_.get();
  return s;
}

bridge::Security RoleSecurity::subscriber(const std::string& publisher_role) const {
  bridge::Security s;
  if (keys_) s.own = keys_->own, s.server_key = keys_->public_keys.at(publisher_role);
  return s;
}

RigEndpoints ipc_endpoints(const std::string& dir) {
  return {"ipc://" + dir + "/camera", "ipc://" + dir + "/poses", "ipc://" + dir + "/commands", "ipc://" + dir + "/status", "",
          false};
}

namespace {

// A TCP socket on the loopback bound to a port free now (the kernel's choice for port 0), and
// the port; kept open until every port is found, so no two are the same.
std::pair<int, int> free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) fail("rig", "cannot open a socket to find a free TCP port");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t n = sizeof a;
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n) == 0;
  if (!ok) {
    close(fd);
    fail("rig", "cannot find a free TCP port on 127.0.0.1");
  }
  return {fd, ntohs(a.sin_port)};
}

}  // namespace

RigEndpoints tcp_endpoints() {
  std::vector<std::pair<int, int>> held;
  for (int k = 0; k < 4; ++k) held.push_back(free_port());
  for (const auto& h : held) close(h.first);
  auto at = [&](int k) { return "tcp://127.0.0.1:" + std::to_string(held[static_cast<std::size_t>(k)].second); };
  return {at(0), at(1), at(2), at(3), "", false};
}

RigClock parse_clock(const std::string& name) {
  if (name == "lockstep") return RigClock::Lockstep;
  if (name == "realtime") return RigClock::Realtime;
  fail("--clock", "expected lockstep or realtime, got '" + name + "'");
}

bridge::HelloClock hello_clock(RigClock clock) {
  return clock == RigClock::Realtime ? bridge::HelloClock::Realtime : bridge::HelloClock::Lockstep;
}

std::optional<SettingProblem> timeout_problem(const std::string& option, double seconds, double least,
                                              const std::string& least_is, double most, const std::string& zero) {
  if (!zero.empty() && seconds == 0) return std::nullopt;
  const std::string expected = "expected " + (zero.empty() ? "" : zero + " or ") + "a time in [" +
                               exact_number(least) + ", " + exact_number(most) + "] s";
  auto bad = [&](const std::string& what) { return SettingProblem{option, option + ": " + what}; };
  if (!(seconds > 0 && seconds <= most)) return bad(expected + ", got " + exact_number(seconds));
  if (seconds < least)
    return bad(exact_number(seconds) + " s is shorter than " + least_is + ": it would trip on every run; " + expected);
  return std::nullopt;
}

std::string one_camera_period(double camera_period, const std::string& experiment_file) {
  return "one camera period (" + exact_number(camera_period) + " s at " + exact_number(1.0 / camera_period) +
         " Hz in " + experiment_file + ")";
}

std::string dropped_meanwhile(const bridge::Subscriber* stream) {
  if (!stream || stream->malformed() == 0) return "";
  return "; " + std::to_string(stream->malformed()) + " malformed frame(s) were dropped on it meanwhile (the latest: " +
         bridge::describe(stream->last_error()) + "; docs/protocol.md, \"Frame\" and \"Hello\")";
}

std::string start_timeout_message(const std::string& what, double start_timeout, std::uint64_t refused_peers,
                                  const bridge::Subscriber* awaited) {
  std::string m = what + " within " + exact_number(start_timeout) + " s (--start-timeout)" + dropped_meanwhile(awaited);
  if (refused_peers > 0)
    m += "; " + std::to_string(refused_peers) + (refused_peers == 1 ? " peer was" : " peers were") +
         " refused meanwhile for its keys (not in the rig's allow-list, or none: docs/protocol.md, \"Keys\")";
  return m;
}

double least_start_timeout(double camera_period, double move_s) {
  return kHandshakeHellos * kHandshakePeriod + camera_period + std::max(move_s, 0.0);
}

namespace {
std::optional<SettingProblem> start_timeout_problem(double seconds, double camera_period, double move_s,
                                                    const std::string& experiment_file) {
  const double least = least_start_timeout(camera_period, move_s);
  constexpr double kLongest = 3600;
  // A move to the start longer than any start timeout: the speed is the culprit, not the timeout
  // (session 28's probe, H: `--move-speed 1e-6` was said as --start-timeout's empty range).
  if (least > kLongest && move_s > 0)
    return SettingProblem{"--move-speed", "--move-speed: the move to the start would take " + exact_number(move_s) +
                                              " s, and no start timeout may exceed " + exact_number(kLongest) +
                                              " s: expected a faster --move-speed"};
  std::string why = "the handshake and the run's first status (" + std::to_string(kHandshakeHellos) +
                    " handshake periods of " + exact_number(kHandshakePeriod) +
                    " s, robot -> vision -> control each answering the one before, and " +
                    one_camera_period(camera_period, experiment_file);
  if (move_s > 0) why += ", and the move to the start at --move-speed, " + exact_number(move_s) + " s";
  why += ": " + exact_number(least) + " s), before which no run can begin";
  return timeout_problem("--start-timeout", seconds, least, why, kLongest);
}
}  // namespace

std::optional<SettingProblem> rig_times_problem(const RigTimes& t, double camera_period,
                                                const std::string& experiment_file) {
  const std::string least = one_camera_period(camera_period, experiment_file);
  const std::string clock_default = "0 (the clock's default)";
  if (t.pose)
    if (auto p = timeout_problem("--pose-timeout", *t.pose, camera_period, least, 60, clock_default)) return p;
  if (t.heartbeat)
    if (auto p = timeout_problem("--heartbeat-timeout", *t.heartbeat, camera_period, least, 60, clock_default)) return p;
  if (t.robot)
    if (auto p = timeout_problem("--robot-timeout", *t.robot, camera_period, least, 3600, clock_default)) return p;
  if (t.vision_robot)
    if (auto p = timeout_problem(t.vision_robot_option, *t.vision_robot, camera_period, least, 3600)) return p;
  if (t.start)
    if (auto p = start_timeout_problem(*t.start, camera_period, t.move_s, experiment_file)) return p;
  if (t.hold && !(*t.hold >= 0 && *t.hold <= 3600))
    return SettingProblem{"--hold", "--hold: expected a time in [0, 3600] s, got " + exact_number(*t.hold)};
  return std::nullopt;
}

namespace {
std::atomic<int> g_signal{0};
extern "C" void on_interrupt(int sig) { g_signal = sig; }
}  // namespace

void catch_interrupts() {
  for (const int sig : kStopSignals) std::signal(sig, on_interrupt);
}

int interrupting_signal() { return g_signal.load(); }

std::string version_problem(const bridge::Subscriber& stream, const std::string& peer, const std::string& endpoint,
                            const std::string& role) {
  if (!stream.foreign_version()) return "";
  return peer + " on " + endpoint + " speaks schema version " + std::to_string(*stream.foreign_version()) + "; this " +
         role + " speaks version " + std::to_string(bridge::kSchemaVersion);
}

bridge::SafetyLimits safety_limits(const TimeoutOptions& t, RigClock clock, double camera_period) {
  bridge::SafetyLimits l;
  const bool realtime = clock == RigClock::Realtime;
  l.pose_timeout = t.pose > 0 ? t.pose : realtime ? 2 * camera_period : 2.0;
  l.heartbeat_timeout = t.heartbeat > 0 ? t.heartbeat : realtime ? 2 * camera_period : 2.0;
  l.validate();
  return l;
}

}  // namespace vcloe::rig
