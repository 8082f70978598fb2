#include "vcloe/core/trace_metadata.hpp"

#include <cmath>
#include <filesystem>
#include <algorithm>
#include <functional>
#include <iterator>
#include <limits>
#include <type_traits>
#include <set>

#include "vcloe/core/error.hpp"
#include "vcloe/core/experiment_copies.hpp"
#include "vcloe/core/json_node.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe {

double latency_quantile(const std::vector<double>& ms, double q) {
  std::vector<double> v;
  std::copy_if(ms.begin(), ms.end(), std::back_inserter(v), [](double l) { return l >= 0; });
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

using nlohmann::json;

FileRecord file_record(const std::string& path) {
  if (path.empty()) return {};
  return {std::filesystem::absolute(path).lexically_normal().string(), sha256_file(path)};
}

json to_json(const FileRecord& f) {
  if (f.none()) return nullptr;
  return {{"path", f.path}, {"sha256", f.sha256}};
}

namespace {

// ---- the writer ----

json file_json(const FileRecord& f) { return to_json(f); }

template <class T>
void put(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}
void put(json& j, const char* key, const std::optional<FileRecord>& v) {
  if (v) j[key] = file_json(*v);
}

// A latency figure: null where none was measured (NaN, latency_quantile of no measurement).
json latency_json(double v) { return std::isnan(v) ? json(nullptr) : json(v); }

json stream_json(const StreamRecord& s) {
  return {{"poses_received", s.poses_received},
          {"sequence_gaps", s.sequence_gaps},
          {"duplicates", s.duplicates},
          {"malformed", s.malformed},
          {"status_malformed", s.status_malformed},
          {"missing_frames", s.missing_frames},
          {"invalid_frames", s.invalid_frames},
          {"latency_ms", {{"p50", latency_json(s.latency_p50_ms)}, {"p99", latency_json(s.latency_p99_ms)}, {"max", latency_json(s.latency_max_ms)}}},
          {"receive_s", s.receive_s},
          {"publish_to_receive_ms", s.publish_to_receive_ms}};
}

void put_records(json& j, const TraceMetadata& m) {
  if (const auto& e = m.engine) j["engine"] = {{"name", e->name}, {"timestep_s", e->timestep_s}};
  if (const auto& p = m.payload)
    j["payload"] = {{"mass", p->mass}, {"inertia", {p->inertia(0), p->inertia(1), p->inertia(2)}}};
  if (const auto& c = m.camera)
    j["camera"] = {{"model", c->model},           {"centroid_noise_px", c->centroid_noise_px},
                   {"rig", file_json(c->rig)},     {"markers", file_json(c->markers)},
                   {"frames", c->frames},          {"invalid_frames", c->invalid_frames}};
  if (const auto& f = m.filter)
    j["filter"] = {{"type", f->type},           {"order", f->order},       {"cutoff_hz", f->cutoff_hz},
                   {"sample_rate_hz", f->sample_rate_hz}, {"padlen", f->padlen}, {"input", file_json(f->input)}};
  if (const auto& e = m.endpoints) j["endpoints"] = {{"poses", e->poses}, {"commands", e->commands}, {"status", e->status}};
  if (m.stream) j["stream"] = stream_json(*m.stream);
  if (const auto& c = m.stream_checks) {
    j["stream_checks"] = {{"repeated_frames", c->repeated_frames},
                          {"exposure_backwards", c->exposure_backwards},
                          {"stamps_ahead", c->stamps_ahead}};
    if (c->stamps_stale) j["stream_checks"]["stamps_stale"] = *c->stamps_stale;
  }
  if (const auto& s = m.stopped) j["stopped"] = {{"reason", s->reason}, {"frames", s->frames}, {"time_s", s->time_s}};
}

}  // namespace

json to_json(const TraceMetadata& m) {
  json j = m.other.is_object() ? m.other : json::object();
  put(j, "format", m.format), put(j, "source", m.source), put(j, "software_version", m.software_version);
  put(j, "note", m.note);
  put(j, "controller_hz", m.controller_hz), put(j, "camera_hz", m.camera_hz), put(j, "latency_s", m.latency_s);
  put(j, "duration_s", m.duration_s), put(j, "substeps", m.substeps), put(j, "outer_form", m.outer_form);
  put(j, "robot", m.robot), put(j, "experiment", m.experiment), put(j, "reference", m.reference);
  put(j, "truth", m.truth), put(j, "rig", m.rig), put(j, "markers", m.markers);
  put(j, "precorrection", m.precorrection);
  put(j, "seed", m.seed);
  if (const auto& n = m.noise_sigma) j["noise_sigma"] = {(*n)(0), (*n)(1), (*n)(2), (*n)(3), (*n)(4), (*n)(5)};
  put(j, "frames", m.frames), put(j, "missing_frames", m.missing_frames), put(j, "invalid_frames", m.invalid_frames);
  put(j, "noise_dn", m.noise_dn), put(j, "blur_px", m.blur_px), put(j, "clock", m.clock);
  put(j, "csv_sha256", m.csv_sha256);
  put_records(j, m);
  return j;
}

namespace {

// ---- the reader (every getter of JsonNode checks type and range, naming the sidecar and key) ----

// The field's value, or nothing if the sidecar does not have it.
template <class Get>
auto opt(const JsonNode& n, Get get) -> std::optional<std::decay_t<std::invoke_result_t<Get, const JsonNode&>>> {
  if (n.absent()) return std::nullopt;
  return std::invoke(get, n);
}
// A latency not measured is written null (NaN).
double non_negative_or_nan(const JsonNode& n) {
  const double v = n.number_or_nan();
  if (v < 0) n.refuse("a non-negative number or null");
  return v;
}
// A nested record, or nothing if absent; an error if it is not an object.
std::optional<JsonNode> record(const JsonNode& n) {
  if (n.absent()) return std::nullopt;
  n.object();
  return n;
}

const std::set<std::string>& known_keys() {
  static const std::set<std::string> keys = {
      "format", "source", "software_version", "note", "controller_hz", "camera_hz", "latency_s", "duration_s",
      "substeps", "outer_form", "robot", "experiment", "reference", "truth", "rig", "markers", "seed",
      "noise_sigma", "engine", "payload", "camera", "frames", "missing_frames", "invalid_frames", "noise_dn",
      "blur_px", "filter", "clock", "endpoints", "stream", "stream_checks", "stopped", "csv_sha256", "precorrection"};
  return keys;
}

// The fields `identify` and its checks rely on, in the order they have always been checked.
void read_provenance(const JsonNode& f, TraceMetadata& m) {
  m.csv_sha256 = opt(f["csv_sha256"], &JsonNode::sha256);
  m.format = opt(f["format"], [](const JsonNode& n) {
    if (n.value() != kTraceFormat) n.refuse("\"" + std::string(kTraceFormat) + "\" (this vcloe reads no other)");
    return n.string();
  });
  m.controller_hz = opt(f["controller_hz"], &JsonNode::positive);
  m.camera_hz = opt(f["camera_hz"], &JsonNode::positive);
  m.duration_s = opt(f["duration_s"], &JsonNode::positive);
  m.latency_s = opt(f["latency_s"], &JsonNode::non_negative);
  m.substeps = opt(f["substeps"], [](const JsonNode& n) { return n.integer<std::int64_t>(1, 1000); });
  m.seed = opt(f["seed"], &JsonNode::unsigned_integer);
  m.outer_form = opt(f["outer_form"], [](const JsonNode& n) { return n.one_of({"feedforward", "literal"}); });
  // vcloe's own sidecar (it states the format) records one of vcloe's sources: a hand-edited
  // "hardware" was carried on by `filter` and taken as a real robot by the provenance check.
  m.source = opt(f["source"], [&](const JsonNode& n) { return m.format ? n.one_of(kTraceSources) : n.string(); });
  m.software_version = opt(f["software_version"], &JsonNode::string);
  m.robot = opt(f["robot"], &JsonNode::file_record), m.experiment = opt(f["experiment"], &JsonNode::file_record);
  m.reference = opt(f["reference"], &JsonNode::file_record), m.truth = opt(f["truth"], &JsonNode::file_record);
  m.rig = opt(f["rig"], &JsonNode::file_record), m.markers = opt(f["markers"], &JsonNode::file_record);
  m.precorrection = opt(f["precorrection"], &JsonNode::file_record);
}

void read_virtual_robot(const JsonNode& f, TraceMetadata& m) {
  if (const JsonNode n = f["noise_sigma"]; !n.absent()) {
    if (!n.value().is_array() || n.value().size() != 6) n.refuse("6 non-negative numbers (m, rad)");
    const auto sigma = n.fixed<6>(true);
    m.noise_sigma = Eigen::Map<const Vec6d>(sigma.data());
  }
  if (const JsonNode p = f["payload"]; !p.is_null()) {
    p.object();
    m.payload = PayloadRecord{p.need("mass").number(), Eigen::Map<const Vec3d>(p.need("inertia").fixed<3>().data())};
  }
  if (const auto e = record(f["engine"])) m.engine = EngineRecord{e->need("name").string(), e->need("timestep_s").positive()};
  if (const auto c = record(f["camera"]))
    m.camera = CameraRecord{c->need("model").string(),
                            c->need("centroid_noise_px").non_negative(),
                            c->present("rig").file_record(),
                            c->present("markers").file_record(),
                            c->need("frames").count(),
                            c->need("invalid_frames").count()};
}

void read_camera_side(const JsonNode& f, TraceMetadata& m) {
  m.note = opt(f["note"], &JsonNode::string);
  m.frames = opt(f["frames"], &JsonNode::count);
  m.missing_frames = opt(f["missing_frames"], &JsonNode::integers);
  m.invalid_frames = opt(f["invalid_frames"], &JsonNode::count);
  m.noise_dn = opt(f["noise_dn"], &JsonNode::non_negative);
  m.blur_px = opt(f["blur_px"], &JsonNode::positive);
  if (const auto r = record(f["filter"]))
    m.filter = FilterRecord{r->need("type").string(),
                            r->need("order").integer<std::int64_t>(1, 64),
                            r->need("padlen").count(),
                            r->need("cutoff_hz").positive(),
                            r->need("sample_rate_hz").positive(),
                            r->present("input").file_record()};
}

StreamRecord read_stream(const JsonNode& s) {
  StreamRecord r;
  auto n = [&](const char* k) { return static_cast<std::uint64_t>(s.need(k).count()); };
  r.poses_received = n("poses_received"), r.sequence_gaps = n("sequence_gaps"), r.duplicates = n("duplicates");
  r.malformed = n("malformed"), r.status_malformed = n("status_malformed");
  r.missing_frames = s.need("missing_frames").integers();
  r.invalid_frames = s.need("invalid_frames").integers();
  const JsonNode latency = s.need("latency_ms");
  latency.object();
  r.latency_p50_ms = non_negative_or_nan(latency.present("p50"));
  r.latency_p99_ms = non_negative_or_nan(latency.present("p99"));
  r.latency_max_ms = non_negative_or_nan(latency.present("max"));
  r.receive_s = s.need("receive_s").numbers();
  r.publish_to_receive_ms = s.need("publish_to_receive_ms").numbers();
  return r;
}

void read_live_rig(const JsonNode& f, TraceMetadata& m) {
  m.clock = opt(f["clock"], [](const JsonNode& n) { return n.one_of(kRigClocks); });
  if (const auto e = record(f["endpoints"]))
    m.endpoints = EndpointsRecord{e->need("poses").string(), e->need("commands").string(), e->need("status").string()};
  if (const auto s = record(f["stopped"]))
    m.stopped = StoppedRecord{s->need("reason").string(), s->need("frames").count(), s->need("time_s").non_negative()};
  if (const auto s = record(f["stream"])) m.stream = read_stream(*s);
  // Sidecars written before it was typed had the same key and layout (then kept as unknown).
  if (const auto c = record(f["stream_checks"])) {
    auto n = [&](const char* k) { return static_cast<std::uint64_t>(c->need(k).count()); };
    m.stream_checks = StreamChecksRecord{n("repeated_frames"), n("exposure_backwards"), n("stamps_ahead"), std::nullopt};
    if (!(*c)["stamps_stale"].absent()) m.stream_checks->stamps_stale = n("stamps_stale");  // since probe 19
  }
}

// The rate `filter` filtered at is the camera's: its rows are one per exposure (read_trace), so a
// sample_rate_hz other than camera_hz is an edit of one of the two.
void check_filter_rate(const TraceMetadata& m, const JsonNode& f) {
  if (!m.filter || !m.camera_hz) return;
  if (std::abs(m.filter->sample_rate_hz - *m.camera_hz) > 1e-6 * *m.camera_hz)
    f["filter"]["sample_rate_hz"].refuse("the camera_hz the sidecar records, " + exact_number(*m.camera_hz) + " Hz");
}

}  // namespace

TraceMetadata trace_metadata_from_json(const json& j, const std::string& name) {
  if (!j.is_object()) fail(name, "expected a JSON object (the trace's metadata, docs/traces.md)");
  const JsonNode f = JsonNode::root(j, name);
  TraceMetadata m;
  read_provenance(f, m);
  read_virtual_robot(f, m);
  read_camera_side(f, m);
  read_live_rig(f, m);
  check_copied_timing(m, name);  // the copies of the experiment, by the experiment file's rules
  check_filter_rate(m, f);
  for (const auto& [key, value] : j.items())
    if (!known_keys().count(key)) m.other[key] = value;
  return m;
}

}  // namespace vcloe
