#pragma once
// vcloe/bridge/security.hpp — who may talk on the rig's streams (docs/protocol.md, "Keys"):
// ZeroMQ's own CURVE security (ZeroMQ RFC 26, CurveZMQ: Curve25519 keys, every frame encrypted
// and authenticated; Debian's libzmq has it through libsodium). Each role (robot, vision,
// control) has a key pair. A publisher is the CURVE server: it accepts only subscribers whose
// public key it was given (a ZAP handler, ZeroMQ RFC 27, with an allow-list); a subscriber is
// the CURVE client: it talks only to the publisher whose public key it was given. A peer without
// the keys reaches nothing; every refused handshake is counted by the publisher.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>

namespace zmq {
class context_t;
}  // namespace zmq

namespace vcloe::bridge {

bool curve_available();  // zmq_has("curve")

struct KeyPair {
  std::string public_key, secret_key;  // Z85 text, 40 characters each (zmq_curve_keypair)
};
KeyPair make_key_pair();  // throws vcloe::Error when this libzmq has no CURVE

inline constexpr const char* kRoles[] = {"robot", "vision", "control"};
// `vcloe rig listen`'s pair: vision's pose stream lets it in beside control and the robot. Its
// .pub is optional to the roles (keys made before it existed have none: no listener then).
inline constexpr const char* kListener = "listen";

// The keys of one role: its own pair and the public key of every role of the rig.
struct RoleKeys {
  std::string role;
  KeyPair own;
  std::map<std::string, std::string> public_keys;  // by role
};

// Writes DIR/ROLE.key (its pair: "public Z85\nsecret Z85\n", mode 0600) and DIR/ROLE.pub (the
// public key) for each role and the listener, in DIR made with mode 0700 if it is not there. Refuses to replace
// existing keys unless `force`. Returns what it wrote, one path a line.
std::string write_rig_keys(const std::string& dir, bool force);
// ROLE's pair (a role or the listener) from DIR/ROLE.key (refused if others can read it) and
// every DIR/R.pub (the listener's if there); each line checked (a 40-character Z85 key), the
// file and line named on any problem. Refused too: DIR or a .pub others may write (anyone could
// put their key in), and one public key held by two roles (either could be taken for the other).
RoleKeys load_role_keys(const std::string& dir, const std::string& role);

// What a socket runs with: nothing (plain), or as a CURVE server (publisher: its secret key) or
// a CURVE client (subscriber: its pair and the publisher's public key). A publisher refuses to
// bind a tcp endpoint other than the loopback without keys unless `plain_tcp` allows it.
class Authenticator;
struct Security {
  KeyPair own;
  std::string server_key;                       // subscribers: the publisher's public key
  const Authenticator* authenticator = nullptr;  // publishers: the context's (required with keys:
                                                 // without a ZAP handler libzmq lets any key in)
  bool plain_tcp = false;
  bool on() const { return !own.secret_key.empty(); }
};
// Whether a tcp endpoint's host is this machine only (127.0.0.0/8, ::1, localhost).
bool loopback_tcp(const std::string& endpoint);

// The ZAP handler of one context: answers every CURVE handshake of its publishers from one
// allow-list of public keys, and counts the refusals. Made before any socket of the context
// with CURVE and destroyed before the context (declare it right after the context).
class Authenticator {
 public:
  Authenticator(zmq::context_t& context, const std::set<std::string>& allowed_z85);
  ~Authenticator();
  Authenticator(const Authenticator&) = delete;
  Authenticator& operator=(const Authenticator&) = delete;
  std::uint64_t refused() const { return refused_.load(); }
  std::uint64_t accepted() const { return accepted_.load(); }

 private:
  std::set<std::string> allowed_;  // 32-byte binary keys
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> refused_{0}, accepted_{0};
  std::thread thread_;
  void serve(void* socket);
};

}  // namespace vcloe::bridge
