#include "vcloe/bridge/transport.hpp"

#include <zmq.hpp>

#include <cerrno>
#include <vector>

#include "vcloe/core/error.hpp"

namespace vcloe::bridge {

std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

Header& mutable_header(Message& m) {
  return std::visit([](auto& v) -> Header& { return v.header; }, m);
}

}  // namespace

Publisher::Publisher(zmq::context_t& context, const std::string& endpoint, int hwm)
    : socket_(std::make_unique<zmq::socket_t>(context, zmq::socket_type::pub)) {
  socket_->set(zmq::sockopt::sndhwm, hwm);
  socket_->set(zmq::sockopt::linger, 0);
  try {
    socket_->bind(endpoint);
  } catch (const zmq::error_t& e) {
    fail(endpoint, std::string("cannot bind: ") + e.what());
  }
}

Publisher::~Publisher() = default;

void Publisher::publish(Message message) {
  Header& h = mutable_header(message);
  h.sequence = next_[type_of(message)]++;
  h.publish_ns = steady_now_ns();
  const std::string frame = encode(message);
  (void)socket_->send(zmq::buffer(frame), zmq::send_flags::dontwait);
}

Subscriber::Subscriber(zmq::context_t& context, const std::string& endpoint, Keep keep, int hwm)
    : socket_(std::make_unique<zmq::socket_t>(context, zmq::socket_type::sub)) {
  socket_->set(zmq::sockopt::rcvhwm, hwm);
  socket_->set(zmq::sockopt::linger, 0);
  if (keep == Keep::Latest) socket_->set(zmq::sockopt::conflate, 1);  // before connect
  socket_->set(zmq::sockopt::subscribe, "");
  try {
    socket_->connect(endpoint);
  } catch (const zmq::error_t& e) {
    fail(endpoint, std::string("cannot connect: ") + e.what());
  }
}

Subscriber::~Subscriber() = default;

namespace {

// zmq_poll interrupted by a signal (the rig's SIGTERM to a process whose handler sets a flag)
// is a wait that ended early, not an error: the caller's loop sees its flag. (It threw
// "Interrupted system call", and `vcloe control` ended as an internal error, exit 3.)
int poll_or_interrupted(zmq::pollitem_t* items, std::size_t n, std::chrono::milliseconds timeout) {
  try {
    return zmq::poll(items, n, timeout);
  } catch (const zmq::error_t& e) {
    if (e.num() == EINTR) return 0;
    throw;
  }
}

}  // namespace

std::optional<Message> Subscriber::receive(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    zmq::pollitem_t item{socket_->handle(), 0, ZMQ_POLLIN, 0};
    if (poll_or_interrupted(&item, 1, std::max(left, std::chrono::milliseconds(0))) == 0) return std::nullopt;
    zmq::message_t frame;
    if (!socket_->recv(frame, zmq::recv_flags::dontwait)) continue;
    const Decoded d = decode(std::string_view(static_cast<const char*>(frame.data()), frame.size()));
    if (d.error != DecodeError::None) {
      ++malformed_;
      continue;
    }
    counters_[type_of(*d.message)].count(header_of(*d.message).sequence);
    return d.message;
  }
}

bool Subscriber::wait_any(std::initializer_list<Subscriber*> subscribers, std::chrono::microseconds timeout) {
  std::vector<zmq::pollitem_t> items;
  for (Subscriber* s : subscribers) items.push_back({s->socket_->handle(), 0, ZMQ_POLLIN, 0});
  // zmq_poll's timeout is in ms: wait the whole ms, the caller re-checks its own deadline.
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(std::max(timeout, std::chrono::microseconds(0)));
  return poll_or_interrupted(items.data(), items.size(), ms) > 0;
}

}  // namespace vcloe::bridge
