#include "vcloe/bridge/transport.hpp"

#include <zmq.hpp>

#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
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

// Whether a process is listening on the ipc socket at `path` now (a connect succeeds). ZeroMQ's
// ipc bind replaces such a socket silently: a second publisher would take the stream over.
bool ipc_in_use(const std::string& path) {
  sockaddr_un a{};
  if (path.empty() || path[0] == '@' || path.size() >= sizeof a.sun_path) return false;
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  const bool listening = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return listening;
}

}  // namespace

Publisher::Publisher(zmq::context_t& context, const std::string& endpoint, int hwm, const Security& security)
    : socket_(std::make_unique<zmq::socket_t>(context, zmq::socket_type::pub)) {
  socket_->set(zmq::sockopt::sndhwm, hwm);
  socket_->set(zmq::sockopt::linger, 0);
  const bool ipc = endpoint.rfind("ipc://", 0) == 0;
  if (ipc && ipc_in_use(endpoint.substr(6)))
    fail(endpoint, "in use: another process is bound to it (a second robot, vision or control?); refused");
  if (!ipc && !security.on() && !security.plain_tcp && !loopback_tcp(endpoint))
    fail(endpoint, "a tcp endpoint other hosts can reach, without keys: anyone reaching it could read or "
                   "impersonate the stream; give the rig's keys (--keys DIR) or allow it (--plain-tcp)");
  if (security.on()) {
    if (!security.authenticator) fail(endpoint, "keys without an authenticator would let any key in");
    socket_->set(zmq::sockopt::curve_server, 1);
    socket_->set(zmq::sockopt::curve_secretkey, security.own.secret_key);
    socket_->set(zmq::sockopt::zap_domain, "vcloe");
    // Every refused handshake (a wrong key, or none) is an event of the socket's monitor.
    static std::atomic<int> monitors{0};
    const std::string monitor = "inproc://vcloe-monitor-" + std::to_string(monitors++);
    if (zmq_socket_monitor(socket_->handle(), monitor.c_str(),
                           ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                               ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) != 0)
      fail(endpoint, "cannot monitor the socket's handshakes");
    monitor_ = std::make_unique<zmq::socket_t>(context, zmq::socket_type::pair);
    monitor_->set(zmq::sockopt::linger, 0);
    monitor_->connect(monitor);
  }
  const mode_t mask = ipc ? umask(0077) : 0;  // the ipc socket file: no access for group and others
  try {
    socket_->bind(endpoint);
  } catch (const zmq::error_t& e) {
    if (ipc) umask(mask);
    fail(endpoint, std::string("cannot bind: ") + e.what());
  }
  if (ipc) umask(mask);
}

void Publisher::linger(std::chrono::milliseconds time) {
  socket_->set(zmq::sockopt::linger, static_cast<int>(time.count()));
}

std::string Publisher::bound() const { return socket_->get(zmq::sockopt::last_endpoint); }

std::uint64_t Publisher::refused_peers() {
  if (!monitor_) return 0;
  for (zmq::message_t event; monitor_->recv(event, zmq::recv_flags::dontwait);) {
    if (!event.more()) continue;
    zmq::message_t address;
    (void)monitor_->recv(address, zmq::recv_flags::dontwait);
    ++refused_peers_;
  }
  return refused_peers_;
}

Publisher::~Publisher() = default;

void Publisher::publish(Message message) {
  Header& h = mutable_header(message);
  h.sequence = next_[type_of(message)]++;
  h.publish_ns = steady_now_ns();
  const std::string frame = encode(message);
  (void)socket_->send(zmq::buffer(frame), zmq::send_flags::dontwait);
}

Subscriber::Subscriber(zmq::context_t& context, const std::string& endpoint, Keep keep, int hwm,
                       const Security& security, Stream stream)
    : socket_(std::make_unique<zmq::socket_t>(context, zmq::socket_type::sub)), stream_(stream) {
  socket_->set(zmq::sockopt::rcvhwm, hwm);
  if (security.on()) {
    socket_->set(zmq::sockopt::curve_serverkey, security.server_key);
    socket_->set(zmq::sockopt::curve_publickey, security.own.public_key);
    socket_->set(zmq::sockopt::curve_secretkey, security.own.secret_key);
  }
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
      if (d.error == DecodeError::BadVersion) foreign_version_ = d.version;
      drop(d.error, d.type, d.frame);
      continue;
    }
    if (const MessageType type = type_of(*d.message); !carries(stream_, type)) {
      if (!wrong_type_) wrong_type_ = type;
      const auto* p = std::get_if<PoseMessage>(&*d.message);
      const auto* c = std::get_if<CommandMessage>(&*d.message);
      drop(DecodeError::WrongStream, type, p ? std::optional(p->frame) : c ? std::optional(c->frame) : std::nullopt);
      continue;
    }
    dropped_.reset();
    counters_[type_of(*d.message)].count(header_of(*d.message).sequence);
    return d.message;
  }
}

void Subscriber::drop(DecodeError error, std::optional<MessageType> type, std::optional<std::int64_t> frame) {
  ++malformed_;
  last_error_ = error;
  if (dropped_) ++dropped_->count;  // the first of a run of malformed frames is the one that starved it
  else dropped_ = Dropped{error, type, frame, 1};
}

bool Subscriber::wait_any(std::initializer_list<Subscriber*> subscribers, std::chrono::microseconds timeout) {
  std::vector<zmq::pollitem_t> items;
  for (Subscriber* s : subscribers) items.push_back({s->socket_->handle(), 0, ZMQ_POLLIN, 0});
  // zmq_poll's timeout is in ms: wait the whole ms, the caller re-checks its own deadline.
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(std::max(timeout, std::chrono::microseconds(0)));
  return poll_or_interrupted(items.data(), items.size(), ms) > 0;
}

}  // namespace vcloe::bridge
