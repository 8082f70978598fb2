#include "vcloe/bridge/handshake.hpp"

namespace vcloe::bridge {

bool reads(Role role, RunFile file) { return role != Role::Vision || file == RunFile::Experiment; }

std::string peer_name(Role role) {
  switch (role) {
    case Role::Robot: return "the robot";
    case Role::Vision: return "the pose source";
    case Role::Control: return "the controller";
  }
  return "?";
}

std::string self_name(Role role) { return role == Role::Control ? "controller" : std::string(name_of(role)); }

namespace {

std::string abbreviated(const Digest& d) { return "SHA-256 " + hex_of(d).substr(0, 12) + "..."; }

}  // namespace

std::string hello_problem(const HelloMessage& mine, const std::array<std::string, kRunFiles>& given,
                          const HelloMessage& peer, Role expected, const std::string& endpoint) {
  const std::string me = "this " + self_name(mine.role);
  if (peer.role != expected)
    return "handshake refused: a hello from " + peer_name(peer.role) + " on " + endpoint + ", where " +
           peer_name(expected) + " publishes; " + me + " refuses it (two roles on one endpoint?)";
  // A role that runs a clock (the robot, control) takes no peer of the two that leaves it unstated:
  // byte 42 at 0 cannot be checked against its own, and a lockstep robot beside an unchecked
  // controller ran to the end (session 20's probe, class P).
  if (mine.clock != HelloClock::NotStated && peer.role != Role::Vision && peer.clock == HelloClock::NotStated)
    return "handshake refused: " + peer_name(peer.role) + " on " + endpoint +
           " states no clock (hello byte 42 'clock' is 0); " + me + " runs " + std::string(name_of(mine.clock)) +
           ": the robot and the controller state theirs (1 lockstep, 2 realtime) and must run one (--clock)";
  if (mine.clock != HelloClock::NotStated && peer.clock != HelloClock::NotStated && mine.clock != peer.clock)
    return "handshake refused: " + peer_name(peer.role) + " on " + endpoint + " runs the " +
           std::string(name_of(peer.clock)) + " clock; " + me + " runs " + std::string(name_of(mine.clock)) +
           ": the robot and the controller of one run must run one clock (--clock)";
  // A file a role does not read, stated: a hello of another run or another protocol, never one
  // of this run's pose source (probe 36, H_hello_files: another reference, accepted in silence).
  for (std::size_t k = 0; k < kRunFiles; ++k)
    if (!reads(peer.role, static_cast<RunFile>(k)) && peer.files[k])
      return "handshake refused: " + peer_name(peer.role) + " on " + endpoint + " states the " +
             std::string(name_of(static_cast<RunFile>(k))) + " with " + abbreviated(*peer.files[k]) + ", which " +
             peer_name(peer.role) + " does not read (docs/protocol.md, \"Handshake\"): " + me +
             " refuses a hello of another run or another protocol";
  for (std::size_t k = 0; k < kRunFiles; ++k) {
    const auto file = static_cast<RunFile>(k);
    if (!reads(mine.role, file) || !reads(peer.role, file) || mine.files[k] == peer.files[k]) continue;
    const std::string what(name_of(file));
    const auto& ours = mine.files[k];
    const auto& theirs = peer.files[k];
    const std::string theirs_text = theirs ? "the " + what + " with " + abbreviated(*theirs) : "with no " + what;
    const std::string ours_text = ours ? given[k] + ", " + abbreviated(*ours) : "with no " + what;
    return "handshake refused: " + peer_name(peer.role) + " on " + endpoint + " runs " + theirs_text + "; " + me +
           " runs " + ours_text + ": the roles of one run must read the same " + what;
  }
  return "";
}

}  // namespace vcloe::bridge
