#pragma once
// The rig's start handshake (docs/protocol.md, "Handshake"): before anything of a run is sent,
// every role (robot, vision, control) states in a hello the schema version it speaks (the frame's
// header) and the SHA-256 of each file of the run it reads — experiment, reference, robot file,
// payload, pre-correction (the command the robot adds tick by tick) — taken from the bytes it parsed (core/input_ledger.hpp). A role refuses a peer whose
// hello names another file for one both read, by name: which role, which file, both hashes
// (the rule: bridge/handshake.hpp). Frame numbers are the only clock the roles share, so a
// robot on another experiment or reference would otherwise give a trace with the controller's
// times on the robot's frames.
#include <optional>
#include <string>

#include "vcloe/bridge/handshake.hpp"
#include "vcloe/oe_ident/payload.hpp"

namespace vcloe::rig {

using bridge::peer_name;
using bridge::reads;
using bridge::self_name;

// The files one role runs with, as given ("" = not read by this role; payload: none carried;
// precorrection "": the servo alone, no command added).
struct RunFiles {
  std::string experiment, reference, robot;
  std::optional<oe_ident::Payload> payload;
  std::string precorrection;
};

// The bytes hashed for a payload given as numbers (--payload-mass, --payload-inertia), one line:
// "payload mass M inertia IXX IYY IZZ\n", each number printed as C's "%.17g".
std::string payload_text(const oe_ident::Payload& payload);
// The hello of `role` running `files` on `clock` (the robot and control state theirs): the
// SHA-256 of what this process parsed of each file the role reads (sha256_file: the input
// ledger's hash), of payload_text for the payload.
bridge::HelloMessage hello_of(bridge::Role role, const RunFiles& files,
                              bridge::HelloClock clock = bridge::HelloClock::NotStated);
// bridge::hello_problem with our files named by their paths (the payload by its options).
std::string hello_problem(const bridge::HelloMessage& mine, const RunFiles& files, const bridge::HelloMessage& peer,
                          bridge::Role expected, const std::string& endpoint);

}  // namespace vcloe::rig
