#include "vcloe/core/trace.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <tuple>
#include <utility>
#include <vector>

#include "vcloe/core/error.hpp"
#include "vcloe/core/experiment_copies.hpp"
#include "vcloe/core/input_file.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/core/recorded_files.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "trace_columns.hpp"

namespace vcloe {

std::string sidecar_path(const std::string& trace_path) { return trace_path + ".meta.json"; }

const SidecarKind kPoseTraceSidecar = {kTraceFormat, "a pose trace",
                                       "the command that wrote it (vcloe simulate, run, measure, filter or rig run)", true};

namespace {
namespace fs = std::filesystem;
void check_rows_cover_duration(const std::vector<double>& time, const TraceMetadata& m, const std::string& meta);
}  // namespace

nlohmann::json file_entry(const std::string& path) { return to_json(file_record(path)); }

std::optional<RecordedFile> recorded_file(const std::optional<FileRecord>& entry, const std::string& key,
                                          const std::string& trace_path) {
  if (!entry || entry->none()) return std::nullopt;
  const std::string where = sidecar_path(trace_path);
  RecordedFile f = *entry;
  // The non-throwing overloads: a recorded path the system refuses (too long, a component not a
  // directory) is "not found", not a library exception (found by fuzz/fuzz_sidecar).
  std::error_code ec;
  f.path = resolve_recorded_path(f.path, trace_path);
  if (!fs::exists(f.path, ec)) fail(f.path, "recorded in " + where + " as the " + key + " file, not found");
  if (!fs::is_regular_file(f.path, ec))
    fail(f.path, "recorded in " + where + " as the " + key + " file, is not a regular file");
  return f;
}

std::optional<RecordedFile> recorded_file(const PoseTrace& t, const std::string& key, const std::string& trace_path) {
  const TraceMetadata& m = t.metadata;
  for (const auto& [name, entry] : {std::pair{"robot", &m.robot}, {"experiment", &m.experiment},
                                    {"reference", &m.reference}, {"truth", &m.truth}, {"rig", &m.rig},
                                    {"markers", &m.markers}, {"precorrection", &m.precorrection}})
    if (key == name) return recorded_file(*entry, key, trace_path);
  return std::nullopt;
}

std::string trace_csv_header(const PoseTrace& t) {
  std::vector<std::string> header = {"time"};
  auto add = [&](const std::vector<std::string>& c) { header.insert(header.end(), c.begin(), c.end()); };
  if (!t.reference.empty()) add(trace_columns::pose("ref_"));
  add(trace_columns::pose(""));
  if (!t.command.empty()) add(trace_columns::command());
  if (!t.truth.empty()) add(trace_columns::pose("true_"));
  std::string out;
  for (std::size_t c = 0; c < header.size(); ++c) out += (c ? "," : "") + header[c];
  return out + '\n';
}

std::string trace_csv_row(const PoseTrace& t, std::size_t i) {
  std::string out = exact_number(t.time[i]);
  auto put = [&](const Vec6d& v) {
    for (int c = 0; c < 6; ++c) out += "," + exact_number(v(c));
  };
  if (!t.reference.empty()) put(t.reference[i]);
  put(t.measured[i]);
  if (!t.command.empty()) put(t.command[i]);
  if (!t.truth.empty()) put(t.truth[i]);
  return out + '\n';
}

std::vector<FileText> trace_files(const std::string& path, const PoseTrace& t) {
  const std::size_t n = t.time.size();
  if (n == 0) fail(path, "refusing to write an empty trace");
  auto check = [&](const std::vector<Vec6d>& v, const char* what, bool required) {
    if ((required || !v.empty()) && v.size() != n)
      fail(path, std::string(what) + " has " + std::to_string(v.size()) + " rows, time has " + std::to_string(n));
  };
  check(t.measured, "measured", true);
  check(t.reference, "reference", false);
  check(t.command, "command", false);
  check(t.truth, "truth", false);
  std::string out = trace_csv_header(t);
  out.reserve(n * 200);
  for (std::size_t i = 0; i < n; ++i) {
    auto finite = [&](const std::vector<Vec6d>& v) {
      return v.empty() || (v[i].allFinite() && v[i].cwiseAbs().maxCoeff() <= kMaxTraceMagnitude);
    };
    if (!std::isfinite(t.time[i]) || std::abs(t.time[i]) > kMaxTraceMagnitude || !finite(t.reference) ||
        !finite(t.measured) || !finite(t.command) || !finite(t.truth))
      fail(path, "row " + std::to_string(i + 1) + " (t = " + exact_number(t.time[i]) +
                     " s) holds a non-finite or absurd value; refusing to write a trace that cannot be read back");
    out += trace_csv_row(t, i);
  }
  if (fs::is_directory(path)) fail(path, "is a directory, expected a file name");
  if (fs::is_directory(sidecar_path(path)))
    fail(sidecar_path(path), "is a directory, expected a file name");
  TraceMetadata recorded = t.metadata;
  recorded.csv_sha256 = sha256(out);
  const nlohmann::json meta = to_json(recorded);
  // Nothing its own reader would refuse (probe 28, E: filter wrote a sidecar's edited copies on):
  // the sidecar read back by the one sidecar reader, its duration against the rows.
  check_rows_cover_duration(t.time, trace_metadata_from_json(meta, sidecar_path(path)), sidecar_path(path));
  // Both files complete under temporary names, then the sidecar renamed first: a kill between
  // the renames leaves the new sidecar beside the old CSV (refused on read: hashes differ) or
  // beside no CSV, never a new CSV that an old sidecar seems to describe.
  return csv_with_sidecar(path, std::move(out), meta);
}

void write_trace(const std::string& path, const PoseTrace& t, bool force) {
  write_files_atomically(trace_files(path, t), force);
}

TraceMetadata parse_sidecar(const std::string& json_text, const std::string& name) {
  return trace_metadata_from_json(parse_json(json_text, name), name);
}

void check_sidecar_kind(const nlohmann::json& sidecar, const std::string& csv_path, const std::string& format,
                        const std::string& kind) {
  if (!sidecar.is_object() || !sidecar.contains("format") || !sidecar["format"].is_string()) return;
  const std::string said = sidecar["format"].get<std::string>();
  if (said == format) return;
  const auto source = sidecar.find("source");
  const std::string by = source != sidecar.end() && source->is_string() ? " (source \"" + source->get<std::string>() + "\")" : "";
  fail(csv_path, "is not " + kind + ": its sidecar " + sidecar_path(csv_path) + " says it is a \"" + said + "\" file" + by +
                     "; " + kind + " is \"" + format + "\"");
}

namespace {

// The rows' times against the sidecar's camera rate (every reader of a trace with a sidecar:
// identify, compare, filter, validate, report, …): one row per exposure, so each time is a
// whole number of camera periods, and consecutive rows are consecutive frames — unless the
// sidecar records frames left out (`measure`: `frames`, `missing_frames`, `invalid_frames`).
// A trace at another rate under the sidecar (every other row dropped, rows in ms) is refused
// here, before any command works on it with the wrong rate.
void check_rows_at_camera_rate(const PoseTrace& t, const std::string& path, const std::string& meta) {
  if (!t.metadata.camera_hz || t.time.empty()) return;
  const double hz = *t.metadata.camera_hz;
  const bool gaps_recorded = records_frames_left_out(t.metadata);
  const std::string rate = "the camera_hz " + exact_number(hz) + " Hz of " + meta;
  double previous = 0;
  for (std::size_t j = 0; j < t.time.size(); ++j) {
    const double frame = t.time[j] * hz, k = std::round(frame);
    const std::string at = path + ":" + std::to_string(j + 2);
    if (!(std::abs(frame - k) <= 1e-6))
      fail(at, "time " + exact_number(t.time[j]) + " s is not a whole number of camera periods at " + rate +
                   " (frame " + exact_number(frame) + "): rows at another rate, or times in other units?");
    if (j > 0 && k != previous + 1 && !gaps_recorded)
      fail(at, "time " + exact_number(t.time[j]) + " s is " + exact_number(k - previous) + " camera periods after " +
                   exact_number(t.time[j - 1]) + " s at " + rate +
                   ", which records no frame left out: one row per exposure expected (rows at another rate, or rows dropped?)");
    previous = k;
  }
}

// The rows against the run's length the sidecar copies (`duration_s`, the reference's): no row
// after it, and, for a run that records no early stop (`stopped`) and no frame left out, rows up
// to its last exposure (within 1.5 camera periods). A sidecar's duration_s of 50 s under the rows
// of a 1 s run was carried on by `filter` and `compare` (probe 28, E).
void check_rows_cover_duration(const std::vector<double>& time, const TraceMetadata& m, const std::string& meta) {
  if (!m.duration_s || time.empty()) return;
  const double d = *m.duration_s, last = time.back();
  const bool short_allowed = m.stopped || !m.camera_hz || records_frames_left_out(m);
  const double shortest = short_allowed ? 0.0 : d - 1.5 / *m.camera_hz;
  if (last <= d + 1e-9 * std::max(1.0, d) && last >= shortest) return;
  fail(meta, "key 'duration_s': expected the length of the run its CSV's rows cover (rows up to t = " + exact_number(last) +
                 " s: " + (short_allowed ? "at least " + exact_number(last)
                                         : "from " + exact_number(last) + " to " + exact_number(last + 1.5 / *m.camera_hz)) +
                 " s), got " + exact_number(d));
}

// The frames the live rig's sidecar lists as unmeasured are frames of its run: 0 to the last
// row's frame or the run's last exposure (before duration_s), whichever is later (a trace written back after
// reading has lost their rows). Frame 5000 of a 200-frame run, or frame -1, would be a sidecar
// describing another run (probe 31, B).
void check_unmeasured_frames_in_run(const PoseTrace& t, const std::string& meta) {
  if (!t.metadata.stream || !t.metadata.camera_hz || t.time.empty()) return;
  const double hz = *t.metadata.camera_hz;
  double last = std::round(t.time.back() * hz);
  // Exposures are at k / hz before the run's end (a 2 s run at 100 Hz: frames 0 to 199).
  if (t.metadata.duration_s) last = std::max(last, std::ceil(*t.metadata.duration_s * hz - 1e-6) - 1);
  for (const auto& [key, frames] : {std::pair{"stream.missing_frames", &t.metadata.stream->missing_frames},
                                    {"stream.invalid_frames", &t.metadata.stream->invalid_frames}})
    for (const std::int64_t f : *frames)
      if (f < 0 || static_cast<double>(f) > last)
        fail(meta, std::string("key '") + key + "': frame " + std::to_string(f) + " is no frame of this run (frames 0 to " +
                       exact_number(last) + " at " + exact_number(hz) + " Hz): expected the frames of the run it records");
}

// A live rig's trace (`stream`) has one row per frame of its run, from 0 to its last exposure
// (before duration_s) or to the frames its stop records (`stopped.frames`), save frames listed as
// unmeasured at its end (a trace written back has lost their rows); and as many poses received as
// rows of frames not missing. A stop deleted, made up or moved, or a received count edited, was
// read as a whole run (probe 34, B).
void check_stream_rows(const PoseTrace& t, const std::string& meta) {
  const TraceMetadata& m = t.metadata;
  if (!m.stream || !m.camera_hz || t.time.empty() || (!m.stopped && !m.duration_s)) return;
  const double hz = *m.camera_hz;
  const auto last_row = static_cast<std::int64_t>(std::llround(t.time.back() * hz));
  const std::int64_t end = m.stopped ? m.stopped->frames - 1
                                     : static_cast<std::int64_t>(std::ceil(*m.duration_s * hz - 1e-6)) - 1;
  const std::string key = m.stopped ? "stopped.frames" : "duration_s";
  const std::string run = m.stopped ? std::to_string(m.stopped->frames) + " frames recorded before the stop"
                                    : "a run to frame " + std::to_string(end) + " (duration_s " + exact_number(*m.duration_s) +
                                          " s) with no stop recorded";
  if (last_row > end)
    fail(meta, "key '" + key + "': " + run + ", but the CSV has rows to frame " + std::to_string(last_row) +
                   ": expected the frames of the run it records");
  const std::vector<std::int64_t> listed = unmeasured_frames(m);
  for (std::int64_t f = last_row + 1; f <= end; ++f)
    if (!std::binary_search(listed.begin(), listed.end(), f))
      fail(meta, "key '" + key + "': " + run + ", but the CSV's rows end at frame " + std::to_string(last_row) + " and frame " +
                     std::to_string(f) + " is not listed as unmeasured (stream.missing_frames, stream.invalid_frames): "
                     "expected a row for every frame of the run, or the stop it ended with");
  std::uint64_t received = 0;
  std::vector<std::int64_t> missing = m.stream->missing_frames;
  std::sort(missing.begin(), missing.end());
  for (const double time : t.time)
    if (!std::binary_search(missing.begin(), missing.end(), static_cast<std::int64_t>(std::llround(time * hz)))) ++received;
  if (m.stream->poses_received < received)
    fail(meta, "key 'stream.poses_received': " + std::to_string(m.stream->poses_received) + ", but the CSV has " +
                   std::to_string(received) + " rows of frames received (not in stream.missing_frames): expected at least that many");
}

// A stream record's summaries are of its own per-frame lists (probe 36, RG01 and RG03: frames
// added to missing_frames that receive_s records received were left out of every fit; a latency
// p50 of 0.0005 ms under a list whose median is 0.12 ms was read and copied): a frame is in
// missing_frames exactly when receive_s records it never received (-1), and latency_ms holds
// latency_quantile of publish_to_receive_ms.
void check_stream_record(const TraceMetadata& m, const std::string& meta) {
  if (!m.stream) return;
  const StreamRecord& s = *m.stream;
  std::vector<std::int64_t> missing = s.missing_frames;
  std::sort(missing.begin(), missing.end());
  for (std::size_t f = 0; f < s.receive_s.size(); ++f) {
    const bool listed = std::binary_search(missing.begin(), missing.end(), static_cast<std::int64_t>(f));
    if (listed != (s.receive_s[f] < 0))
      fail(meta, "key 'stream.missing_frames': frame " + std::to_string(f) +
                     (listed ? " is listed, but stream.receive_s records it received at " + exact_number(s.receive_s[f]) + " s"
                             : " is not listed, but stream.receive_s records it never received (-1)") +
                     ": expected the frames the recorder never received");
  }
  if (s.publish_to_receive_ms.empty()) return;
  for (const auto& [key, recorded, q] : {std::tuple{"p50", s.latency_p50_ms, 0.5}, std::tuple{"p99", s.latency_p99_ms, 0.99},
                                         std::tuple{"max", s.latency_max_ms, 1.0}}) {
    const double now = latency_quantile(s.publish_to_receive_ms, q);
    if ((std::isnan(now) && std::isnan(recorded)) || std::abs(recorded - now) <= 1e-9 * std::max(1.0, std::abs(now))) continue;
    fail(meta, std::string("key 'stream.latency_ms.") + key + "': " + (std::isnan(recorded) ? "null" : exact_number(recorded) + " ms") +
                   ", but its stream.publish_to_receive_ms gives " + (std::isnan(now) ? "none (no latency measured)" : exact_number(now) + " ms") +
                   ": expected the figure of its own list");
  }
}

// A sidecar's `source` holds what every trace of that source has: a virtual run the truth it ran,
// its noise seed and engine (rig::virtual_trace); a live rig its stream and endpoints (control);
// `measure` and `render` their rig, markers and frames or seed. A twin relabelled "virtual",
// "rig", "measure" or "render" with its seal made again was read as a measurement, never made
// again (probe 37, S06, SE02–SE06): it has none of them, and is refused at its `source`.
void check_source_records(const TraceMetadata& m, const std::string& meta) {
  const std::string source = m.source.value_or("");
  auto file = [](const std::optional<FileRecord>& f) { return f.has_value() && !f->none(); };
  std::vector<std::pair<const char*, bool>> needed;
  if (source == "virtual") needed = {{"truth", file(m.truth)}, {"seed", m.seed.has_value()}, {"engine", m.engine.has_value()}};
  if (source == "rig") needed = {{"stream", m.stream.has_value()}, {"endpoints", m.endpoints.has_value()}};
  if (source == "measure") needed = {{"rig", file(m.rig)}, {"markers", file(m.markers)}, {"frames", m.frames.has_value()}};
  if (source == "render") needed = {{"rig", file(m.rig)}, {"markers", file(m.markers)}, {"seed", m.seed.has_value()}};
  for (const auto& [key, there] : needed)
    if (!there)
      fail(meta, "key 'source': \"" + source + "\", but no '" + key + "' record, which every " + source +
                     " trace has: a sidecar of another kind relabelled? (docs/traces.md, \"Sealed sidecars\")");
}

// The rows of frames that are no measurement (unmeasured_frames) taken out, as `measure` never
// writes them: every reader of a rig trace — filter, identify, compare, validate — sees the gaps
// measure's traces have, not the last valid pose repeated as if measured.
void drop_unmeasured_rows(PoseTrace& t) {
  const std::vector<std::int64_t> frames = unmeasured_frames(t.metadata);
  if (frames.empty() || !t.metadata.camera_hz) return;
  const double hz = *t.metadata.camera_hz;
  std::size_t kept = 0;
  for (std::size_t j = 0; j < t.time.size(); ++j) {
    const auto frame = static_cast<std::int64_t>(std::llround(t.time[j] * hz));
    if (std::binary_search(frames.begin(), frames.end(), frame)) continue;
    auto keep = [&](auto& column) {
      if (!column.empty()) column[kept] = column[j];
    };
    keep(t.time), keep(t.reference), keep(t.measured), keep(t.command), keep(t.truth);
    ++kept;
  }
  for (auto* column : {&t.reference, &t.measured, &t.command, &t.truth})
    if (!column->empty()) column->resize(kept);
  t.time.resize(kept);
}

}  // namespace

std::vector<std::int64_t> unmeasured_frames(const TraceMetadata& m) {
  std::vector<std::int64_t> frames;
  if (m.stream) {
    frames = m.stream->missing_frames;
    frames.insert(frames.end(), m.stream->invalid_frames.begin(), m.stream->invalid_frames.end());
  }
  std::sort(frames.begin(), frames.end());
  frames.erase(std::unique(frames.begin(), frames.end()), frames.end());
  return frames;
}

bool records_frames_left_out(const TraceMetadata& m) {
  return m.frames || m.missing_frames || m.invalid_frames || !unmeasured_frames(m).empty();
}

std::vector<std::size_t> indices_on_grid(const std::vector<double>& times, const std::vector<double>& grid) {
  std::vector<std::size_t> at;
  at.reserve(times.size());
  std::size_t k = 0;
  for (const double t : times) {
    while (k < grid.size() && grid[k] < t - 1e-9) ++k;
    at.push_back(k < grid.size() && std::abs(grid[k] - t) <= 1e-9 ? k : kNotOnGrid);
  }
  return at;
}

namespace {
// A trace's CSV as read (parse_input_file) with its sidecar, if any.
PoseTrace trace_of_csv(const std::string& path, const std::string& csv, SidecarSeal seal) {
  const std::string meta = sidecar_path(path);
  std::error_code ec;  // a name too long for a sidecar beside it is "no sidecar", not an exception
  const bool has_meta = fs::exists(fs::symlink_status(meta, ec));
  // The sidecar first: its format and seal say what the file is before the rows are read as a trace's.
  const nlohmann::json sidecar = has_meta ? read_sidecar(path, kPoseTraceSidecar, seal) : nlohmann::json();
  PoseTrace t = parse_trace(csv, path);
  if (has_meta) {
    t.metadata = trace_metadata_from_json(sidecar, meta);
    t.has_sidecar = true;
    if (t.metadata.csv_sha256) {
      std::string recorded = *t.metadata.csv_sha256;  // hex in either case
      std::transform(recorded.begin(), recorded.end(), recorded.begin(), [](unsigned char c) { return std::tolower(c); });
      if (recorded != sha256(csv))
        fail(path, "does not belong with its sidecar " + meta +
                       " (the sidecar records the SHA-256 of another CSV: a write interrupted between the two "
                       "files, or one of them replaced or edited); record the trace again");
      t.sidecar_bound = true;
    }
    check_rows_at_camera_rate(t, path, meta);
    check_rows_cover_duration(t.time, t.metadata, meta);
    check_copies_of_recorded_experiment(t.metadata, path);
    check_unmeasured_frames_in_run(t, meta);
    check_stream_rows(t, meta);
    check_stream_record(t.metadata, meta);
    check_source_records(t.metadata, meta);
    const std::size_t rows = t.time.size();
    drop_unmeasured_rows(t);
    if (t.time.empty())  // nothing measured: every command would compare or fit nothing (session 29's probe 30, B)
      fail(path, "has no measured row: " + meta + " lists every one of its " + std::to_string(rows) +
                     " frames as unmeasured (stream.missing_frames, stream.invalid_frames)");
  }
  return t;
}
}  // namespace

PoseTrace read_trace(const std::string& path, SidecarSeal seal) {
  return parse_input_file(path, InputKind::Trace, [&](const std::string& csv) { return trace_of_csv(path, csv, seal); });
}

}  // namespace vcloe
