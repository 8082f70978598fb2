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

namespace zmq {
class context_t;
class socket_t;
}  // namespace zmq

namespace vcloe::bridge {

// Steady-clock time in ns (the clock of every header's exposure and publish times).
std::int64_t steady_now_ns();

class Publisher {
 public:
  // Binds `endpoint` (ipc://..., tcp://...). Throws vcloe::Error naming the endpoint.
  Publisher(zmq::context_t& context, const std::string& endpoint, int high_water_mark = 1000);
  ~Publisher();
  // Sends one frame; sets header.sequence (per type, from 0) and header.publish_ns. Never
  // blocks: at the high-water mark a PUB socket drops, and the receiver counts the gap.
  void publish(Message message);

 private:
  std::unique_ptr<zmq::socket_t> socket_;
  std::map<MessageType, std::uint64_t> next_;
};

class Subscriber {
 public:
  enum class Keep { All, Latest };
  // Connects to `endpoint`. Keep::Latest sets ZMQ_CONFLATE (single-frame messages only).
  Subscriber(zmq::context_t& context, const std::string& endpoint, Keep keep, int high_water_mark = 1000);
  ~Subscriber();
  // The next well-formed message, or nothing if none arrived within `timeout`. Malformed
  // frames are counted and skipped (they never end the wait early).
  std::optional<Message> receive(std::chrono::milliseconds timeout);

  std::uint64_t malformed() const { return malformed_; }
  const StreamCounters& counters(MessageType type) { return counters_[type]; }

  // Waits until one of `subscribers` has a frame to read, or `timeout` passes (then false).
  static bool wait_any(std::initializer_list<Subscriber*> subscribers, std::chrono::microseconds timeout);

 private:
  std::unique_ptr<zmq::socket_t> socket_;
  std::uint64_t malformed_ = 0;
  std::map<MessageType, StreamCounters> counters_;
};

}  // namespace vcloe::bridge
