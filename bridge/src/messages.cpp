#include "vcloe/bridge/messages.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include <zlib.h>

namespace vcloe::bridge {

namespace {

static_assert(std::endian::native == std::endian::little, "the wire format is little-endian; add byte swaps");

constexpr std::size_t kPoseBody = 8 + 48 + 8 + 4 + 1 + 3, kCommandBody = 8 + 48, kStatusBody = 1 + 1 + 2 + 4 + 8 + 8 + 48;
constexpr std::size_t kHelloBody = 1 + 1 + 6 + kRunFiles * 32, kEndBody = 1 + 7 + 8 + 8;
static_assert(kPoseBody == 72 && kCommandBody == 56 && kStatusBody == 72 && kHelloBody == 168 && kEndBody == 24);

class Writer {
 public:
  template <typename T>
  void put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out_.append(b, sizeof(T));
  }
  void put(const Vec6d& v) {
    for (int i = 0; i < 6; ++i) put(v(i));
  }
  void zeros(std::size_t n) { out_.append(n, '\0'); }
  void put(const Digest& d) { out_.append(reinterpret_cast<const char*>(d.data()), d.size()); }
  std::string& str() { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <typename T>
  T get() {
    T v;
    std::memcpy(&v, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  Vec6d vec6() {
    Vec6d v;
    for (int i = 0; i < 6; ++i) v(i) = get<double>();
    return v;
  }
  void skip(std::size_t n) { at_ += n; }
  Digest digest() {
    Digest d;
    std::memcpy(d.data(), in_.data() + at_, d.size());
    at_ += d.size();
    return d;
  }

 private:
  std::string_view in_;
  std::size_t at_ = 0;
};

std::size_t body_size(MessageType t) {
  switch (t) {
    case MessageType::Pose: return kPoseBody;
    case MessageType::Command: return kCommandBody;
    case MessageType::Status: return kStatusBody;
    case MessageType::Heartbeat: return 0;
    case MessageType::Hello: return kHelloBody;
    case MessageType::End: return kEndBody;
  }
  return 0;
}

void put_header(Writer& w, MessageType type, const Header& h) {
  for (char c : kMagic) w.put(c);
  w.put(kSchemaVersion);
  w.put(static_cast<std::uint16_t>(type));
  w.put(static_cast<std::uint32_t>(body_size(type)));
  w.put(std::uint32_t{0});  // CRC-32, filled in last
  w.put(h.sequence);
  w.put(h.exposure_ns);
  w.put(h.publish_ns);
}

struct BodyWriter {
  Writer& w;
  void operator()(const PoseMessage& m) {
    w.put(m.frame);
    w.put(m.pose);
    w.put(m.registration_error);
    w.put(m.markers_used);
    w.put(static_cast<std::uint8_t>(m.valid ? 1 : 0));
    w.zeros(3);
  }
  void operator()(const CommandMessage& m) {
    w.put(m.frame);
    w.put(m.theta);
  }
  void operator()(const StatusMessage& m) {
    w.put(static_cast<std::uint8_t>(m.state));
    w.zeros(1);
    w.put(static_cast<std::uint16_t>(m.reason));
    w.zeros(4);
    w.put(m.last_command);
    w.put(m.tick);
    w.put(m.theta);
  }
  void operator()(const HeartbeatMessage&) {}
  void operator()(const HelloMessage& m) {
    w.put(static_cast<std::uint8_t>(m.role));
    std::uint8_t stated = 0;
    for (std::size_t f = 0; f < kRunFiles; ++f)
      if (m.files[f]) stated = static_cast<std::uint8_t>(stated | 1u << f);
    w.put(stated);
    w.put(static_cast<std::uint8_t>(m.clock));
    w.zeros(5);
    for (const auto& f : m.files) w.put(f.value_or(Digest{}));
  }
  void operator()(const EndMessage& m) {
    w.put(static_cast<std::uint8_t>(m.role));
    w.zeros(7);
    w.put(m.last_frame);
    w.put(m.count);
  }
};

bool finite(const Vec6d& v) { return v.allFinite(); }

Decoded bad(DecodeError e) { return {std::nullopt, e}; }
// A pose or command whose frame number was read before its fault.
Decoded bad_frame(DecodeError e, MessageType type, std::int64_t frame) {
  Decoded d = bad(e);
  d.type = type, d.frame = frame;
  return d;
}

std::uint32_t read_crc(std::string_view frame) {
  std::uint32_t crc;
  std::memcpy(&crc, frame.data() + 12, 4);
  return crc;
}

bool known_role(std::uint8_t role) { return role >= 1 && role <= 3; }

// A hello: a known role, the files bit field within the five files, an unstated file's
// digest zero (one frame per meaning).
Decoded decode_hello(const Header& h, Reader& r) {
  HelloMessage m{h};
  const auto role = r.get<std::uint8_t>();
  const auto stated = r.get<std::uint8_t>();
  const auto clock = r.get<std::uint8_t>();
  r.skip(5);
  if (!known_role(role) || (stated >> kRunFiles) != 0 || clock > 2) return bad(DecodeError::BadEnum);
  m.role = static_cast<Role>(role);
  m.clock = static_cast<HelloClock>(clock);
  for (std::size_t f = 0; f < kRunFiles; ++f) {
    const Digest d = r.digest();
    if (stated & (1u << f)) m.files[f] = d;
    else if (d != Digest{}) return bad(DecodeError::BadEnum);
  }
  return {m, DecodeError::None};
}

Decoded decode_end(const Header& h, Reader& r) {
  EndMessage m{h};
  const auto role = r.get<std::uint8_t>();
  r.skip(7);
  m.last_frame = r.get<std::int64_t>();
  m.count = r.get<std::uint64_t>();
  if (!known_role(role) || m.last_frame < -1) return bad(DecodeError::BadEnum);
  m.role = static_cast<Role>(role);
  return {m, DecodeError::None};
}

Decoded decode_body(MessageType type, const Header& h, Reader& r) {
  switch (type) {
    case MessageType::Pose: {
      PoseMessage m{h};
      m.frame = r.get<std::int64_t>();
      m.pose = r.vec6();
      m.registration_error = r.get<double>();
      m.markers_used = r.get<std::uint32_t>();
      const auto valid = r.get<std::uint8_t>();
      if (valid > 1) return bad_frame(DecodeError::BadEnum, type, m.frame);
      m.valid = valid == 1;
      if (m.valid && (!finite(m.pose) || !std::isfinite(m.registration_error)))
        return bad_frame(DecodeError::NonFinite, type, m.frame);
      return {m, DecodeError::None};
    }
    case MessageType::Command: {
      CommandMessage m{h};
      m.frame = r.get<std::int64_t>();
      m.theta = r.vec6();
      if (!finite(m.theta)) return bad_frame(DecodeError::NonFinite, type, m.frame);
      return {m, DecodeError::None};
    }
    case MessageType::Status: {
      StatusMessage m{h};
      const auto state = r.get<std::uint8_t>();
      r.skip(1);
      const auto reason = r.get<std::uint16_t>();
      r.skip(4);
      if (state > 3 || reason > static_cast<std::uint16_t>(StopReason::HandshakeRefused)) return bad(DecodeError::BadEnum);
      m.state = static_cast<RobotState>(state);
      m.reason = static_cast<StopReason>(reason);
      m.last_command = r.get<std::uint64_t>();
      m.tick = r.get<std::int64_t>();
      m.theta = r.vec6();
      if (!finite(m.theta)) return bad(DecodeError::NonFinite);  // the encoders (probe 34, F008)
      return {m, DecodeError::None};
    }
    case MessageType::Heartbeat:
      return {HeartbeatMessage{h}, DecodeError::None};
    case MessageType::Hello: return decode_hello(h, r);
    case MessageType::End: return decode_end(h, r);
  }
  return bad(DecodeError::UnknownType);
}

}  // namespace

// CRC-32 (zlib's, as Python's zlib.crc32) of the frame with its CRC field (bytes 12-15) zero.
std::uint32_t frame_crc(std::string_view frame) {
  std::string copy(frame);
  std::memset(copy.data() + 12, 0, 4);
  return static_cast<std::uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(copy.data()), static_cast<uInt>(copy.size())));
}

std::string encode(const Message& message) {
  Writer w;
  put_header(w, type_of(message), header_of(message));
  std::visit(BodyWriter{w}, message);
  std::string frame = std::move(w.str());
  const std::uint32_t crc = frame_crc(frame);
  std::memcpy(frame.data() + 12, &crc, 4);
  return frame;
}

Decoded decode(std::string_view frame) {
  if (frame.size() < kHeaderBytes) return bad(DecodeError::TooShort);
  if (frame.substr(0, 4) != std::string_view(kMagic.data(), 4)) return bad(DecodeError::BadMagic);
  // The CRC first (at bytes 12-15 in every version): a frame that checks but is of another
  // version comes from a peer speaking it, not from noise, and is reported with its version.
  if (read_crc(frame) != frame_crc(frame)) return bad(DecodeError::BadChecksum);
  Reader r(frame.substr(4));
  if (const auto version = r.get<std::uint16_t>(); version != kSchemaVersion) {
    Decoded d = bad(DecodeError::BadVersion);
    d.version = version;
    return d;
  }
  const auto type = r.get<std::uint16_t>();
  if (type < 1 || type > 6) return bad(DecodeError::UnknownType);
  const auto t = static_cast<MessageType>(type);
  const auto length = r.get<std::uint32_t>();
  r.skip(4);  // CRC-32, checked
  if (length != body_size(t) || frame.size() != kHeaderBytes + length) return bad(DecodeError::BadLength);
  Header h;
  h.sequence = r.get<std::uint64_t>();
  h.exposure_ns = r.get<std::int64_t>();
  h.publish_ns = r.get<std::int64_t>();
  return decode_body(t, h, r);
}

const char* describe(DecodeError e) {
  switch (e) {
    case DecodeError::None: return "ok";
    case DecodeError::TooShort: return "shorter than the 40-byte header";
    case DecodeError::BadMagic: return "not a vcloe frame (magic is not VCLO)";
    case DecodeError::BadVersion: return "another schema version";
    case DecodeError::BadChecksum: return "CRC-32 does not match (corrupted frame)";
    case DecodeError::UnknownType: return "unknown message type";
    case DecodeError::BadLength: return "body length does not match its type";
    case DecodeError::NonFinite: return "non-finite pose or angle";
    case DecodeError::BadEnum: return "a flag or enumeration out of range";
    case DecodeError::WrongStream: return "a message of a type this stream does not carry";
  }
  return "?";
}

bool carries(Stream stream, MessageType type) {
  if (type == MessageType::Hello || type == MessageType::End) return true;
  switch (stream) {
    case Stream::Any: return true;
    case Stream::Camera:
    case Stream::Poses: return type == MessageType::Pose;
    case Stream::Commands: return type == MessageType::Command || type == MessageType::Heartbeat;
    case Stream::Status: return type == MessageType::Status;
  }
  return false;
}

std::string_view name_of(Stream stream) {
  switch (stream) {
    case Stream::Any: return "any";
    case Stream::Camera: return "camera";
    case Stream::Poses: return "poses";
    case Stream::Commands: return "commands";
    case Stream::Status: return "status";
  }
  return "?";
}

std::string_view name_of(MessageType type) {
  switch (type) {
    case MessageType::Pose: return "pose";
    case MessageType::Command: return "command";
    case MessageType::Status: return "status";
    case MessageType::Heartbeat: return "heartbeat";
    case MessageType::Hello: return "hello";
    case MessageType::End: return "end";
  }
  return "?";
}

MessageType type_of(const Message& m) {
  return std::visit(
      [](const auto& v) {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, PoseMessage>) return MessageType::Pose;
        else if constexpr (std::is_same_v<V, CommandMessage>) return MessageType::Command;
        else if constexpr (std::is_same_v<V, StatusMessage>) return MessageType::Status;
        else if constexpr (std::is_same_v<V, HelloMessage>) return MessageType::Hello;
        else if constexpr (std::is_same_v<V, EndMessage>) return MessageType::End;
        else return MessageType::Heartbeat;
      },
      m);
}

const Header& header_of(const Message& m) {
  return std::visit([](const auto& v) -> const Header& { return v.header; }, m);
}

std::string_view name_of(StopReason r) {
  switch (r) {
    case StopReason::None: return "none";
    case StopReason::PoseTimeout: return "pose stream silent longer than the timeout";
    case StopReason::InvalidPoses: return "invalid poses, or a pose stream it cannot read";
    case StopReason::HeartbeatLost: return "controller lost";
    case StopReason::CommandOutOfRange: return "command outside the joint range";
    case StopReason::CommandRateLimit: return "command faster than the joint rate limit";
    case StopReason::MalformedCommand: return "malformed command";
    case StopReason::RobotFailure: return "robot failure (safety stop)";
    case StopReason::Finished: return "reference finished";
    case StopReason::Interrupted: return "interrupted";
    case StopReason::HandshakeRefused: return "handshake refused";
  }
  return "?";
}

std::string_view name_of(Role r) {
  switch (r) {
    case Role::Robot: return "robot";
    case Role::Vision: return "vision";
    case Role::Control: return "control";
  }
  return "?";
}

std::string_view name_of(HelloClock c) {
  switch (c) {
    case HelloClock::NotStated: return "no clock";
    case HelloClock::Lockstep: return "lockstep";
    case HelloClock::Realtime: return "realtime";
  }
  return "?";
}

std::string_view name_of(RunFile f) {
  switch (f) {
    case RunFile::Experiment: return "experiment";
    case RunFile::Reference: return "reference";
    case RunFile::Robot: return "robot file";
    case RunFile::Payload: return "payload";
    case RunFile::Precorrection: return "pre-correction";
  }
  return "?";
}

std::optional<Digest> digest_from_hex(std::string_view hex) {
  if (hex.size() != 64) return std::nullopt;
  auto nibble = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
  Digest d;
  for (std::size_t i = 0; i < d.size(); ++i) {
    const int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    d[i] = static_cast<std::uint8_t>(hi << 4 | lo);
  }
  return d;
}

std::string hex_of(const Digest& d) {
  static const char kHex[] = "0123456789abcdef";
  std::string s;
  for (const std::uint8_t b : d) s += {kHex[b >> 4], kHex[b & 15]};
  return s;
}

}  // namespace vcloe::bridge
