#include "vcloe/bridge/messages.hpp"
#include "vcloe/bridge/transport.hpp"

// What a receiver counts of a stream (docs/protocol.md, "Checking a pose stream" and "Streams and sockets"): sequence
// gaps and duplicates, frames repeated or skipped, stamps ahead of the receiver's clock or stale,
// exposures going backwards. The frames themselves are messages.cpp.

#include <limits>

namespace vcloe::bridge {

void StreamCounters::count(std::uint64_t sequence) {
  ++received;
  if (last_sequence && sequence <= *last_sequence) {
    ++duplicates;
    return;
  }
  if (last_sequence && sequence > *last_sequence + 1) gaps += sequence - *last_sequence - 1;
  last_sequence = sequence;
}

StampCheck check_stamp(std::int64_t stamp_ns, std::int64_t receive_ns) {
  if (stamp_ns > receive_ns) return StampCheck::Ahead;
  // receive - stamp > age without the difference: receive - age cannot overflow for a receive
  // time of this host's steady clock (>= 0), and a negative receive time has no stale stamp.
  if (receive_ns >= 0) return stamp_ns < receive_ns - kMaxStampAgeNs ? StampCheck::Stale : StampCheck::Plausible;
  return stamp_ns < std::numeric_limits<std::int64_t>::min() + kMaxStampAgeNs ? StampCheck::Stale : StampCheck::Plausible;
}

StampCheck check_stamps(const Header& h, std::int64_t receive_ns) {
  // A publish stamp is the sender's steady clock when it sent (transport.cpp): never 0 or before
  // its boot. 0 or less is a stamp never set, not an old one — on a host up less than the hour
  // of kMaxStampAgeNs it passed as an age (probe 31, L006: 1.89e6 ms). Exposure stamps may be
  // run-relative (the virtual camera's start at 0) and are judged by age alone.
  const StampCheck publish = h.publish_ns <= 0 ? StampCheck::Stale : check_stamp(h.publish_ns, receive_ns);
  const StampCheck exposure = check_stamp(h.exposure_ns, receive_ns);
  if (publish == StampCheck::Ahead || exposure == StampCheck::Ahead) return StampCheck::Ahead;
  if (publish == StampCheck::Stale || exposure == StampCheck::Stale) return StampCheck::Stale;
  return StampCheck::Plausible;
}

std::optional<double> publish_to_receive_ms(const Header& h, std::int64_t receive_ns) {
  if (check_stamps(h, receive_ns) != StampCheck::Plausible) return std::nullopt;
  return static_cast<double>(receive_ns - h.publish_ns) * 1e-6;  // in [0, 1 h]: no overflow
}

bool FrameCounters::count(const PoseMessage& p, std::int64_t receive_ns) {
  const StampCheck stamps = check_stamps(p.header, receive_ns);
  // The rate is the exposures': a publish stamp ahead or stale costs the latency only (session
  // 28's probe, F: publish stamps 11 days ahead of clean 100 Hz exposures gave a rate of 0).
  const bool ahead = check_stamp(p.header.exposure_ns, receive_ns) != StampCheck::Plausible;
  stamps_ahead += stamps == StampCheck::Ahead;
  stamps_stale += stamps == StampCheck::Stale;
  if (newest_frame && p.frame <= *newest_frame) {
    ++repeated_frames;
    return false;
  }
  constexpr std::uint64_t kMost = std::numeric_limits<std::uint64_t>::max();
  if (newest_frame) {  // a difference of two int64 may not fit: counted in unsigned, saturating
    const std::uint64_t skipped = static_cast<std::uint64_t>(p.frame) - static_cast<std::uint64_t>(*newest_frame) - 1;
    frame_gaps = skipped > kMost - frame_gaps ? kMost : frame_gaps + skipped;
  }
  newest_frame = p.frame;
  const bool backwards = newest_exposure_ns && p.header.exposure_ns <= *newest_exposure_ns;
  exposure_backwards += backwards;
  if (!backwards && !ahead) newest_exposure_ns = p.header.exposure_ns;
  return !backwards && !ahead;
}

}  // namespace vcloe::bridge
