// Specification of pose-trace files (docs/traces.md): exact round trip, no silent overwrite,
// and errors that name the line and column of bad data.
#include <gtest/gtest.h>

#include "../test_support.hpp"
#include "trace_fixtures.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/core/trace_compare.hpp"

using namespace vcloe;
using namespace vcloe::test::trace;
namespace fs = std::filesystem;

TEST(Trace, RoundTripIsExactAndFilesAreByteIdentical) {
  const fs::path a = dir() / "a.csv", b = dir() / "b.csv";
  fs::remove(a), fs::remove(sidecar_path(a.string())), fs::remove(b), fs::remove(sidecar_path(b.string()));
  const PoseTrace t = sample_trace();
  write_trace(a.string(), t, false);
  write_trace(b.string(), t, false);
  const PoseTrace r = read_trace(a.string());
  ASSERT_EQ(r.size(), t.size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(r.time[i], t.time[i]);
    EXPECT_EQ(r.measured[i], t.measured[i]);
    EXPECT_EQ(r.reference[i], t.reference[i]);
    EXPECT_EQ(r.command[i], t.command[i]);
    EXPECT_EQ(r.truth[i], t.truth[i]);
  }
  EXPECT_TRUE(r.has_sidecar);
  EXPECT_EQ(r.metadata.seed.value_or(0), 7u);
  EXPECT_EQ(sha256_file(a.string()), sha256_file(b.string()));
}

TEST(Trace, NeverOverwritesWithoutForce) {
  const fs::path a = dir() / "keep.csv";
  fs::remove(a), fs::remove(sidecar_path(a.string()));
  write_trace(a.string(), sample_trace(), false);
  const std::string before = sha256_file(a.string());
  PoseTrace other = sample_trace();
  other.measured[0](0) = 42;
  EXPECT_NE(error_of([&] { write_trace(a.string(), other, false); }).find("keep.csv.meta.json: exists (written meanwhile by another command?) and is not replaced without --force"),
            std::string::npos);
  EXPECT_EQ(sha256_file(a.string()), before);
  write_trace(a.string(), other, true);
  EXPECT_NE(sha256_file(a.string()), before);
}

TEST(Trace, MalformedFilesNameTheLine) {
  EXPECT_NE(error_of([] { read_trace(write_text("m1.csv", "time,x,y,z,alpha,beta\n0,1,2,3,4,5\n")); })
                .find("m1.csv:1: missing column 'gamma'"),
            std::string::npos);
  EXPECT_NE(error_of([] { read_trace(write_text("m2.csv", kHeader + "0,0,0,0,0,0,0\n0.01,0,0,0,0,0\n")); })
                .find("m2.csv:3: expected 7 columns, got 6"),
            std::string::npos);
  EXPECT_NE(error_of([] { read_trace(write_text("m3.csv", kHeader + "0,0,0,0,0,0,0\n0.01,0,nan,0,0,0,0\n")); })
                .find("m3.csv:3: column 'y': non-finite value 'nan'"),
            std::string::npos);
  // One cell of 1e300 made the fit's cost infinite and `compare` print "RMS inf".
  EXPECT_NE(error_of([] { read_trace(write_text("m6.csv", kHeader + "0,0,0,0,0,0,0\n0.01,1e300,0,0,0,0,0\n")); })
                .find("m6.csv:3: column 'x': 1e300 is beyond any value a vcloe table holds"),
            std::string::npos);
  EXPECT_NE(error_of([] { read_trace(write_text("m4.csv", kHeader + "0.02,0,0,0,0,0,0\n0.01,0,0,0,0,0,0\n")); })
                .find("m4.csv:3: time 0.01 s does not increase"),
            std::string::npos);
  EXPECT_NE(error_of([] { read_trace(write_text("m5.csv", kHeader + "0,0,0,abc,0,0,0\n")); })
                .find("m5.csv:2: column 'z': expected a number, got 'abc'"),
            std::string::npos);
  EXPECT_NE(error_of([] { read_trace(write_text("m6.csv", kHeader)); }).find("no data rows"), std::string::npos);
  EXPECT_NE(error_of([] { read_trace("/nonexistent/t.csv"); }).find("file not found"), std::string::npos);
}

TEST(Trace, CrlfLineEndingsAndAByteOrderMarkAreRead) {
  // A trace saved by a spreadsheet on Windows: UTF-8 BOM, CRLF line endings. Same values.
  const std::string unix = write_text("unix.csv", kHeader + "0,1,2,3,4,5,6\n0.01,1.5,2,3,4,5,6\n");
  const std::string dos =
      write_text("dos.csv", "\xEF\xBB\xBF" "time,x,y,z,alpha,beta,gamma\r\n0,1,2,3,4,5,6\r\n0.01,1.5,2,3,4,5,6\r\n");
  const PoseTrace a = read_trace(unix), b = read_trace(dos);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(a.time, b.time);
  EXPECT_EQ(a.measured, b.measured);
}

TEST(Trace, AHeaderRowOfAnotherShapeIsSaidAsSuchNotAsAMissingColumn) {
  // Each was "missing column 'time'" or "column '0.0190…' appears twice" (a third probe).
  auto refusal = [](const std::string& name, const std::string& text) {
    return error_of([&] { parse_trace(text, name); });
  };
  const std::string rows = "0,1,2,3,4,5,6\n0.01,1.5,2,3,4,5,6\n";
  EXPECT_EQ(refusal("cr.csv", "time,x,y,z,alpha,beta,gamma\r0,1,2,3,4,5,6\r"),
            "cr.csv:1: a carriage return inside the header row (lines ending in a bare CR, or CR CR LF); expected LF "
            "or CR LF line endings");
  EXPECT_NE(refusal("crcrlf.csv", "time,x,y,z,alpha,beta,gamma\r\r\n" + rows).find("a carriage return inside"),
            std::string::npos);
  EXPECT_EQ(refusal("tabs.csv", "time\tx\ty\tz\talpha\tbeta\tgamma\n0\t1\t2\t3\t4\t5\t6\n"),
            "tabs.csv:1: the header row is separated by tabs; expected comma-separated columns (time,x,y,z,alpha,beta,"
            "gamma, …)");
  EXPECT_NE(refusal("semi.csv", "time;x;y;z;alpha;beta;gamma\n").find("separated by semicolons"), std::string::npos);
  EXPECT_EQ(refusal("tiny.csv", "time,x,y,z,alpha,beta,gamma\n0,1e-400,0,0,0,0,0\n"),
            "tiny.csv:2: column 'x': 1e-400 is beyond the range of a double (2.2e-308 to 1.8e308 in magnitude)");
  // Quoted column names (a spreadsheet's export) are those names.
  const PoseTrace q = parse_trace("\"time\",\"x\",\"y\",\"z\",\"alpha\",\"beta\",\"gamma\"\n" + rows, "quoted.csv");
  EXPECT_EQ(q.measured[1](0), 1.5);
}

TEST(Trace, ARepeatedColumnIsRefusedAndSpacesAroundCellsAreRead) {
  // Two 'x' columns: the first was read silently.
  EXPECT_EQ(error_of([] { read_trace(write_text("twice.csv", "time,x,y,z,alpha,beta,gamma,x\n0,1,0,0,0,0,0,5\n")); }),
            (dir() / "twice.csv").string() + ":1: column 'x' appears twice (columns 2 and 8)");
  const PoseTrace t = read_trace(write_text("spaced.csv", "time, x ,y,z,alpha,beta,gamma\n0, 1.5 ,0,0,0,0,0\n"));
  EXPECT_EQ(t.measured[0](0), 1.5);
}

TEST(Trace, ADirectoryIsNamedAsSuchNotReadAsAStream) {
  EXPECT_EQ(error_of([] { read_trace(dir().string()); }), dir().string() + ": is a directory, expected a file");
}

TEST(Trace, ANonFiniteValueIsRefusedBeforeAnythingIsWritten) {
  const fs::path a = dir() / "nan.csv";
  fs::remove(a), fs::remove(sidecar_path(a.string()));
  PoseTrace t = sample_trace();
  t.measured[3](1) = std::nan("");
  EXPECT_NE(error_of([&] { write_trace(a.string(), t, false); }).find("row 4 (t = 0.03 s) holds a non-finite or absurd value"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(a));
  EXPECT_FALSE(fs::exists(sidecar_path(a.string())));
}

TEST(Trace, AnOutputThatIsADirectoryIsAnErrorNotALibraryMessage) {
  const fs::path d = dir() / "a-directory.csv";
  fs::create_directories(d);
  EXPECT_EQ(error_of([&] { write_trace(d.string(), sample_trace(), true); }),
            d.string() + ": is a directory, expected a file name");
  EXPECT_EQ(error_of([&] { write_file_atomically(d.string(), "x", true); }),
            d.string() + ": is a directory, expected a file name");
  EXPECT_EQ(error_of([&] { write_file_atomically("", "x", true); }), "(empty output path): expected a file name");
}

TEST(Trace, AFuzzFoundCarriageReturnInsideACellIsAOneLineError) {
  // fuzz/fuzz_trace: a carriage return inside a row (not at its end) was copied into the
  // error, which then printed as two lines.
  const std::string file = test::fuzz_input("trace-carriage-return-in-a-cell.csv");
  const std::string e = test::error_of([&] { read_trace(file); });
  EXPECT_EQ(e.rfind(file + ":4: column 'true_x': expected a number, got '", 0), 0u) << e;
  EXPECT_EQ(e.find_first_of("\r\n"), std::string::npos) << e;
  EXPECT_NE(e.find("\\r"), std::string::npos) << e;
}

TEST(Trace, TheRowsOfFramesTheRigDidNotMeasureAreLeftOutByTheOneReader) {
  // A rig trace repeats the last valid pose on frames vision marked invalid (or the recorder
  // never got), listed in the sidecar's stream record; `filter` filtered them as data
  // (peer-vis-invalid4-filter), identify fitted them. read_trace leaves them out, as `measure`
  // never writes them: every command sees the same gaps.
  const fs::path a = dir() / "rig.csv";
  PoseTrace t;
  for (int j = 0; j < 8; ++j) {
    t.time.push_back(0.01 * j);
    t.measured.push_back(Vec6d::Constant(j < 3 || j > 5 ? 0.001 * j : 0.002));  // 3-5 repeat frame 2's
    t.reference.push_back(Vec6d::Constant(0.001 * j));
  }
  t.metadata.camera_hz = 100;
  StreamRecord s;
  s.invalid_frames = {3, 4};
  s.missing_frames = {5};
  t.metadata.stream = s;
  write_trace(a.string(), t, true);
  const PoseTrace r = read_trace(a.string());
  EXPECT_EQ(r.time, (std::vector<double>{0, 0.01, 0.02, 0.06, 0.07}));
  ASSERT_EQ(r.measured.size(), 5u);
  ASSERT_EQ(r.reference.size(), 5u);
  EXPECT_DOUBLE_EQ(r.measured[3](0), 0.006);
  EXPECT_DOUBLE_EQ(r.reference[3](0), 0.006);
  EXPECT_EQ(unmeasured_frames(r.metadata), (std::vector<std::int64_t>{3, 4, 5}));
  // Written back with those rows left out, it reads back the same (the gaps are recorded).
  const fs::path b = dir() / "rig-again.csv";
  write_trace(b.string(), r, true);
  EXPECT_EQ(read_trace(b.string()).time, r.time);
  // Every frame unmeasured: no row left to compare or fit, refused (compare said "0 samples", RMS nan).
  s.invalid_frames = {0, 1, 2, 3, 4, 6, 7};
  t.metadata.stream = s;
  const fs::path none = dir() / "rig-none.csv";
  write_trace(none.string(), t, true);
  EXPECT_EQ(error_of([&] { read_trace(none.string()); }),
            none.string() + ": has no measured row: " + none.string() + ".meta.json lists every one of its 8 frames as "
                                                                         "unmeasured (stream.missing_frames, stream.invalid_frames)");
  // A frame that is no frame of the run (probe 31, B: frame 5000 of 200, frame -1) is refused at its key.
  t.metadata.duration_s = 0.08;  // exposures 0 to 0.07 s: frame 8 would be at the end (probe 32, i05)
  for (const std::int64_t f : {std::int64_t{8}, std::int64_t{-1}}) {
    s.invalid_frames = {2}, s.missing_frames = {f};
    t.metadata.stream = s;
    write_trace(none.string(), t, true);
    EXPECT_EQ(error_of([&] { read_trace(none.string()); }),
              none.string() + ".meta.json: key 'stream.missing_frames': frame " + std::to_string(f) +
                  " is no frame of this run (frames 0 to 7 at 100 Hz): expected the frames of the run it records");
  }
}

TEST(Trace, ALiveRigsRowsAreThoseOfItsRunOrOfItsRecordedStop) {
  // Probe 34, B: a stopped run's `stopped` deleted (10 rows of a 1 s run, its last 5 invalid:
  // compared as whole), a stop made up on a whole run or moved past the rows, `poses_received`
  // edited under the rows. Each a sidecar edited by hand (write_trace writes none of them).
  const fs::path a = dir() / "stream-rows.csv";
  const std::string meta = a.string() + ".meta.json";
  auto run = [](int rows) {
    PoseTrace t;
    for (int j = 0; j < rows; ++j) {
      t.time.push_back(0.01 * j);
      t.measured.push_back(Vec6d::Constant(0.001 * j));
      t.reference.push_back(Vec6d::Constant(0.001 * j));
    }
    t.metadata.camera_hz = 100, t.metadata.duration_s = 1.0;
    StreamRecord s;
    s.poses_received = static_cast<std::uint64_t>(rows);
    t.metadata.stream = s;
    return t;
  };
  PoseTrace whole = run(100);
  PoseTrace stopped = run(10);
  stopped.metadata.stream->invalid_frames = {5, 6, 7, 8, 9};
  stopped.metadata.stopped = StoppedRecord{"too many invalid poses in a row", 10, 0.091};
  auto refusal = [&](const PoseTrace& t, const std::function<void(nlohmann::json&)>& edit) {
    write_trace(a.string(), t, true);
    nlohmann::json j = nlohmann::json::parse(std::ifstream(meta));
    edit(j);
    std::ofstream(meta, std::ios::trunc) << j.dump(1);
    vcloe::test::seal_again(meta);  // the check behind the seal
    return error_of([&] { read_trace(a.string()); });
  };
  auto none = [](nlohmann::json&) {};
  EXPECT_EQ(refusal(whole, none), "");
  EXPECT_EQ(refusal(stopped, none), "");
  const std::string deleted = refusal(stopped, [](nlohmann::json& j) { j.erase("stopped"); });  // R003
  EXPECT_EQ(deleted.rfind(meta + ": key 'duration_s': a run to frame 99 (duration_s 1 s) with no stop recorded, but the CSV's "
                                 "rows end at frame 9 and frame 10 is not listed as unmeasured",
                          0),
            0u)
      << deleted;
  EXPECT_EQ(refusal(stopped, [](nlohmann::json& j) {  // its last frames listed: a whole run's rows lost on writing back
              j.erase("stopped");
              for (int f = 10; f < 100; ++f) j["stream"]["missing_frames"].push_back(f);
            }),
            "");
  const std::string made_up = refusal(whole, [](nlohmann::json& j) {  // R010
    j["stopped"] = {{"reason", "made up"}, {"frames", 5}, {"time_s", 0.05}};
  });
  EXPECT_EQ(made_up.rfind(meta + ": key 'stopped.frames': 5 frames recorded before the stop, but the CSV has rows to frame 99", 0), 0u)
      << made_up;
  const std::string moved = refusal(stopped, [](nlohmann::json& j) {  // R021
    j["stopped"]["frames"] = 90, j["stopped"]["time_s"] = 0.9;
  });
  EXPECT_EQ(moved.rfind(meta + ": key 'stopped.frames': 90 frames recorded before the stop, but the CSV's rows end at frame 9", 0), 0u)
      << moved;
  EXPECT_EQ(refusal(whole, [](nlohmann::json& j) { j["stream"]["poses_received"] = 7; }),  // R009
            meta + ": key 'stream.poses_received': 7, but the CSV has 100 rows of frames received (not in "
                   "stream.missing_frames): expected at least that many");
  EXPECT_EQ(refusal(whole, [](nlohmann::json& j) {  // rows of frames never received are not counted
              j["stream"]["missing_frames"] = {0, 1, 2};
              j["stream"]["poses_received"] = 97;
            }),
            "");
}

TEST(Trace, ASourceWithoutTheRecordsEveryTraceOfItHasIsRefused) {
  // Probe 37, S06 and SE02-SE06: a twin relabelled "virtual", "rig", "measure" or "render", its
  // seal made again, was read as a measurement and never made again.
  const fs::path a = dir() / "relabelled.csv";
  const std::string meta = a.string() + ".meta.json";
  for (const std::string source : {"virtual", "rig", "measure", "render"}) {
    PoseTrace t = sample_trace();
    t.metadata.source = "twin";
    write_trace(a.string(), t, true);
    nlohmann::json j = nlohmann::json::parse(std::ifstream(meta));
    j["source"] = source;
    std::ofstream(meta, std::ios::trunc) << j.dump(1);
    vcloe::test::seal_again(meta);
    const std::string e = error_of([&] { read_trace(a.string()); });
    EXPECT_EQ(e.rfind(meta + ": key 'source': \"" + source + "\", but no '", 0), 0u) << e;
    EXPECT_NE(e.find("a sidecar of another kind relabelled?"), std::string::npos) << e;
  }
}

TEST(Trace, AStreamRecordsSummariesAreThoseOfItsOwnPerFrameLists) {
  // Probe 36, RG01 and RG03 (each sealed again by hand): frames added to missing_frames that
  // receive_s records received were left out of every fit; latency p50 0.0005 ms under a list whose
  // median is 0.12 ms was read and copied by seal.
  const fs::path a = dir() / "stream-lists.csv";
  const std::string meta = a.string() + ".meta.json";
  PoseTrace t;
  StreamRecord s;
  for (int j = 0; j < 20; ++j) {
    t.time.push_back(0.01 * j);
    t.measured.push_back(Vec6d::Constant(0.001 * j));
    s.receive_s.push_back(j == 7 ? -1 : 0.01 * j + 0.0002);
    s.publish_to_receive_ms.push_back(j == 7 ? -1 : 0.1 + 0.01 * j);
  }
  s.missing_frames = {7};
  s.poses_received = 19;
  s.latency_p50_ms = latency_quantile(s.publish_to_receive_ms, 0.5);
  s.latency_p99_ms = latency_quantile(s.publish_to_receive_ms, 0.99);
  s.latency_max_ms = latency_quantile(s.publish_to_receive_ms, 1.0);
  t.metadata.camera_hz = 100, t.metadata.duration_s = 0.2, t.metadata.stream = s;
  auto refusal = [&](const std::function<void(nlohmann::json&)>& edit) {
    write_trace(a.string(), t, true);
    nlohmann::json j = nlohmann::json::parse(std::ifstream(meta));
    edit(j);
    std::ofstream(meta, std::ios::trunc) << j.dump(1);
    vcloe::test::seal_again(meta);  // a consistent forgery: the lists are what tell
    return error_of([&] { read_trace(a.string()); });
  };
  EXPECT_EQ(refusal([](nlohmann::json&) {}), "");
  EXPECT_EQ(refusal([](nlohmann::json& j) { j["stream"]["missing_frames"] = {7, 8}; }),
            meta + ": key 'stream.missing_frames': frame 8 is listed, but stream.receive_s records it received at 0.08020000000000001 s: "
                   "expected the frames the recorder never received");
  const std::string unlisted = refusal([](nlohmann::json& j) {
    j["stream"]["missing_frames"] = nlohmann::json::array();
    j["stream"]["poses_received"] = 20;
  });
  EXPECT_NE(unlisted.find("frame 7 is not listed, but stream.receive_s records it never received (-1)"), std::string::npos) << unlisted;
  const std::string p50 = refusal([](nlohmann::json& j) { j["stream"]["latency_ms"]["p50"] = 0.0005; });
  EXPECT_NE(p50.find(meta + ": key 'stream.latency_ms.p50': 5e-04 ms, but its stream.publish_to_receive_ms gives 0.2 ms"),
            std::string::npos) << p50;
  EXPECT_TRUE(std::isnan(latency_quantile({-1, -1}, 0.5))) << "none measured is NaN (null), not 0 ms";
}
