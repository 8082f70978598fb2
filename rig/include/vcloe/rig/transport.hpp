#pragma once
// How the live rig's roles exchange messages: an outlet publishes, an inlet receives without
// waiting. The sockets of bridge/ in the processes (SocketOutlet, SocketInlet), a queue in
// memory when the roles are stepped together in one process (MemoryStream: tests, and
// rig::stepped_trace). The roles themselves (rig/roles.hpp) never see which.
#include <chrono>
#include <deque>
#include <optional>

#include "vcloe/bridge/transport.hpp"

namespace vcloe::rig {

class Outlet {
 public:
  virtual ~Outlet() = default;
  virtual void publish(const bridge::Message& message) = 0;
};

class Inlet {
 public:
  virtual ~Inlet() = default;
  virtual std::optional<bridge::Message> receive() = 0;  // the next message, or none now
};

// Messages in the order published, each received once (no loss, no wait).
class MemoryStream : public Outlet, public Inlet {
 public:
  void publish(const bridge::Message& message) override;
  std::optional<bridge::Message> receive() override;

 private:
  std::deque<bridge::Message> queue_;
};

class SocketOutlet : public Outlet {
 public:
  explicit SocketOutlet(bridge::Publisher& publisher) : publisher_(publisher) {}
  void publish(const bridge::Message& message) override { publisher_.publish(message); }

 private:
  bridge::Publisher& publisher_;
};

class SocketInlet : public Inlet {
 public:
  explicit SocketInlet(bridge::Subscriber& subscriber) : subscriber_(subscriber) {}
  std::optional<bridge::Message> receive() override { return subscriber_.receive(std::chrono::milliseconds(0)); }

 private:
  bridge::Subscriber& subscriber_;
};

}  // namespace vcloe::rig
