#pragma once
// vcloe/bridge/transport.hpp — the messages on ZeroMQ sockets (docs/protocol.md, "Sockets").
// A Publisher stamps each message with its per-type sequence number and the publish time; a
// Subscriber decodes every frame, counts and drops malformed ones, counts sequence gaps per
// type, and either keeps every message (a recorder) or only the latest (ZMQ_CONFLATE: the
// controller, which must act on the newest pose, never on a queue of stale ones). Queues are
// bounded by high-water marks: a stalled consumer never grows memory without bound.
#include <chrono>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "vcloe/bridge/messages.hpp"
#include "vcloe/bridge/security.hpp"

namespace zmq {
class context_t;
class socket_t;
}  // namespace zmq

namespace vcloe::bridge {

// Steady-clock time in ns (the clock of every header's exposure and publish times).
std::int64_t steady_now_ns();

class Publisher {
 public:
  // Binds `endpoint` (ipc://..., tcp://...). Throws vcloe::Error naming the endpoint: an ipc
  // endpoint another process listens on; a tcp one not on the loopback without keys (unless
  // security.plain_tcp). With keys: a CURVE server (the context's Authenticator decides who may
  // subscribe). An ipc socket is made with no access for group and others: no other user can connect to it.
  Publisher(zmq::context_t& context, const std::string& endpoint, int high_water_mark = 1000,
            const Security& security = {});
  ~Publisher();
  // Sends one frame; sets header.sequence (per type, from 0) and header.publish_ns. Never
  // blocks: at the high-water mark a PUB socket drops, and the receiver counts the gap.
  void publish(Message message);
  // Handshakes refused so far (a peer without an allowed key, or with none): counted from the
  // socket's monitor events; 0 without keys.
  std::uint64_t refused_peers();
  std::string bound() const;  // the endpoint bound (tcp://HOST:* resolved to its port)
  // How long frames not yet sent may still go out once the socket is closed (ZMQ_LINGER; 0 by
  // default: a closed publisher drops them). A role's last message (its end) sets it.
  void linger(std::chrono::milliseconds time);

 private:
  std::unique_ptr<zmq::socket_t> socket_, monitor_;
  std::uint64_t refused_peers_ = 0;
  std::map<MessageType, std::uint64_t> next_;
};

class Subscriber {
 public:
  enum class Keep { All, Latest };
  // Connects to `endpoint`. Keep::Latest sets ZMQ_CONFLATE (single-frame messages only).
  // With keys: a CURVE client that talks only to the publisher whose public key it was given.
  // `stream`: the one it reads; a well-formed message of a type it does not carry (`carries`)
  // is malformed too (DecodeError::WrongStream), counted and dropped, and named by wrong_type().
  Subscriber(zmq::context_t& context, const std::string& endpoint, Keep keep, int high_water_mark = 1000,
             const Security& security = {}, Stream stream = Stream::Any);
  ~Subscriber();
  // The next well-formed message, or nothing if none arrived within `timeout`. Malformed
  // frames are counted and skipped (they never end the wait early).
  std::optional<Message> receive(std::chrono::milliseconds timeout);

  std::uint64_t malformed() const { return malformed_; }
  // The schema version of the last well-checked frame of another version (counted as malformed
  // too): a peer that speaks it (a half-upgraded rig), to be refused by name, not timed out.
  const std::optional<std::uint16_t>& foreign_version() const { return foreign_version_; }
  const StreamCounters& counters(MessageType type) { return counters_[type]; }
  // The malformed frames dropped since the last well-formed message, if any: why the first did
  // not decode and, for a pose or command, the frame it was of (the cause of a run that then
  // starved, named by its frame rather than by the timeout that followed), and how many.
  struct Dropped {
    DecodeError error = DecodeError::None;
    std::optional<MessageType> type = std::nullopt;
    std::optional<std::int64_t> frame = std::nullopt;
    std::uint64_t count = 0;  // malformed frames since the last well-formed message, the first included
  };
  const std::optional<Dropped>& dropped_since_last_message() const { return dropped_; }
  // The type of the first message of a type this stream does not carry, if one came (a peer
  // publishing on the wrong stream: the robot stops on its command stream, reason 6).
  const std::optional<MessageType>& wrong_type() const { return wrong_type_; }
  // Why the latest malformed frame was dropped (None if none was): a wait that timed out names it.
  DecodeError last_error() const { return last_error_; }
  Stream stream() const { return stream_; }

  // Waits until one of `subscribers` has a frame to read, or `timeout` passes (then false).
  static bool wait_any(std::initializer_list<Subscriber*> subscribers, std::chrono::microseconds timeout);

 private:
  std::unique_ptr<zmq::socket_t> socket_;
  std::uint64_t malformed_ = 0;
  std::optional<std::uint16_t> foreign_version_;
  std::optional<Dropped> dropped_;
  std::map<MessageType, StreamCounters> counters_;
  Stream stream_ = Stream::Any;
  std::optional<MessageType> wrong_type_;
  DecodeError last_error_ = DecodeError::None;
  void drop(DecodeError error, std::optional<MessageType> type, std::optional<std::int64_t> frame);
};

}  // namespace vcloe::bridge
