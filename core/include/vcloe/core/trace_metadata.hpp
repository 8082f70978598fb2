#pragma once
// vcloe/core/trace_metadata.hpp — a trace's sidecar (`<trace>.meta.json`, docs/traces.md) as
// one typed value: what recorded the trace, on which timing, from which files, with which
// camera, noise, engine, payload, filter. One writer (TraceMetadata -> the sidecar's JSON) and
// one reader (the sidecar's JSON -> TraceMetadata, every field's type and range checked, an
// error naming the sidecar and the key). A field is optional: absent, it is not written.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "vcloe/core/file_record.hpp"
#include "vcloe/core/rotation.hpp"

namespace vcloe {

inline constexpr const char* kTraceFormat = "vcloe-trace-1";
// The `source` a vcloe sidecar records (docs/traces.md): the twin (`simulate`), the virtual robot
// (`run`), the live rig (`control`, `rig run`), stereo poses (`measure`), true poses (`render`).
// Read from a sidecar that states the format, nothing else is taken; one without `format` (another
// tool's export) may name itself.
inline const std::vector<std::string> kTraceSources = {"twin", "virtual", "rig", "measure", "render"};
// The rig's clocks (docs/protocol.md), the `clock` a live rig's sidecar records.
inline const std::vector<std::string> kRigClocks = {"lockstep", "realtime"};

struct EngineRecord {  // the virtual robot's physics engine
  std::string name;
  double timestep_s = 0;
};
struct PayloadRecord {  // a known payload bolted to the platform
  double mass = 0;      // kg
  Vec3d inertia = Vec3d::Zero();  // kg m^2, principal moments
};
struct CameraRecord {  // the virtual stereo camera (`run --camera stereo`)
  std::string model;
  double centroid_noise_px = 0;
  FileRecord rig, markers;
  std::int64_t frames = 0, invalid_frames = 0;
};
struct FilterRecord {  // `vcloe filter`
  std::string type;
  std::int64_t order = 0, padlen = 0;
  double cutoff_hz = 0, sample_rate_hz = 0;
  FileRecord input;
};
struct EndpointsRecord {  // the live rig's streams (`vcloe control`)
  std::string poses, commands, status;
};
struct StreamRecord {  // what the recorder received (`vcloe control`)
  std::uint64_t poses_received = 0, sequence_gaps = 0, duplicates = 0, malformed = 0, status_malformed = 0;
  std::vector<std::int64_t> missing_frames, invalid_frames;
  double latency_p50_ms = 0, latency_p99_ms = 0, latency_max_ms = 0;  // NaN: none measured (null)
  std::vector<double> receive_s, publish_to_receive_ms;
};
// The q-quantile (0 to 1: the element at floor(q (n - 1)) of the sorted list) of the latencies
// measured — the entries >= 0 of publish_to_receive_ms, -1 being none — or NaN when none was: the
// one rule of a stream record's latency_ms (control writes them, the one reader checks them) and
// of `rig listen`'s figures.
double latency_quantile(const std::vector<double>& ms, double q);

struct StreamChecksRecord {  // what the poses said, checked (`vcloe control`, bridge::FrameCounters)
  std::uint64_t repeated_frames = 0;     // a frame number not above the newest received
  std::uint64_t exposure_backwards = 0;  // an exposure not after the previous new frame's
  std::uint64_t stamps_ahead = 0;        // a publish or exposure stamp after the receive time
  std::optional<std::uint64_t> stamps_stale;  // one over an hour before it (another clock, -2^63); absent before probe 19
};
struct StoppedRecord {  // a recording the robot ended early
  std::string reason;
  std::int64_t frames = 0;
  double time_s = 0;
};

struct TraceMetadata {
  std::optional<std::string> format;            // kTraceFormat
  std::optional<std::string> source;            // twin | virtual | rig | measure | render
  std::optional<std::string> software_version;
  std::optional<std::string> note;
  // Timing (servo::LoopTiming) and the run's length and outer-law form.
  std::optional<double> controller_hz, camera_hz, latency_s, duration_s;
  std::optional<std::int64_t> substeps;
  std::optional<std::string> outer_form;        // feedforward | literal
  // The files the trace was made from.
  std::optional<FileRecord> robot, experiment, reference, truth, rig, markers;
  // The pre-corrected (or learnt) joint command the run's robot was driven with (`--precorrection`,
  // docs/control.md): whatever re-runs the twin on this trace must drive it with the same.
  std::optional<FileRecord> precorrection;
  // The virtual robot and its camera.
  std::optional<std::uint64_t> seed;
  std::optional<Vec6d> noise_sigma;             // m x3, rad x3
  std::optional<EngineRecord> engine;
  std::optional<PayloadRecord> payload;
  std::optional<CameraRecord> camera;
  // `measure` and `render`.
  std::optional<std::uint64_t> frames;
  std::optional<std::vector<std::int64_t>> missing_frames;
  std::optional<std::int64_t> invalid_frames;
  std::optional<double> noise_dn, blur_px;
  std::optional<FilterRecord> filter;
  // The live rig (`vcloe control`).
  std::optional<std::string> clock;
  std::optional<EndpointsRecord> endpoints;
  std::optional<StreamRecord> stream;
  std::optional<StreamChecksRecord> stream_checks;
  std::optional<StoppedRecord> stopped;
  // The CSV's SHA-256, set by write_trace (hex, as recorded).
  std::optional<std::string> csv_sha256;
  // Keys vcloe does not write (another tool's), kept as they were.
  nlohmann::json other = nlohmann::json::object();
};

// The writer: the sidecar's JSON object (write_trace dumps it with 2-space indents).
nlohmann::json to_json(const TraceMetadata& metadata);
// The reader: the sidecar's JSON (an object) to the struct; a vcloe::Error naming `name` and
// the key for a field of the wrong type or out of its range.
TraceMetadata trace_metadata_from_json(const nlohmann::json& sidecar, const std::string& name);

}  // namespace vcloe
