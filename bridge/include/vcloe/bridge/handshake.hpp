#pragma once
// vcloe/bridge/handshake.hpp — the rule of the rig's start handshake (docs/protocol.md,
// "Handshake"): which role reads which file of a run, and whether a peer's hello may run with
// ours. Pure: hellos in, one line out; the hellos themselves are made from the files a role
// parsed (rig/handshake.hpp).
#include <array>
#include <string>

#include "vcloe/bridge/messages.hpp"

namespace vcloe::bridge {

// Whether `role` reads `file`: the robot and control read all five, vision the experiment only.
bool reads(Role role, RunFile file);
// How a role is named in a line ("the robot", "the pose source", "the controller") and how it
// names itself ("robot", "vision", "controller").
std::string peer_name(Role role);
std::string self_name(Role role);

// "" if `peer` (heard on `endpoint`, the stream `expected` publishes) may run with `mine`; else
// one line naming the role, the file and both hashes (12 hex digits each; `given` names each of
// our files, by RunFile):
//   handshake refused: the controller on ipc://…/commands runs the reference with SHA-256
//   1a2b3c4d5e6f...; this robot runs /x/ref.yaml, SHA-256 5e6f7a8b9c0d...: the roles of one run
//   must read the same reference
// A hello of another role than `expected` on that stream is refused too, and one stating another
// clock than ours (both stated: the robot and control; vision states none).
std::string hello_problem(const HelloMessage& mine, const std::array<std::string, kRunFiles>& given,
                          const HelloMessage& peer, Role expected, const std::string& endpoint);

}  // namespace vcloe::bridge
