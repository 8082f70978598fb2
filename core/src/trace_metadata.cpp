#include "vcloe/core/trace_metadata.hpp"

#include <cmath>
#include <filesystem>
#include <algorithm>
#include <set>

#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe {

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

json stream_json(const StreamRecord& s) {
  return {{"poses_received", s.poses_received},
          {"sequence_gaps", s.sequence_gaps},
          {"duplicates", s.duplicates},
          {"malformed", s.malformed},
          {"status_malformed", s.status_malformed},
          {"missing_frames", s.missing_frames},
          {"invalid_frames", s.invalid_frames},
          {"latency_ms", {{"p50", s.latency_p50_ms}, {"p99", s.latency_p99_ms}, {"max", s.latency_max_ms}}},
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
  put(j, "seed", m.seed);
  if (const auto& n = m.noise_sigma) j["noise_sigma"] = {(*n)(0), (*n)(1), (*n)(2), (*n)(3), (*n)(4), (*n)(5)};
  put(j, "frames", m.frames), put(j, "missing_frames", m.missing_frames), put(j, "invalid_frames", m.invalid_frames);
  put(j, "noise_dn", m.noise_dn), put(j, "blur_px", m.blur_px), put(j, "clock", m.clock);
  put(j, "csv_sha256", m.csv_sha256);
  put_records(j, m);
  return j;
}

namespace {

// ---- the reader ----

// One JSON object's fields read and checked; errors name the sidecar and the key (a nested
// record's as "record.field").
class Fields {
 public:
  Fields(const json& j, std::string name, std::string prefix = "") : j_(j), name_(std::move(name)), prefix_(std::move(prefix)) {}

  bool has(const char* k) const { return j_.contains(k); }
  const json& at(const char* k) const { return j_.at(k); }
  [[noreturn]] void bad(const char* k, const std::string& expected, bool got = true) const {
    fail(name_, "key '" + prefix_ + k + "': expected " + expected + (got ? ", got " + j_.at(k).dump() : ""));
  }
  std::optional<std::string> text(const char* k) const {
    if (!has(k)) return std::nullopt;
    if (!at(k).is_string()) bad(k, "a string");
    return at(k).get<std::string>();
  }
  // A number in the range (`above` exclusive if strict, else inclusive); null for a latency
  // not measured (NaN) only where `null_is_nan`.
  std::optional<double> number(const char* k, double above, bool strict, const std::string& expected,
                               bool null_is_nan = false) const {
    if (!has(k)) return std::nullopt;
    if (null_is_nan && (at(k).is_null() || (at(k).is_number_float() && std::isnan(at(k).get<double>()))))
      return std::nan("");
    if (!at(k).is_number() || !(strict ? at(k).get<double>() > above : at(k).get<double>() >= above))
      bad(k, expected);
    return at(k).get<double>();
  }
  // Whole numbers, also when another tool wrote them as 1.0.
  static bool whole(const json& v, double lo, double hi) {
    return v.is_number() && v.get<double>() >= lo && v.get<double>() <= hi && v.get<double>() == std::floor(v.get<double>());
  }
  static std::int64_t whole_value(const json& v) {
    return v.is_number_integer() ? v.get<std::int64_t>() : static_cast<std::int64_t>(v.get<double>());
  }
  std::optional<std::int64_t> count(const char* k, double lo = 0, double hi = 9.2e18) const {
    if (!has(k)) return std::nullopt;
    if (!whole(at(k), lo, hi)) bad(k, "a whole number from " + exact_number(lo) + " to " + exact_number(hi));
    return whole_value(at(k));
  }
  std::optional<std::uint64_t> seed(const char* k) const {
    if (!has(k)) return std::nullopt;
    if (!whole(at(k), 0, 18446744073709549568.0)) bad(k, "a whole number from 0 to 2^64 - 2");
    return at(k).is_number_unsigned() ? at(k).get<std::uint64_t>() : static_cast<std::uint64_t>(at(k).get<double>());
  }
  std::optional<std::vector<std::int64_t>> counts(const char* k) const {
    if (!has(k)) return std::nullopt;
    std::vector<std::int64_t> out;
    if (!at(k).is_array()) bad(k, "an array of whole numbers");
    for (const json& v : at(k)) {
      if (!whole(v, -9.2e18, 9.2e18)) bad(k, "an array of whole numbers");
      out.push_back(whole_value(v));
    }
    return out;
  }
  std::optional<std::vector<double>> numbers(const char* k) const {
    if (!has(k)) return std::nullopt;
    std::vector<double> out;
    if (!at(k).is_array()) bad(k, "an array of numbers");
    for (const json& v : at(k)) {
      if (!v.is_number()) bad(k, "an array of numbers");
      out.push_back(v.get<double>());
    }
    return out;
  }
  // {path, sha256}, or null (none).
  std::optional<FileRecord> file(const char* k) const {
    if (!has(k)) return std::nullopt;
    const json& e = at(k);
    if (e.is_null()) return FileRecord{};
    if (!e.is_object() || !e.contains("path") || !e["path"].is_string() || (e.contains("sha256") && !e["sha256"].is_string()))
      bad(k, "{\"path\": string, \"sha256\": string}", false);
    return FileRecord{e["path"].get<std::string>(), e.value("sha256", "")};
  }
  // A nested record's fields, or nothing if absent; `expected` if it is not an object.
  std::optional<Fields> record(const char* k) const {
    if (!has(k)) return std::nullopt;
    if (!at(k).is_object()) bad(k, "an object");
    return Fields(at(k), name_, prefix_ + k + ".");
  }
  template <class T>
  T need(const char* k, const std::optional<T>& v) const {
    if (!v) fail(name_, "key '" + prefix_ + k + "': missing");
    return *v;
  }

 private:
  const json& j_;
  std::string name_, prefix_;
};

const std::set<std::string>& known_keys() {
  static const std::set<std::string> keys = {
      "format", "source", "software_version", "note", "controller_hz", "camera_hz", "latency_s", "duration_s",
      "substeps", "outer_form", "robot", "experiment", "reference", "truth", "rig", "markers", "seed",
      "noise_sigma", "engine", "payload", "camera", "frames", "missing_frames", "invalid_frames", "noise_dn",
      "blur_px", "filter", "clock", "endpoints", "stream", "stopped", "csv_sha256"};
  return keys;
}

// The fields `identify` and its checks rely on, in the order they have always been checked.
void read_provenance(const Fields& f, TraceMetadata& m) {
  if (f.has("csv_sha256")) {
    const json& h = f.at("csv_sha256");
    if (!h.is_string() || h.get<std::string>().size() != 64 ||
        h.get<std::string>().find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
      f.bad("csv_sha256", "the CSV's SHA-256 as 64 hexadecimal digits");
    m.csv_sha256 = h.get<std::string>();
  }
  if (f.has("format") && f.at("format") != kTraceFormat)
    f.bad("format", "\"" + std::string(kTraceFormat) + "\" (this vcloe reads no other)");
  m.format = f.text("format");
  m.controller_hz = f.number("controller_hz", 0, true, "a positive number");
  m.camera_hz = f.number("camera_hz", 0, true, "a positive number");
  m.duration_s = f.number("duration_s", 0, true, "a positive number");
  m.latency_s = f.number("latency_s", 0, false, "a non-negative number");
  if (f.has("substeps") && !Fields::whole(f.at("substeps"), 1, 1000)) f.bad("substeps", "a whole number from 1 to 1000");
  m.substeps = f.count("substeps", 1, 1000);
  m.seed = f.seed("seed");
  if (f.has("outer_form") && f.at("outer_form") != "feedforward" && f.at("outer_form") != "literal")
    f.bad("outer_form", "\"feedforward\" or \"literal\"");
  m.outer_form = f.text("outer_form");
  m.source = f.text("source");
  m.software_version = f.text("software_version");
  m.robot = f.file("robot"), m.experiment = f.file("experiment"), m.reference = f.file("reference");
  m.truth = f.file("truth"), m.rig = f.file("rig"), m.markers = f.file("markers");
}

void read_virtual_robot(const Fields& f, TraceMetadata& m) {
  if (const auto n = f.numbers("noise_sigma")) {
    if (n->size() != 6 || *std::min_element(n->begin(), n->end()) < 0)
      f.bad("noise_sigma", "6 non-negative numbers (m, rad)");
    m.noise_sigma = Eigen::Map<const Vec6d>(n->data());
  }
  if (f.has("payload") && !f.at("payload").is_null()) {
    const json& p = f.at("payload");
    if (!p.is_object() || !p.contains("mass") || !p["mass"].is_number() || !p.contains("inertia") ||
        !p["inertia"].is_array() || p["inertia"].size() != 3 || !p["inertia"][0].is_number() ||
        !p["inertia"][1].is_number() || !p["inertia"][2].is_number())
      f.bad("payload", "{\"mass\": kg, \"inertia\": [Ix, Iy, Iz]}", false);
    m.payload = PayloadRecord{p["mass"].get<double>(),
                              Vec3d(p["inertia"][0].get<double>(), p["inertia"][1].get<double>(), p["inertia"][2].get<double>())};
  }
  if (const auto e = f.record("engine"))
    m.engine = EngineRecord{e->need("name", e->text("name")),
                            e->need("timestep_s", e->number("timestep_s", 0, true, "a positive number"))};
  if (const auto c = f.record("camera"))
    m.camera = CameraRecord{c->need("model", c->text("model")),
                            c->need("centroid_noise_px", c->number("centroid_noise_px", 0, false, "a non-negative number")),
                            c->need("rig", c->file("rig")),
                            c->need("markers", c->file("markers")),
                            c->need("frames", c->count("frames")),
                            c->need("invalid_frames", c->count("invalid_frames"))};
}

void read_camera_side(const Fields& f, TraceMetadata& m) {
  m.note = f.text("note");
  m.frames = f.count("frames");
  m.missing_frames = f.counts("missing_frames");
  m.invalid_frames = f.count("invalid_frames");
  m.noise_dn = f.number("noise_dn", 0, false, "a non-negative number");
  m.blur_px = f.number("blur_px", 0, true, "a positive number");
  if (const auto r = f.record("filter"))
    m.filter = FilterRecord{r->need("type", r->text("type")),
                            r->need("order", r->count("order", 1, 64)),
                            r->need("padlen", r->count("padlen")),
                            r->need("cutoff_hz", r->number("cutoff_hz", 0, true, "a positive number")),
                            r->need("sample_rate_hz", r->number("sample_rate_hz", 0, true, "a positive number")),
                            r->need("input", r->file("input"))};
}

void read_live_rig(const Fields& f, TraceMetadata& m) {
  m.clock = f.text("clock");
  if (const auto e = f.record("endpoints"))
    m.endpoints = EndpointsRecord{e->need("poses", e->text("poses")), e->need("commands", e->text("commands")),
                                  e->need("status", e->text("status"))};
  if (const auto s = f.record("stopped"))
    m.stopped = StoppedRecord{s->need("reason", s->text("reason")), s->need("frames", s->count("frames")),
                              s->need("time_s", s->number("time_s", 0, false, "a non-negative number"))};
  if (const auto s = f.record("stream")) {
    StreamRecord r;
    auto n = [&](const char* k) { return static_cast<std::uint64_t>(s->need(k, s->count(k))); };
    r.poses_received = n("poses_received"), r.sequence_gaps = n("sequence_gaps"), r.duplicates = n("duplicates");
    r.malformed = n("malformed"), r.status_malformed = n("status_malformed");
    r.missing_frames = s->need("missing_frames", s->counts("missing_frames"));
    r.invalid_frames = s->need("invalid_frames", s->counts("invalid_frames"));
    const auto latency = s->need("latency_ms", s->record("latency_ms"));
    auto ms = [&](const char* k) { return latency.need(k, latency.number(k, 0, false, "a non-negative number or null", true)); };
    r.latency_p50_ms = ms("p50"), r.latency_p99_ms = ms("p99"), r.latency_max_ms = ms("max");
    r.receive_s = s->need("receive_s", s->numbers("receive_s"));
    r.publish_to_receive_ms = s->need("publish_to_receive_ms", s->numbers("publish_to_receive_ms"));
    m.stream = r;
  }
}

}  // namespace

TraceMetadata trace_metadata_from_json(const json& j, const std::string& name) {
  if (!j.is_object()) fail(name, "expected a JSON object (the trace's metadata, docs/traces.md)");
  const Fields f(j, name);
  TraceMetadata m;
  read_provenance(f, m);
  read_virtual_robot(f, m);
  read_camera_side(f, m);
  read_live_rig(f, m);
  for (const auto& [key, value] : j.items())
    if (!known_keys().count(key)) m.other[key] = value;
  return m;
}

}  // namespace vcloe
