// `vcloe rig listen` (rig::listen): shows a live pose stream (docs/protocol.md) — its rate, its publish ->
// receive latency, gaps, duplicates, malformed frames and invalid poses — for a user checking a
// tracker or the vision process before an experiment. One line a second; a summary at the end.
#include <zmq.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "vcloe/bridge/transport.hpp"
#include "vcloe/core/trace_metadata.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/rig/common.hpp"
#include "vcloe/rig/serve.hpp"

namespace vcloe::rig {

namespace {

struct Stream {
  std::vector<double> latency_ms;  // publish -> receive, same steady clock (sane poses only)
  std::int64_t first_ns = 0, last_ns = 0;  // exposures of the first and last sane pose
  int poses = 0, invalid = 0, sane = 0;
  bridge::FrameCounters frames;  // frame numbers and stamps checked (bridge/messages.hpp)
  // NaN (JSON null, "n/a") when no pose had plausible stamps: nothing was measured, not 0 ms.
  double quantile(double q) const { return latency_quantile(latency_ms, q); }
  // From the exposures of new frames with sane exposures only (strictly increasing: never
  // negative); NaN (null, "n/a") with fewer than two: nothing was measured, not 0 Hz.
  double rate_hz() const {
    return sane > 1 ? (sane - 1) / ((last_ns - first_ns) * 1e-9) : std::numeric_limits<double>::quiet_NaN();
  }
};

nlohmann::json summary(Stream& s, bridge::Subscriber& sub) {
  const bridge::StreamCounters& c = sub.counters(bridge::MessageType::Pose);
  return {{"poses", s.poses},
          {"invalid_poses", s.invalid},
          {"rate_hz", s.rate_hz()},
          {"latency_ms", {{"p50", s.quantile(0.5)}, {"p99", s.quantile(0.99)}, {"max", s.quantile(1.0)}}},
          {"frame_gaps", s.frames.frame_gaps},  // camera frames the source never sent
          {"repeated_frames", s.frames.repeated_frames},  // a frame number again (any pose) or out of order
          {"exposure_backwards", s.frames.exposure_backwards},
          {"stamps_ahead", s.frames.stamps_ahead},  // stamped after their receive time: no latency
          {"stamps_stale", s.frames.stamps_stale},  // stamped over an hour before it (-2^63, 0): no latency
          {"sequence_gaps", c.gaps},     // messages lost between sender and listener
          {"duplicates", c.duplicates},
          {"malformed", sub.malformed()}};
}

}  // namespace

std::optional<SettingProblem> ListenOptions::problem() const {
  auto bad = [](const std::string& key, const std::string& what) { return SettingProblem{key, key + ": " + what}; };
  if (endpoint.empty()) return bad("--endpoint", "expected ipc://PATH or tcp://HOST:PORT");
  if (!(seconds > 0) || seconds > 86400) return bad("--seconds", "expected a duration in (0, 86400] s");
  if (frames < 0) return bad("--frames", "expected a non-negative count");
  return std::nullopt;
}

void ListenOptions::validate(const std::string& where) const { throw_if(problem(), where); }

void listen(const ListenOptions& o) {
  o.validate();
  zmq::context_t context;
  bridge::Security security;  // with --keys: the listener's pair, talking to vision's key only
  if (!o.keys.empty()) {
    const bridge::RoleKeys k = bridge::load_role_keys(o.keys, bridge::kListener);
    security.own = k.own;
    security.server_key = k.public_keys.at("vision");
  }
  bridge::Subscriber sub(context, o.endpoint, bridge::Subscriber::Keep::All, 100000, security, bridge::Stream::Poses);
  Stream s;
  using Clock = std::chrono::steady_clock;
  const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  auto next_line = Clock::now() + std::chrono::seconds(1);
  while (Clock::now() < end && (o.frames == 0 || s.poses < o.frames)) {
    const auto m = sub.receive(std::chrono::milliseconds(100));
    if (m && std::holds_alternative<bridge::PoseMessage>(*m)) {
      const auto& p = std::get<bridge::PoseMessage>(*m);
      const std::int64_t now = bridge::steady_now_ns();
      ++s.poses;
      s.invalid += !p.valid;
      if (s.frames.count(p, now)) {
        if (const auto ms = bridge::publish_to_receive_ms(p.header, now)) s.latency_ms.push_back(*ms);
        s.first_ns = s.sane == 0 ? p.header.exposure_ns : s.first_ns;
        s.last_ns = p.header.exposure_ns;
        ++s.sane;
      }
    }
    if (!o.json && Clock::now() >= next_line) {
      next_line += std::chrono::seconds(1);
      const nlohmann::json j = summary(s, sub);
      std::cout << std::fixed << std::setprecision(2) << "poses " << s.poses << "  rate ";
      if (std::isnan(s.rate_hz())) std::cout << "n/a (fewer than two frames with plausible exposures)  latency ";
      else std::cout << s.rate_hz() << " Hz  latency ";
      if (s.latency_ms.empty()) std::cout << "n/a (no pose with plausible stamps)";
      else std::cout << "p50 " << s.quantile(0.5) << " ms  p99 " << s.quantile(0.99) << " ms";
      std::cout << "  frame gaps " << s.frames.frame_gaps << "  repeated " << s.frames.repeated_frames << "  lost " << j["sequence_gaps"] << "  invalid " << s.invalid << "  malformed " << j["malformed"] << "\n"
                << std::flush;
    }
  }
  const nlohmann::json j = summary(s, sub);
  if (o.json) std::cout << j.dump(2) << "\n";
  else std::cout << "summary: " << j.dump() << "\n";
  // A stream of another schema version is no stream of poses to this listener: said by its version, as the roles
  // say it (protocol.md, "Versions"; probe 26's k7-oldversion: "no pose received" alone).
  if (const std::string v = version_problem(sub, "the pose source", o.endpoint, "listener"); s.poses == 0 && !v.empty())
    fail(o.endpoint, "no pose received in " + exact_number(o.seconds) + " s: " + v);
  // Frames that came and could not be used are said (probe 35: NaN poses, status frames on the
  // pose stream, junk, all ended in "no pose received" alone).
  if (s.poses == 0) fail(o.endpoint, "no pose received in " + exact_number(o.seconds) + " s" + dropped_meanwhile(&sub));
}

}  // namespace vcloe::rig
