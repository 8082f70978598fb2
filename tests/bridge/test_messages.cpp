// Specification of bridge/messages (docs/protocol.md): every message round-trips exactly
// through its one-frame little-endian encoding, the layout is the documented one byte for
// byte, and no frame that is not a well-formed vcloe message is ever accepted — random bytes,
// truncations, extensions, a corrupted header, out-of-range flags, non-finite values.
#include <gtest/gtest.h>

#include <limits>

#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <tuple>

#include "vcloe/bridge/messages.hpp"

using namespace vcloe;
using namespace vcloe::bridge;

namespace {

Header header(std::uint64_t seq) { return {seq, 1'000'000'123 + static_cast<std::int64_t>(seq), 2'000'000'456}; }

PoseMessage pose(std::uint64_t seq) {
  PoseMessage m{header(seq)};
  m.frame = static_cast<std::int64_t>(seq);
  m.pose << 0.0134, 0.0041, 0.1818, 0.0209, 0.0176, -0.0097;
  m.registration_error = 3.2e-6;
  m.markers_used = 7;
  m.valid = true;
  return m;
}

std::vector<Message> examples() {
  CommandMessage c{header(3)};
  c.frame = -1;
  c.theta << 0.138, -0.115, -0.019, 0.116, -0.149, 0.069;
  StatusMessage s{header(4)};
  s.state = RobotState::Stopped;
  s.reason = StopReason::PoseTimeout;
  s.last_command = 41;
  s.tick = 12345;
  s.theta << 0.1, 0.2, 0.3, -0.1, -0.2, -0.3;
  HelloMessage h{header(6)};
  h.role = Role::Control;
  h.clock = HelloClock::Realtime;
  h.files[0] = digest_from_hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
  h.files[2] = digest_from_hex("ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100");
  h.files[4] = digest_from_hex("5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5aa5");
  EndMessage e{header(7)};
  e.role = Role::Vision;
  e.last_frame = 1999;
  e.count = 2000;
  return {pose(2), c, s, HeartbeatMessage{header(5)}, h, e};
}

// A frame with its CRC-32 recomputed after an edit (a peer that means what it sends).
std::string with_crc(std::string f) {
  const std::uint32_t crc = frame_crc(f);
  std::memcpy(f.data() + 12, &crc, 4);
  return f;
}

std::uint32_t test_crc32(const std::string& f) {  // bitwise CRC-32 (IEEE 802.3), the oracle
  std::uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : f) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

template <typename T>
T read_at(const std::string& f, std::size_t offset) {
  T v;
  std::memcpy(&v, f.data() + offset, sizeof(T));
  return v;
}

}  // namespace

TEST(Messages, EveryTypeRoundTripsExactly) {
  for (const Message& m : examples()) {
    const Decoded d = decode(encode(m));
    ASSERT_EQ(d.error, DecodeError::None) << describe(d.error);
    ASSERT_EQ(d.message->index(), m.index());
    EXPECT_EQ(encode(*d.message), encode(m));  // every field, bit for bit
    EXPECT_EQ(header_of(*d.message).sequence, header_of(m).sequence);
    EXPECT_EQ(header_of(*d.message).exposure_ns, header_of(m).exposure_ns);
  }
  const auto p = std::get<PoseMessage>(*decode(encode(pose(9))).message);
  EXPECT_EQ(p.pose, pose(9).pose);
  EXPECT_EQ(p.registration_error, 3.2e-6);
  EXPECT_EQ(p.markers_used, 7u);
  EXPECT_TRUE(p.valid);
}

TEST(Messages, LayoutIsTheDocumentedOne) {
  // docs/protocol.md: header = magic "VCLO", u16 version, u16 type, u32 body length, u32
  // CRC-32, u64 sequence, i64 exposure ns, i64 publish ns; pose body = i64 frame, 6 f64 pose,
  // f64 registration error, u32 markers, u8 valid, 3 zero bytes.
  const std::string f = encode(pose(77));
  ASSERT_EQ(f.size(), 40u + 72u);
  EXPECT_EQ(f.substr(0, 4), "VCLO");
  EXPECT_EQ(read_at<std::uint16_t>(f, 4), 3);  // schema version 3
  EXPECT_EQ(read_at<std::uint16_t>(f, 6), 1);  // pose
  EXPECT_EQ(read_at<std::uint32_t>(f, 8), 72u);
  std::string zeroed = f;
  std::memset(zeroed.data() + 12, 0, 4);
  EXPECT_EQ(read_at<std::uint32_t>(f, 12), test_crc32(zeroed));  // zlib.crc32 with the field zero
  EXPECT_EQ(read_at<std::uint64_t>(f, 16), 77u);
  EXPECT_EQ(read_at<std::int64_t>(f, 24), 1'000'000'200);
  EXPECT_EQ(read_at<std::int64_t>(f, 40), 77);
  EXPECT_EQ(read_at<double>(f, 48 + 2 * 8), 0.1818);  // z
  EXPECT_EQ(read_at<double>(f, 96), 3.2e-6);
  EXPECT_EQ(read_at<std::uint32_t>(f, 104), 7u);
  EXPECT_EQ(read_at<std::uint8_t>(f, 108), 1);
  EXPECT_EQ(encode(examples()[1]).size(), 40u + 56u);
  EXPECT_EQ(encode(examples()[2]).size(), 40u + 72u);
  EXPECT_EQ(encode(examples()[3]).size(), 40u);
  // hello body = u8 role, u8 files stated (bit k: file k), 6 zero bytes, 5 x 32-byte SHA-256
  // (experiment, reference, robot file, payload, pre-correction; zero when not stated).
  const std::string h = encode(examples()[4]);
  ASSERT_EQ(h.size(), 40u + 168u);
  EXPECT_EQ(read_at<std::uint16_t>(h, 6), 5);
  EXPECT_EQ(read_at<std::uint32_t>(h, 8), 168u);
  EXPECT_EQ(read_at<std::uint8_t>(h, 40), 3);        // control
  EXPECT_EQ(read_at<std::uint8_t>(h, 41), 0b10101);  // experiment, robot file and pre-correction
  EXPECT_EQ(read_at<std::uint8_t>(h, 48), 0x00);     // experiment digest, first byte
  EXPECT_EQ(read_at<std::uint8_t>(h, 48 + 31), 0x1f);
  EXPECT_EQ(h.substr(80, 32), std::string(32, '\0'));  // reference: not stated
  EXPECT_EQ(read_at<std::uint8_t>(h, 112), 0xff);    // robot file digest
  EXPECT_EQ(h.substr(144, 32), std::string(32, '\0'));  // payload: not stated
  EXPECT_EQ(read_at<std::uint8_t>(h, 176), 0x5a);    // pre-correction digest, first byte
  EXPECT_EQ(read_at<std::uint8_t>(h, 176 + 31), 0xa5);
  // end body = u8 role, 7 zero bytes, i64 last frame, u64 count.
  const std::string e = encode(examples()[5]);
  ASSERT_EQ(e.size(), 40u + 24u);
  EXPECT_EQ(read_at<std::uint16_t>(e, 6), 6);
  EXPECT_EQ(read_at<std::uint8_t>(e, 40), 2);  // vision
  EXPECT_EQ(read_at<std::int64_t>(e, 48), 1999);
  EXPECT_EQ(read_at<std::uint64_t>(e, 56), 2000u);
}

TEST(Messages, AHelloOrEndThatSaysNothingOrTwoThingsIsRefused) {
  const std::string h = encode(examples()[4]), e = encode(examples()[5]);
  auto edited = [](std::string f, std::size_t at, std::uint8_t v) {
    f[at] = static_cast<char>(v);
    return with_crc(f);
  };
  EXPECT_EQ(decode(edited(h, 40, 0)).error, DecodeError::BadEnum) << "role 0";
  EXPECT_EQ(decode(edited(h, 40, 4)).error, DecodeError::BadEnum) << "role 4";
  EXPECT_EQ(decode(edited(h, 41, 0x35)).error, DecodeError::BadEnum) << "a sixth file";
  EXPECT_EQ(decode(edited(h, 42, 3)).error, DecodeError::BadEnum) << "clock 3";
  EXPECT_EQ(decode(edited(h, 80, 1)).error, DecodeError::BadEnum) << "a digest for a file not stated";
  EXPECT_EQ(decode(edited(e, 40, 9)).error, DecodeError::BadEnum) << "end of role 9";
  std::string before = e;
  const std::int64_t minus_two = -2;
  std::memcpy(before.data() + 48, &minus_two, 8);
  EXPECT_EQ(decode(with_crc(before)).error, DecodeError::BadEnum) << "a last frame before -1";
  EXPECT_EQ(decode(edited(h, 41, 0)).error, DecodeError::BadEnum) << "digests of files no longer stated";
  HelloMessage none;  // nothing stated: a hello of a role reading no file
  none.role = Role::Vision;
  const auto d = decode(encode(none));
  ASSERT_EQ(d.error, DecodeError::None);
  for (const auto& f : std::get<HelloMessage>(*d.message).files) EXPECT_FALSE(f);
  EXPECT_FALSE(digest_from_hex("0g" + std::string(62, '0')));
  EXPECT_FALSE(digest_from_hex(std::string(63, '0')));
  EXPECT_EQ(hex_of(*digest_from_hex(std::string(64, 'a'))), std::string(64, 'a'));
}

TEST(Messages, TenThousandRandomAndMutatedFramesAreAllRefused) {
  std::mt19937_64 rng(2026);
  std::uniform_int_distribution<int> byte(0, 255);
  int refused = 0, tried = 0;
  auto expect_refused = [&](const std::string& f, const char* what) {
    ++tried;
    const Decoded d = decode(f);
    if (d.error != DecodeError::None) ++refused;
    else ADD_FAILURE() << what << ": accepted a " << f.size() << "-byte frame";
  };
  const std::vector<Message> valid = examples();
  for (int n = 0; n < 2000; ++n) {
    std::string f(static_cast<std::size_t>(std::uniform_int_distribution<int>(0, 200)(rng)), '\0');
    for (char& c : f) c = static_cast<char>(byte(rng));
    expect_refused(f, "random bytes");
    const std::string good = encode(valid[static_cast<std::size_t>(n) % valid.size()]);
    std::string t = good.substr(0, static_cast<std::size_t>(rng() % good.size()));  // truncated
    expect_refused(t, "truncated");
    std::string e = good + std::string(1 + rng() % 16, 'x');  // extended
    expect_refused(e, "extended");
    std::string h = good;  // any byte corrupted (header or body): the CRC-32 catches it
    const std::size_t at = static_cast<std::size_t>(rng() % good.size());
    h[at] = static_cast<char>(h[at] ^ static_cast<char>(1 + rng() % 255));
    expect_refused(h, "corrupted byte");
    PoseMessage p = pose(static_cast<std::uint64_t>(n));  // non-finite values in a valid pose
    p.pose(static_cast<int>(rng() % 6)) = (n % 2) ? std::numeric_limits<double>::quiet_NaN()
                                                  : std::numeric_limits<double>::infinity();
    expect_refused(encode(p), "non-finite pose");
    StatusMessage st;  // a status's encoders likewise (probe 34, F008: NaN encoders decoded as valid)
    st.theta(static_cast<int>(rng() % 6)) = (n % 2) ? std::numeric_limits<double>::quiet_NaN()
                                                    : -std::numeric_limits<double>::infinity();
    EXPECT_EQ(decode(encode(st)).error, DecodeError::NonFinite);
  }
  std::string flag = encode(pose(1));
  flag[108] = 2;  // valid must be 0 or 1 (with a correct CRC: refused for the flag itself)
  const std::uint32_t crc = read_at<std::uint32_t>(flag, 12);
  std::memset(flag.data() + 12, 0, 4);
  const std::uint32_t fixed = test_crc32(flag);
  std::memcpy(flag.data() + 12, &fixed, 4);
  EXPECT_NE(fixed, crc);
  EXPECT_EQ(decode(flag).error, DecodeError::BadEnum);
  EXPECT_EQ(refused, tried);
  EXPECT_GE(tried, 10000);
}

TEST(Messages, AnInvalidPoseMayCarryNoPose) {
  PoseMessage p = pose(3);
  p.valid = false;  // occluded: the pose fields are not to be used, whatever they hold
  p.pose.setConstant(std::numeric_limits<double>::quiet_NaN());
  const Decoded d = decode(encode(p));
  ASSERT_EQ(d.error, DecodeError::None);
  EXPECT_FALSE(std::get<PoseMessage>(*d.message).valid);
}

TEST(StreamCounters, CountsGapsAndDuplicatesNeverHidesThem) {
  StreamCounters c;
  for (std::uint64_t s : {0, 1, 2, 5, 6, 6, 4, 7}) c.count(s);
  EXPECT_EQ(c.received, 8u);
  EXPECT_EQ(c.gaps, 2u);        // 3 and 4 were missing when 5 came
  EXPECT_EQ(c.duplicates, 2u);  // 6 again, then 4 late
  EXPECT_EQ(*c.last_sequence, 7u);
}

namespace {
std::string repr(double v) {  // Python's repr of a float: the shortest round-trip form
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}
std::string joined(const Vec6d& v) {
  std::string s;
  for (int i = 0; i < 6; ++i) s += (i ? "," : "") + repr(v(i));
  return s;
}
}  // namespace

TEST(Messages, APythonDecoderWrittenFromTheDocReadsEveryType) {
  // tests/bridge/decode_frames.py uses only docs/protocol.md (struct layouts, zlib.crc32).
  const std::string file = "/tmp/vcloe-frames-" + std::to_string(::getpid()) + ".bin";
  std::vector<std::string> expected;
  {
    std::ofstream out(file, std::ios::binary);
    auto put = [&](const std::string& frame) {
      const auto n = static_cast<std::uint32_t>(frame.size());
      out.write(reinterpret_cast<const char*>(&n), 4);
      out << frame;
    };
    for (const Message& m : examples()) put(encode(m));
    std::string bad = encode(pose(1));
    bad[60] ^= 1;
    put(bad);
    const PoseMessage p = std::get<PoseMessage>(examples()[0]);
    const CommandMessage c = std::get<CommandMessage>(examples()[1]);
    const StatusMessage s = std::get<StatusMessage>(examples()[2]);
    const HelloMessage h = std::get<HelloMessage>(examples()[4]);
    const EndMessage e = std::get<EndMessage>(examples()[5]);
    auto head = [](const Header& h) {
      return "seq=" + std::to_string(h.sequence) + " exposure_ns=" + std::to_string(h.exposure_ns);
    };
    expected = {"pose " + head(p.header) + " frame=" + std::to_string(p.frame) + " pose=" + joined(p.pose) +
                    " fre=" + repr(p.registration_error) + " markers=7 valid=1",
                "command " + head(c.header) + " frame=-1 theta=" + joined(c.theta),
                "status " + head(s.header) + " state=1 reason=1 last_command=41 tick=12345 theta=" + joined(s.theta),
                "heartbeat " + head(std::get<HeartbeatMessage>(examples()[3]).header),
                "hello " + head(h.header) + " role=3 clock=2 experiment=" + hex_of(*h.files[0]) + " reference=- robot=" +
                    hex_of(*h.files[2]) + " payload=- precorrection=" + hex_of(*h.files[4]),
                "end " + head(e.header) + " role=2 last_frame=1999 count=2000", "MALFORMED crc"};
  }
  FILE* p = popen(("/usr/bin/python3 " + std::string(VCLOE_SOURCE_DIR) + "/tests/bridge/decode_frames.py " + file).c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << out;
  std::vector<std::string> lines;
  std::stringstream ss(out);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  EXPECT_EQ(lines, expected);
  std::remove(file.c_str());
}

namespace {
PoseMessage frame_at(std::int64_t frame, std::int64_t exposure_ns, std::int64_t publish_ns) {
  PoseMessage p;
  p.frame = frame;
  p.header.exposure_ns = exposure_ns;
  p.header.publish_ns = publish_ns;
  p.valid = true;
  return p;
}
}  // namespace

// What the poses say is checked and counted, not only their sequence numbers: each case below
// was counted 0 (or negative) by `rig listen` and the recorder before.
TEST(FrameCounters, AFrameJumpBy2To40IsCountedInFullNotWrappedToZero) {
  FrameCounters c;
  EXPECT_TRUE(c.count(frame_at(7, 100, 110), 120));
  EXPECT_TRUE(c.count(frame_at(7 + (std::int64_t{1} << 40), 200, 210), 220));
  EXPECT_EQ(c.frame_gaps, (std::uint64_t{1} << 40) - 1);
  // The widest jump an int64 allows, then more: saturates, never wraps.
  FrameCounters w;
  w.count(frame_at(INT64_MIN, 1, 2), 3);
  w.count(frame_at(INT64_MAX, 4, 5), 6);
  EXPECT_EQ(w.frame_gaps, UINT64_MAX - 1);
  FrameCounters s;
  s.frame_gaps = UINT64_MAX - 3;
  s.count(frame_at(0, 1, 2), 3);
  s.count(frame_at(100, 4, 5), 6);
  EXPECT_EQ(s.frame_gaps, UINT64_MAX);
}

TEST(FrameCounters, EveryFrameSentTwiceWithAnotherPoseIsCountedAsRepeated) {
  FrameCounters c;
  for (std::int64_t j = 0; j < 50; ++j) {
    PoseMessage p = frame_at(j, 1000 * j, 1000 * j + 1);
    EXPECT_TRUE(c.count(p, 1000 * j + 2));
    p.pose(0) = 1.0;  // another pose, same frame (and a fresh sequence number: not a duplicate there)
    EXPECT_FALSE(c.count(p, 1000 * j + 3));
  }
  EXPECT_EQ(c.repeated_frames, 50u);
  EXPECT_EQ(c.frame_gaps, 0u);
  EXPECT_FALSE(c.count(frame_at(3, 1000000, 1000000), 2000000)) << "an old frame, out of order";
  EXPECT_EQ(c.repeated_frames, 51u);
}

TEST(FrameCounters, ExposuresGoingBackwardsAndStampsAheadOfTheReceiveTimeAreCounted) {
  FrameCounters c;
  EXPECT_TRUE(c.count(frame_at(0, 5000, 5100), 5200));
  EXPECT_FALSE(c.count(frame_at(1, 4000, 5300), 5400)) << "exposed before frame 0";
  EXPECT_FALSE(c.count(frame_at(2, 5000, 5500), 5600)) << "exposed at frame 0's time: not after it";
  EXPECT_EQ(c.exposure_backwards, 2u);
  EXPECT_TRUE(c.count(frame_at(3, 6000, 6100), 6200)) << "the stream recovers";
  const std::int64_t eleven_days = 11LL * 86400 * 1000000000;
  // Published 11 days after it was received: no latency, but its exposure counts for the rate
  // (session 28's probe, F: such a stream of clean exposures showed a rate of 0).
  EXPECT_TRUE(c.count(frame_at(4, 7000, 7000 + eleven_days), 7200)) << "published 11 days after it was received";
  EXPECT_FALSE(publish_to_receive_ms(frame_at(4, 7000, 7000 + eleven_days).header, 7200));
  EXPECT_FALSE(c.count(frame_at(5, 8000 + eleven_days, 8100), 8200)) << "exposed after it was received";
  EXPECT_EQ(c.stamps_ahead, 2u);
  EXPECT_TRUE(c.count(frame_at(6, 9000, 9100), 9200)) << "a stamp far ahead did not become the newest exposure";
  EXPECT_EQ(c.exposure_backwards, 2u);
}

// Stamps no clock of this host gives — -2^63, 0 or an hour old at a receive time hours into the
// uptime, as another host's clock would — are stale: counted, their latency never formed (rig
// listen printed "latency p50 -9223308990895.33 ms" for publish_ns -2^63; probe 19's class E).
TEST(FrameCounters, StaleStampsAreCountedAndGiveNoLatencyWhateverTheirValue) {
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min(), kMax = std::numeric_limits<std::int64_t>::max();
  const std::int64_t receive = 5LL * 3600 * 1000000000;  // 5 h after boot
  FrameCounters c;
  EXPECT_TRUE(c.count(frame_at(0, receive - 2000000, receive - 1000000), receive));
  ASSERT_TRUE(publish_to_receive_ms(frame_at(0, receive - 2000000, receive - 1000000).header, receive));
  EXPECT_DOUBLE_EQ(*publish_to_receive_ms(frame_at(0, receive - 2000000, receive - 1000000).header, receive), 1.0);
  // (exposure, publish, whether the exposure counts for the rate: only a stale publish stamp)
  const std::tuple<std::int64_t, std::int64_t, bool> stale[] = {
      {receive - 999, kMin, true}, {kMin, receive - 1000, false}, {kMin, kMin, false}, {receive - 996, 0, true},
      {0, receive - 1000, false}, {receive - 994, receive - kMaxStampAgeNs - 1, true}};
  std::int64_t frame = 1;
  for (const auto& [exposure, publish, rate] : stale) {
    const PoseMessage p = frame_at(frame++, exposure, publish);
    EXPECT_EQ(check_stamps(p.header, receive), StampCheck::Stale) << exposure << " " << publish;
    EXPECT_FALSE(publish_to_receive_ms(p.header, receive)) << exposure << " " << publish;
    EXPECT_EQ(c.count(p, receive), rate) << exposure << " " << publish;
  }
  EXPECT_EQ(c.stamps_stale, 6u);
  EXPECT_EQ(c.stamps_ahead, 0u);
  // Ahead stays ahead, at any receive time, the extremes included; an hour old exactly is plausible.
  EXPECT_EQ(check_stamps(frame_at(9, kMin, kMax).header, receive), StampCheck::Ahead);
  EXPECT_EQ(check_stamps(frame_at(9, kMin, kMin).header, kMin), StampCheck::Stale);
  EXPECT_EQ(check_stamps(frame_at(9, kMax, kMax).header, kMax), StampCheck::Plausible);
  EXPECT_EQ(check_stamps(frame_at(9, receive - kMaxStampAgeNs, receive).header, receive), StampCheck::Plausible);
  EXPECT_TRUE(c.count(frame_at(frame, receive - 500, receive - 400), receive)) << "a stale stamp did not become the newest exposure";
  // An unset publish stamp (0) on a host up less than an hour is no hour-old stamp either (probe
  // 31, L006: a latency of 1.89e6 ms); a run-relative exposure stamp of 0 is an exposure.
  const std::int64_t half_hour = kMaxStampAgeNs / 2;
  EXPECT_EQ(check_stamps(frame_at(1, half_hour - 100, 0).header, half_hour), StampCheck::Stale);
  EXPECT_FALSE(publish_to_receive_ms(frame_at(1, half_hour - 100, 0).header, half_hour));
  EXPECT_EQ(check_stamps(frame_at(1, 0, half_hour - 100).header, half_hour), StampCheck::Plausible);
}

// A frame of another schema version that checks (a peer speaking it) is told from noise: its
// version is reported, so a half-upgraded rig is refused by name instead of timing out.
TEST(Messages, AWellFormedFrameOfAnotherVersionIsReportedWithItsVersion) {
  for (const std::uint16_t version : {std::uint16_t{0}, std::uint16_t{1}, std::uint16_t{2}, std::uint16_t{65535}}) {
    std::string f = encode(HeartbeatMessage{});
    std::memcpy(f.data() + 4, &version, 2);
    const Decoded d = decode(with_crc(f));
    EXPECT_EQ(d.error, DecodeError::BadVersion);
    EXPECT_EQ(d.version, version);
    EXPECT_FALSE(d.message);
  }
  std::string noise = encode(HeartbeatMessage{});
  noise[4] ^= 3;  // a version byte flipped on the way: the CRC says noise
  EXPECT_EQ(decode(noise).error, DecodeError::BadChecksum);
}
