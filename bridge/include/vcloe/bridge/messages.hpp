#pragma once
// vcloe/bridge/messages.hpp — the messages between the vision, control and robot processes
// (docs/design.md §10, docs/protocol.md). Each message is one ZeroMQ frame: a 40-byte header
// (magic, schema version, type, body length, CRC-32, sequence number, exposure and publish
// times on a steady clock) and a fixed-size body, all little-endian. A decoder never trusts a frame: every
// malformed, truncated, wrong-version or unknown-type frame is reported, never half-read.
// bridge knows no controller, plant or pipeline: only these values.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "vcloe/core/rotation.hpp"

namespace vcloe::bridge {

inline constexpr std::array<char, 4> kMagic = {'V', 'C', 'L', 'O'};
// 2: the hello (the start handshake: each role's files by SHA-256), the end of a run, the
// robot's move-to-start state. 3: the hello states the pre-correction too (a fifth SHA-256).
// Peers of another version are refused by name (their frames check).
inline constexpr std::uint16_t kSchemaVersion = 3;
inline constexpr std::size_t kHeaderBytes = 40;

enum class MessageType : std::uint16_t { Pose = 1, Command = 2, Status = 3, Heartbeat = 4, Hello = 5, End = 6 };

struct Header {
  std::uint64_t sequence = 0;     // per sender and type, +1 per message (gaps are counted)
  std::int64_t exposure_ns = 0;   // when the data it carries was taken (steady clock, ns)
  std::int64_t publish_ns = 0;    // when it was sent (steady clock, ns)
};

// A platform pose as a tracker streams it (Vicon's occluded flag, OptiTrack's mean error).
struct PoseMessage {
  Header header;
  std::int64_t frame = 0;            // camera frame index j (exposure at j / camera_hz)
  Vec6d pose = Vec6d::Zero();        // chi = [x, y, z (m), alpha, beta, gamma (rad)] of E in O
  double registration_error = 0;     // fiducial registration error (m, RMS over the markers)
  std::uint32_t markers_used = 0;
  bool valid = false;                // false: occluded or rejected; pose is not to be used
};

// A joint position command U (rad), held by the drives until the next one.
struct CommandMessage {
  Header header;
  std::int64_t frame = 0;            // the camera frame whose pose produced it (-1: the start hold)
  Vec6d theta = Vec6d::Zero();
};

// Waiting: before the run, until every process is connected (the start handshake); Moving: then
// the robot's ramp from where it stands to the reference's start (docs/protocol.md).
enum class RobotState : std::uint8_t { Running = 0, Stopped = 1, Waiting = 2, Moving = 3 };
enum class StopReason : std::uint16_t {
  None = 0,
  PoseTimeout = 1,        // no pose for longer than the timeout
  InvalidPoses = 2,       // too many invalid poses in a row, or a pose stream it cannot read
  HeartbeatLost = 3,      // the controller stopped sending
  CommandOutOfRange = 4,  // a command outside the joint range
  CommandRateLimit = 5,   // a command step faster than the joint rate limit
  MalformedCommand = 6,
  RobotFailure = 7,       // the drives or the engine failed (safety stop)
  Finished = 8,           // the reference ended
  Interrupted = 9,        // SIGINT, SIGTERM or SIGHUP: the operator, or `rig run` passing on its own
  HandshakeRefused = 10,  // a peer runs other files or speaks another version (before the run)
};

// What the robot reports at the camera rate: its state, why it stopped, the encoders.
struct StatusMessage {
  Header header;
  RobotState state = RobotState::Running;
  StopReason reason = StopReason::None;
  std::uint64_t last_command = 0;    // sequence number of the last command applied
  std::int64_t tick = 0;             // controller ticks run
  Vec6d theta = Vec6d::Zero();       // encoder angles (rad)
};

struct HeartbeatMessage {
  Header header;
};

// The roles of the rig and the files a run is made of, as the hello names them.
enum class Role : std::uint8_t { Robot = 1, Vision = 2, Control = 3 };
// Precorrection: the pre-corrected or learnt command the robot adds tick by tick (--precorrection).
enum class RunFile : std::uint8_t { Experiment = 0, Reference = 1, Robot = 2, Payload = 3, Precorrection = 4 };
inline constexpr std::size_t kRunFiles = 5;
using Digest = std::array<std::uint8_t, 32>;  // a SHA-256
std::string_view name_of(Role role);          // "robot", "vision", "control"
std::string_view name_of(RunFile file);       // "experiment", "reference", "robot file", "payload", "pre-correction"
// A SHA-256 in lower-case hex (64 digits) to its 32 bytes; nothing if it is not one.
std::optional<Digest> digest_from_hex(std::string_view hex);
std::string hex_of(const Digest& digest);

// The start handshake (docs/protocol.md, "Handshake"): who sends it and the SHA-256 of each
// file of the run it reads; none for a file it does not read or a run without it (no payload).
// The header's schema version is the version the role speaks.
// The clock a role runs (docs/protocol.md, "Two clocks"): the robot and control state theirs and
// must agree; vision follows the robot's ticks and states none.
enum class HelloClock : std::uint8_t { NotStated = 0, Lockstep = 1, Realtime = 2 };
std::string_view name_of(HelloClock clock);  // "lockstep", "realtime", "no clock"

struct HelloMessage {
  Header header;
  Role role = Role::Robot;
  HelloClock clock = HelloClock::NotStated;
  std::array<std::optional<Digest>, kRunFiles> files{};  // by RunFile
};

// The end of the run, said once by each role: the robot after its last tick (it then holds),
// vision after its last pose, control after its trace is written (the robot then exits).
// last_frame: the last camera frame the sender exposed, published or commanded (-1: none);
// count: the messages of its stream it sent in the run (exposures, poses, commands).
struct EndMessage {
  Header header;
  Role role = Role::Robot;
  std::int64_t last_frame = -1;
  std::uint64_t count = 0;
};

using Message = std::variant<PoseMessage, CommandMessage, StatusMessage, HeartbeatMessage, HelloMessage, EndMessage>;

// The frame's bytes. Body sizes: pose 72, command 56, status 72, heartbeat 0, hello 168, end 24
// (docs/protocol.md).
std::string encode(const Message& message);

// WrongStream: a well-formed message of a type its stream does not carry (Subscriber, `carries`).
enum class DecodeError { None, TooShort, BadMagic, BadVersion, BadChecksum, UnknownType, BadLength, NonFinite, BadEnum, WrongStream };
const char* describe(DecodeError error);

struct Decoded {
  std::optional<Message> message;
  DecodeError error = DecodeError::None;
  std::uint16_t version = kSchemaVersion;  // BadVersion: the version the (CRC-checked) frame states
  // NonFinite or BadEnum of a pose or command: its type and frame number, read before the fault
  // (a peer's message names the frame it dropped).
  std::optional<MessageType> type = std::nullopt;
  std::optional<std::int64_t> frame = std::nullopt;
};
Decoded decode(std::string_view frame);
// CRC-32 (zlib's) of a frame with its CRC field (bytes 12-15) taken as zero.
std::uint32_t frame_crc(std::string_view frame);

// The four streams of a rig and the types each carries (docs/protocol.md, "Streams and
// sockets"): camera and poses hello, pose, end; commands hello, command, heartbeat, end; status
// hello, status, end. Any: every type (a test's or a tool's subscriber that reads all).
enum class Stream { Any, Camera, Poses, Commands, Status };
bool carries(Stream stream, MessageType type);
std::string_view name_of(Stream stream);      // "camera", "poses", "commands", "status", "any"
std::string_view name_of(MessageType type);   // "pose", "command", "status", "heartbeat", "hello", "end"

MessageType type_of(const Message& message);
const Header& header_of(const Message& message);
std::string_view name_of(StopReason reason);

// Receive-side bookkeeping of one stream: frames, malformed ones, sequence gaps.
struct StreamCounters {
  std::uint64_t received = 0, malformed = 0, gaps = 0, duplicates = 0;
  std::optional<std::uint64_t> last_sequence;
  // Counts a decoded frame's sequence number: a jump counts the frames missed, a repeat or a
  // step back counts as a duplicate.
  void count(std::uint64_t sequence);
};

// A message's stamps (publish and exposure, steady clock of this host) judged at its receive
// time: Plausible, Ahead (after the receive: impossible on one clock), or Stale (more than
// kMaxStampAgeNs before it: another host's clock, an unset or hostile stamp such as -2^63 —
// no message takes an hour to arrive). Compared without forming a difference that could overflow.
enum class StampCheck { Plausible, Ahead, Stale };
constexpr std::int64_t kMaxStampAgeNs = 3600LL * 1000000000LL;
StampCheck check_stamp(std::int64_t stamp_ns, std::int64_t receive_ns);  // one stamp
StampCheck check_stamps(const Header& h, std::int64_t receive_ns);       // both: the worse of the two
// Publish -> receive (ms) of a message with plausible stamps, else nothing: the one place a
// latency is formed from a peer's stamps (rig listen, control's trace and summary).
std::optional<double> publish_to_receive_ms(const Header& h, std::int64_t receive_ns);

// Receive-side sanity of one pose stream, by what the poses say (frame numbers, time stamps),
// beside StreamCounters' sequence numbers: a pose whose frame number is not above the newest seen
// (the same frame again, with any pose, or out of order), frames skipped between two new ones,
// an exposure not after the previous new frame's, a publish or exposure stamp after the receive
// time (one steady clock: impossible, so the latency is not measured), a stamp more than an hour
// before it (stale: check_stamps). Counts never wrap.
struct FrameCounters {
  std::uint64_t frame_gaps = 0, repeated_frames = 0, exposure_backwards = 0, stamps_ahead = 0, stamps_stale = 0;
  std::optional<std::int64_t> newest_frame;
  std::optional<std::int64_t> newest_exposure_ns;
  // Counts pose p received at `receive_ns`; true when it is a new frame whose exposure is
  // plausible and after the previous one's (it counts for the rate; its latency, receive -
  // publish, measures something only if its publish stamp is plausible too: publish_to_receive_ms).
  bool count(const PoseMessage& p, std::int64_t receive_ns);
};

}  // namespace vcloe::bridge
