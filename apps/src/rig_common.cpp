#include "rig_common.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "vcloe/core/error.hpp"

namespace vcloe::app {

std::string endpoint_problem(const std::string& endpoint) {
  const std::string expected = "expected ipc://PATH or tcp://HOST:PORT, got '" + endpoint + "'";
  if (endpoint.rfind("ipc://", 0) == 0) return endpoint.size() > 6 ? "" : expected;
  if (endpoint.rfind("tcp://", 0) != 0) return expected;
  const std::string hostport = endpoint.substr(6);
  const auto colon = hostport.rfind(':');
  if (colon == std::string::npos || colon == 0) return expected;
  const std::string host = hostport.substr(0, colon), port = hostport.substr(colon + 1);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(port) < 1 || std::stoi(port) > 65535)
    return "port '" + port + "' of " + endpoint + ": expected 1 to 65535";
  if (host.find_first_not_of("0123456789.") == std::string::npos) {  // a dotted IPv4 address
    std::size_t start = 0, parts = 0;
    for (std::size_t dot = 0; dot != std::string::npos; start = dot + 1, ++parts) {
      dot = host.find('.', start);
      const std::string octet = host.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (octet.empty() || octet.size() > 3 || std::stoi(octet) > 255)
        return "address '" + host + "' of " + endpoint + ": expected four numbers 0 to 255";
    }
    if (parts != 4) return "address '" + host + "' of " + endpoint + ": expected four numbers 0 to 255";
  }
  return "";
}

void add_endpoint_options(CLI::App* cmd, RigEndpoints& e, const std::string& which) {
  const auto check = [](const std::string& s) { return endpoint_problem(s); };
  if (which.find('c') != std::string::npos)
    cmd->add_option("--camera-stream", e.camera, "true poses of the virtual robot, for the virtual camera")
        ->capture_default_str()
        ->check(check);
  if (which.find('p') != std::string::npos)
    cmd->add_option("--poses", e.poses, "the measured pose stream (vision publishes)")->capture_default_str()->check(check);
  if (which.find('k') != std::string::npos)
    cmd->add_option("--commands", e.commands, "the joint commands (control publishes)")->capture_default_str()->check(check);
  if (which.find('s') != std::string::npos)
    cmd->add_option("--status", e.status, "the robot's status (robot publishes)")->capture_default_str()->check(check);
}

RigEndpoints ipc_endpoints(const std::string& dir) {
  return {"ipc://" + dir + "/camera", "ipc://" + dir + "/poses", "ipc://" + dir + "/commands", "ipc://" + dir + "/status"};
}

namespace {

// A TCP port on the loopback that is free now (the kernel's choice for port 0).
int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) fail("rig", "cannot open a socket to find a free TCP port");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t n = sizeof a;
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n) == 0;
  close(fd);
  if (!ok) fail("rig", "cannot find a free TCP port on 127.0.0.1");
  return ntohs(a.sin_port);
}

}  // namespace

RigEndpoints tcp_endpoints() {
  auto at = [](int port) { return "tcp://127.0.0.1:" + std::to_string(port); };
  return {at(free_port()), at(free_port()), at(free_port()), at(free_port())};
}

RigClock parse_clock(const std::string& name) {
  if (name == "lockstep") return RigClock::Lockstep;
  if (name == "realtime") return RigClock::Realtime;
  fail("--clock", "expected lockstep or realtime, got '" + name + "'");
}

void add_timeout_options(CLI::App* cmd, TimeoutOptions& t) {
  cmd->add_option("--pose-timeout", t.pose,
                  "stop when the pose stream is silent this long (s; 0: 2 camera periods realtime, 2 s lockstep)")
      ->capture_default_str();
  cmd->add_option("--heartbeat-timeout", t.heartbeat,
                  "stop when the controller is silent this long (s; 0: 5 camera periods realtime, 2 s lockstep)")
      ->capture_default_str();
}

void TimeoutOptions::validate() const {
  if (!(pose >= 0 && pose <= 60)) fail("--pose-timeout", "expected 0 (the clock's default) or a time in (0, 60] s");
  if (!(heartbeat >= 0 && heartbeat <= 60))
    fail("--heartbeat-timeout", "expected 0 (the clock's default) or a time in (0, 60] s");
}

bridge::SafetyLimits safety_limits(const TimeoutOptions& t, RigClock clock, double camera_period) {
  t.validate();
  bridge::SafetyLimits l;
  const bool realtime = clock == RigClock::Realtime;
  l.pose_timeout = t.pose > 0 ? t.pose : realtime ? 2 * camera_period : 2.0;
  l.heartbeat_timeout = t.heartbeat > 0 ? t.heartbeat : realtime ? 5 * camera_period : 2.0;
  if (const std::string why = l.first_invalid(); !why.empty()) fail("safety limits", why);
  return l;
}

}  // namespace vcloe::app
