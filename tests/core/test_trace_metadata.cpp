// Specification of a trace's sidecar as a typed value (core/trace_metadata.hpp, docs/traces.md):
// what vcloe writes reads back to the same value and the same bytes, and every field of the
// wrong type or out of its range is refused naming the sidecar and the key.
#include <gtest/gtest.h>

#include "../test_support.hpp"

#include <cmath>
#include <string>

#include "vcloe/core/trace.hpp"
#include "vcloe/core/trace_metadata.hpp"

using namespace vcloe;
using vcloe::test::error_of;

namespace {

// Every field vcloe writes, each with a value of its own.
TraceMetadata full() {
  TraceMetadata m;
  m.format = kTraceFormat, m.source = "virtual", m.software_version = "0.1.0", m.note = "a note";
  m.controller_hz = 1000.0, m.camera_hz = 100.0, m.latency_s = 0.01, m.duration_s = 20.0, m.substeps = 2;
  m.outer_form = "feedforward";
  m.robot = FileRecord{"/r/robot.yaml", std::string(64, 'a')}, m.experiment = FileRecord{};
  m.reference = FileRecord{"/r/ref.yaml", std::string(64, 'b')}, m.truth = FileRecord{"/r/truth.yaml", "c"};
  m.rig = FileRecord{"/r/rig.yaml", "d"}, m.markers = FileRecord{"/r/markers.yaml", "e"};
  m.seed = 18446744073709549568ull;
  m.noise_sigma = (Vec6d() << 2e-5, 2e-5, 2e-5, 5e-5, 5e-5, 0).finished();
  m.engine = EngineRecord{"MuJoCo 2.2", 2.5e-4};
  m.payload = PayloadRecord{5.0, Vec3d(0.1, 0.2, 0.3)};
  m.camera = CameraRecord{"stereo", 0.05, FileRecord{"/r/rig.yaml", "d"}, FileRecord{"/r/markers.yaml", "e"}, 2000, 3};
  m.frames = 7, m.missing_frames = std::vector<std::int64_t>{2, 5}, m.invalid_frames = 1;
  m.noise_dn = 6.0, m.blur_px = 0.8;
  m.filter = FilterRecord{"butterworth", 8, 27, 60.0, 100.0, FileRecord{"/r/in.csv", "f"}};
  m.clock = "lockstep";
  m.endpoints = EndpointsRecord{"tcp://a:1", "tcp://a:2", "tcp://a:3"};
  m.stream = StreamRecord{10, 1, 2, 3, 4, {4}, {}, 0.5, 0.9, std::nan(""), {0.01, 0.02}, {0.5, -1}};
  m.stopped = StoppedRecord{"safety", 9, 0.09};
  m.stream_checks = StreamChecksRecord{1, 2, 3, std::nullopt};
  m.csv_sha256 = std::string(64, 'f');  // lower case, as every hash is read (InputsKept.AHashReadInCapitalsIsTheSameHash)
  m.other = {{"another_tool", {{"x", 1}}}};
  return m;
}

}  // namespace

TEST(TraceMetadata, EveryFieldRoundTripsToTheSameBytes) {
  const nlohmann::json written = to_json(full());
  // Every field set is written (and only those): the sidecar's keys of docs/traces.md.
  for (const char* key : {"format", "source", "software_version", "note", "controller_hz", "camera_hz", "latency_s",
                          "duration_s", "substeps", "outer_form", "robot", "experiment", "reference", "truth", "rig",
                          "markers", "seed", "noise_sigma", "engine", "payload", "camera", "frames", "missing_frames",
                          "invalid_frames", "noise_dn", "blur_px", "filter", "clock", "endpoints", "stream", "stopped",
                          "stream_checks", "csv_sha256", "another_tool"})
    EXPECT_TRUE(written.contains(key)) << key;
  EXPECT_EQ(written.size(), 34u);
  const TraceMetadata read = trace_metadata_from_json(written, "t.csv.meta.json");
  EXPECT_EQ(to_json(read).dump(2), written.dump(2));
  EXPECT_EQ(read.seed, 18446744073709549568ull);
  EXPECT_TRUE(read.experiment && read.experiment->none());  // null: recorded as no file
  EXPECT_TRUE(written["experiment"].is_null());
  EXPECT_EQ(read.noise_sigma->tail<1>()(0), 0.0);
  EXPECT_TRUE(std::isnan(read.stream->latency_max_ms));
  EXPECT_EQ(read.other["another_tool"]["x"], 1);
  EXPECT_EQ(read.stream_checks->exposure_backwards, 2u);
  EXPECT_FALSE(read.other.contains("stream_checks")) << "typed, not kept as another tool's key";
  // Absent fields stay absent: an empty value writes an empty object.
  EXPECT_EQ(to_json(TraceMetadata{}).dump(), "{}");
  EXPECT_EQ(to_json(trace_metadata_from_json(nlohmann::json::object(), "e.json")).dump(), "{}");
}

TEST(TraceMetadata, TheSidecarTextIsTheOneVcloeAlwaysWrote) {
  // The measure command's sidecar before the metadata was typed (docs/traces.md), key for key.
  const std::string text = R"({
  "camera_hz": 100.0,
  "format": "vcloe-trace-1",
  "frames": 3,
  "invalid_frames": 0,
  "markers": {
    "path": "/m.yaml",
    "sha256": "00"
  },
  "missing_frames": [
    1
  ],
  "rig": null,
  "software_version": "0.1.0",
  "source": "measure"
})";
  EXPECT_EQ(to_json(parse_sidecar(text, "m.csv.meta.json")).dump(2), text);
}

TEST(TraceMetadata, AFieldOfTheWrongTypeOrRangeIsRefusedNamingTheSidecarAndTheKey) {
  auto refusal = [](const std::string& json) { return error_of([&] { parse_sidecar(json, "s.meta.json"); }); };
  EXPECT_EQ(refusal(R"({"camera_hz": "100"})"), "s.meta.json: key 'camera_hz': expected a positive number, got \"100\"");
  EXPECT_EQ(refusal(R"({"latency_s": -1})"), "s.meta.json: key 'latency_s': expected a non-negative number, got -1");
  EXPECT_EQ(refusal(R"({"noise_sigma": [1, 2]})"),
            "s.meta.json: key 'noise_sigma': expected 6 non-negative numbers (m, rad), got [1,2]");
  EXPECT_EQ(refusal(R"({"noise_sigma": [1, 2, 3, 4, 5, -6]})"),
            "s.meta.json: key 'noise_sigma[5]': expected a non-negative number, got -6");
  EXPECT_EQ(refusal(R"({"truth": {"path": 3}})"), "s.meta.json: key 'truth': expected {\"path\": string, \"sha256\": string} or null, got {\"path\":3}");
  EXPECT_EQ(refusal(R"({"payload": {"mass": 5}})"),
            "s.meta.json: key 'payload.inertia': missing");
  EXPECT_EQ(refusal(R"({"engine": {"name": "MuJoCo", "timestep_s": 0}})"),
            "s.meta.json: key 'engine.timestep_s': expected a positive number, got 0");
  EXPECT_EQ(refusal(R"({"camera": {"model": "stereo"}})"), "s.meta.json: key 'camera.centroid_noise_px': missing");
  EXPECT_EQ(refusal(R"({"missing_frames": [1, 2.5]})"),
            "s.meta.json: key 'missing_frames[1]': expected a whole number, got 2.5");
  EXPECT_EQ(refusal(R"({"filter": {"type": "b", "order": 65, "padlen": 1, "cutoff_hz": 1, "sample_rate_hz": 2, "input": null}})"),
            "s.meta.json: key 'filter.order': expected a whole number from 1 to 64, got 65");
  EXPECT_EQ(refusal(R"({"stream": 3})"), "s.meta.json: key 'stream': expected an object, got 3");
  EXPECT_EQ(refusal(R"({"clock": 1})"), "s.meta.json: key 'clock': expected \"lockstep\" or \"realtime\", got 1");
  EXPECT_EQ(refusal(R"({"stream_checks": {"repeated_frames": 1, "exposure_backwards": -2, "stamps_ahead": 0}})"),
            "s.meta.json: key 'stream_checks.exposure_backwards': expected a whole number from 0 to 9223372036854775807, got -2");
  EXPECT_EQ(refusal(R"({"stream_checks": {"repeated_frames": 1}})"),
            "s.meta.json: key 'stream_checks.exposure_backwards': missing");
  EXPECT_EQ(refusal(R"({"seed": -1})"), "s.meta.json: key 'seed': expected a whole number from 0 to 2^64 - 2, got -1");
}

TEST(TraceMetadata, StreamChecksOfASidecarWrittenBeforeTheyWereTypedAreReadTyped) {
  // `vcloe control` wrote them through the untyped keys (TraceMetadata::other), same key and layout.
  const std::string old = R"({"source": "rig", "stream_checks": {"exposure_backwards": 0, "repeated_frames": 4, "stamps_ahead": 1}})";
  const TraceMetadata m = parse_sidecar(old, "old.csv.meta.json");
  ASSERT_TRUE(m.stream_checks);
  EXPECT_EQ(m.stream_checks->repeated_frames, 4u);
  EXPECT_EQ(m.stream_checks->stamps_ahead, 1u);
  EXPECT_TRUE(m.other.empty());
  EXPECT_EQ(to_json(m), nlohmann::json::parse(old)) << "written back as it was";
}

TEST(TraceMetadata, AFileRecordedAsNoneIsNotLookedUp) {
  PoseTrace t;
  t.metadata.experiment = FileRecord{};
  EXPECT_FALSE(recorded_file(t, "experiment", "t.csv"));
  EXPECT_FALSE(recorded_file(t, "robot", "t.csv"));  // not recorded at all
  t.metadata.robot = FileRecord{"/nonexistent-vcloe/robot.yaml", ""};
  EXPECT_NE(error_of([&] { recorded_file(t, "robot", "t.csv"); }).find("as the robot file, not found"), std::string::npos);
}

// Probe 24's C: a hand-edited `"source": "hardware"` in vcloe's own sidecar was read as free text
// and carried on by `filter`. Every enumerated key of the sidecar is one of its documented values
// (docs/traces.md, docs/protocol.md), refused otherwise naming the sidecar and the key; `source`
// of a sidecar without `format` (another tool's export) stays its own (docs/robustness.md).
TEST(TraceMetadata, AnEnumeratedKeyOutsideItsDocumentedValuesIsRefused) {
  const std::string vcloe = R"("format": "vcloe-trace-1", )";
  const std::string sources = R"(expected "twin", "virtual", "rig", "measure" or "render", got )";
  const struct {
    std::string json;
    std::string refusal;  // empty: read
  } cases[] = {
      {"{" + vcloe + R"("source": "hardware"})", "s.meta.json: key 'source': " + sources + "\"hardware\""},
      {"{" + vcloe + R"("source": "Virtual"})", "s.meta.json: key 'source': " + sources + "\"Virtual\""},
      {"{" + vcloe + R"("source": ""})", "s.meta.json: key 'source': " + sources + "\"\""},
      {"{" + vcloe + R"("source": 1})", "s.meta.json: key 'source': " + sources + "1"},
      {"{" + vcloe + R"("source": "twin"})", ""},
      {"{" + vcloe + R"("source": "virtual"})", ""},
      {"{" + vcloe + R"("source": "rig"})", ""},
      {"{" + vcloe + R"("source": "measure"})", ""},
      {"{" + vcloe + R"("source": "render"})", ""},
      {R"({"source": "optitrack export"})", ""},  // no format: another tool's, named by itself
      {R"({"source": 1})", "s.meta.json: key 'source': expected a string, got 1"},
      {R"({"clock": "wallclock"})", R"(s.meta.json: key 'clock': expected "lockstep" or "realtime", got "wallclock")"},
      {R"({"clock": "realtime"})", ""},
      {R"({"clock": "lockstep"})", ""},
      {R"({"outer_form": "bogus"})", R"(s.meta.json: key 'outer_form': expected "feedforward" or "literal", got "bogus")"},
  };
  for (const auto& c : cases)
    EXPECT_EQ(error_of([&] { parse_sidecar(c.json, "s.meta.json"); }), c.refusal) << c.json;
}

// Probe 28, E: a sidecar's copies of its experiment's timing, edited alone (latency 0.0105 s at
// 1000 Hz, controller_hz 150 over camera_hz 100), were read and written on by `filter`. The one
// sidecar reader holds them to the experiment file's own rules (LoopTiming::problem).
TEST(TraceMetadata, CopiesOfTheExperimentsTimingAreHeldToTheExperimentFilesRulesAndFiltersRateToTheCameras) {
  const std::string rule = "the copied timing breaks the experiment file's rule (docs/experiment-file.md): ";
  const struct {
    std::string json;
    std::string refusal;  // empty: read
  } cases[] = {
      {R"({"controller_hz": 1000, "camera_hz": 100, "latency_s": 0.0105})",
       "s.meta.json: key 'latency_s': " + rule +
           "timing.latency must be a multiple of the controller period, in [0, 86400] s: 0.001 s (got 0.0105 s)"},
      {R"({"controller_hz": 150, "camera_hz": 100, "latency_s": 0.02})",
       "s.meta.json: key 'camera_hz': " + rule + "timing.camera_hz must divide timing.controller_hz (got 100 and 150 Hz)"},
      {R"({"controller_hz": 1000, "camera_hz": 0.5})",
       "s.meta.json: key 'camera_hz': " + rule + "timing.camera_hz must be at least 1 Hz (got 0.5 Hz)"},
      {R"({"controller_hz": 200000})", "s.meta.json: key 'controller_hz': " + rule + "timing.controller_hz must be in (0, 100000] Hz"},
      {R"({"controller_hz": 2000, "substeps": 1000})",
       "s.meta.json: key 'substeps': " + rule +
           "timing.controller_hz x timing.substeps is 2e+06 integration steps per second; at most 10^6 (a step of 1 us)"},
      {R"({"controller_hz": 1000, "camera_hz": 100, "latency_s": 0.01, "substeps": 4})", ""},
      {R"({"controller_hz": 1000, "latency_s": 0.003})", ""},  // camera_hz not copied: not judged
      {R"({"camera_hz": 150, "latency_s": 0.0105})", ""},      // no controller_hz: no loop copied (measure)
      // filter's rate is the camera's (its rows are one per exposure)
      {R"({"camera_hz": 100, "filter": {"type": "b", "order": 8, "padlen": 27, "cutoff_hz": 20, "sample_rate_hz": 50, "input": null}})",
       "s.meta.json: key 'filter.sample_rate_hz': expected the camera_hz the sidecar records, 100 Hz, got 50"},
      {R"({"camera_hz": 100, "filter": {"type": "b", "order": 8, "padlen": 27, "cutoff_hz": 20, "sample_rate_hz": 100.00000000001, "input": null}})", ""},
  };
  for (const auto& c : cases)
    EXPECT_EQ(error_of([&] { parse_sidecar(c.json, "s.meta.json"); }), c.refusal) << c.json;
}
