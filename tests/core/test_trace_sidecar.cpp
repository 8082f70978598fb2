// Specification of a pose trace's sidecar and recorded files (docs/traces.md): the sidecar
// holds the CSV's SHA-256 and the recorded files, checked and found beside the trace; a torn
// pair, a killed write, an unreadable path or a malformed sidecar field is said as such.
#include <gtest/gtest.h>

#include "../test_support.hpp"
#include "trace_fixtures.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>

#include <sys/stat.h>

#include "vcloe/core/error.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/core/trace_compare.hpp"

using namespace vcloe;
using namespace vcloe::test::trace;
namespace fs = std::filesystem;

TEST(Sha256, MatchesFips180Vectors) {
  EXPECT_EQ(sha256(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, AFileIsHashedInChunksAsItsBytes) {
  // 1 MiB + 3 bytes: many read chunks and a 3-byte tail after the last full one; every byte
  // value occurs.
  std::string bytes((1 << 20) + 3, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 131 + i / 7) & 0xff);
  const fs::path p = dir() / "mb3.bin";
  std::ofstream(p, std::ios::binary) << bytes;
  ASSERT_EQ(fs::file_size(p), bytes.size());
  EXPECT_EQ(sha256_file(p.string()), sha256(bytes));
  EXPECT_NE(sha256_file(p.string()), sha256(bytes.substr(0, bytes.size() - 1)));
}

TEST(Sha256, AnUnreadableFileIsAnErrorNamingIt) {
  const std::string missing = (dir() / "no-such-file.yaml").string();
  EXPECT_THROW(sha256_file(missing), vcloe::Error);
  EXPECT_NE(error_of([&] { sha256_file(missing); }).find(missing + ": file not found"), std::string::npos);
  // A directory opens but cannot be read: an error, not the hash of nothing (the one input check).
  EXPECT_NE(error_of([] { sha256_file(dir().string()); }).find(dir().string() + ": is a directory, expected a file"),
            std::string::npos);
}

TEST(Trace, RecordedFilesAreCheckedAndFoundBesideTheTrace) {
  const std::string ref = write_text("ref.yaml", "f0: 0.1\n");
  PoseTrace t = sample_trace();
  const std::string trace = (dir() / "recorded.csv").string();
  // A path relative to the trace's directory (an older sidecar, read from elsewhere).
  t.metadata.reference = FileRecord{"ref.yaml", "x"};
  const auto f = recorded_file(t, "reference", trace);
  ASSERT_TRUE(f);
  EXPECT_EQ(fs::path(f->path), fs::path(ref));
  EXPECT_FALSE(recorded_file(t, "robot", trace));  // not recorded
  // A field of the wrong JSON type is an error naming the sidecar, not a library exception.
  EXPECT_EQ(error_of([&] { parse_sidecar(R"({"reference": {"path": 42}})", trace + ".meta.json"); }),
            trace + ".meta.json: key 'reference': expected {\"path\": string, \"sha256\": string} or null, got {\"path\":42}");
  // A device or a directory recorded as a file: refused (reading /dev/zero would never end).
  t.metadata.robot = FileRecord{"/dev/zero", ""};
  EXPECT_NE(error_of([&] { recorded_file(t, "robot", trace); }).find("is not a regular file"), std::string::npos);
}

TEST(Trace, TheSidecarHoldsTheCsvHashAndATornPairIsRefusedNamingBoth) {
  // `vcloe run` killed between its two renames left a new CSV beside the old sidecar, which
  // identify then fitted against the old reference. The sidecar now records the CSV's hash.
  const fs::path a = dir() / "bound.csv", b = dir() / "other.csv";
  for (const fs::path& p : {a, b}) fs::remove(p), fs::remove(sidecar_path(p.string()));
  write_trace(a.string(), sample_trace(), false);
  PoseTrace changed = sample_trace();
  changed.measured[2](0) = 0.5;
  write_trace(b.string(), changed, false);
  const PoseTrace r = read_trace(a.string());
  EXPECT_EQ(r.metadata.csv_sha256.value_or(""), sha256_file(a.string()));
  EXPECT_TRUE(r.sidecar_bound);
  fs::copy_file(b, a, fs::copy_options::overwrite_existing);  // new CSV, old sidecar
  const std::string e = error_of([&] { read_trace(a.string()); });
  EXPECT_NE(e.find(a.string() + ": does not belong with its sidecar " + sidecar_path(a.string())), std::string::npos)
      << e;
  // A hash of the wrong JSON type names the sidecar and the key.
  std::ofstream(sidecar_path(a.string())) << "{\"csv_sha256\": 7}\n";
  vcloe::test::seal_again(sidecar_path(a.string()));  // the check behind the seal
  EXPECT_EQ(error_of([&] { read_trace(a.string()); }),
            sidecar_path(a.string()) + ": key 'csv_sha256': expected a SHA-256 as 64 hexadecimal digits, got 7");
  // The hash in capitals (another tool's hex) is the same hash, not a torn pair.
  nlohmann::json upper = {{"csv_sha256", sha256_file(a.string())}};
  std::string hex = upper["csv_sha256"];
  std::transform(hex.begin(), hex.end(), hex.begin(), [](unsigned char c) { return std::toupper(c); });
  upper["csv_sha256"] = hex;
  std::ofstream(sidecar_path(a.string())) << upper.dump();
  vcloe::test::seal_again(sidecar_path(a.string()));
  EXPECT_TRUE(read_trace(a.string()).sidecar_bound);
  // A sidecar that is not a JSON object (an array, a number) is no trace metadata.
  std::ofstream(sidecar_path(a.string())) << "[1, 2]\n";
  EXPECT_EQ(error_of([&] { read_trace(a.string()); }),
            sidecar_path(a.string()) + ": expected a JSON object (the trace's metadata, docs/traces.md)");
  // A sidecar written before the hash was recorded (and the seal): refused, naming vcloe seal;
  // read to be adopted, marked as not bound (docs/traces.md, "Sealed sidecars").
  std::ofstream(sidecar_path(a.string())) << "{\"source\": \"twin\"}\n";
  EXPECT_NE(error_of([&] { read_trace(a.string()); }).find("key 'content_sha256': missing"), std::string::npos);
  const PoseTrace old = read_trace(a.string(), SidecarSeal::Adopt);
  EXPECT_TRUE(old.has_sidecar);
  EXPECT_FALSE(old.sidecar_bound);
}

// A file named like a temporary (`<file>.tmp-<N>`: a killed write's, another writer's, a user's)
// is never read as the trace, and never removed by the next write: only what this process made
// is (session 23's probe, C).
TEST(Trace, FilesNamedLikeTemporariesAreNeitherReadNorRemovedByTheNextWrite) {
  const fs::path a = dir() / "stale.csv";
  fs::remove(a), fs::remove(sidecar_path(a.string()));
  const fs::path dead = a.string() + ".tmp-2147483646", live = a.string() + ".tmp-1";
  std::ofstream(dead) << "time,x\n0,garbage";
  std::ofstream(live) << "another writer's data";
  write_trace(a.string(), sample_trace(), false);
  EXPECT_TRUE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_EQ(read_trace(a.string()).size(), 5u);
  fs::remove(live), fs::remove(dead);
  for (const auto& e : fs::directory_iterator(dir()))
    EXPECT_EQ(e.path().filename().string().find("stale.csv.tmp-"), std::string::npos) << e.path();
}

TEST(Trace, FileEntriesRecordAbsolutePaths) {
  const std::string rel = fs::relative(write_text("entry.yaml", "x: 1\n")).string();
  const nlohmann::json e = file_entry(rel);
  EXPECT_TRUE(fs::path(e["path"].get<std::string>()).is_absolute());
  EXPECT_EQ(e["sha256"], sha256_file(rel));
  EXPECT_TRUE(file_entry("").is_null());
}

TEST(Trace, ARecordedPathTheSystemRefusesIsNotFoundNotALibraryException) {
  // fuzz/fuzz_sidecar: a recorded path longer than the system allows made std::filesystem
  // throw "File name too long" out of recorded_file (an internal error instead of a message).
  std::ifstream in(test::fuzz_input("sidecar-path-too-long.json"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  PoseTrace t;
  t.metadata = parse_sidecar(text, "t.csv.meta.json");
  t.has_sidecar = true;
  const std::string e = test::error_of([&] { recorded_file(t, "truth", "/nonexistent-vcloe/t.csv"); });
  EXPECT_NE(e.find("as the truth file, not found"), std::string::npos) << e;
  PoseTrace long_path;
  long_path.metadata.robot = FileRecord{std::string(5000, 'a'), ""};
  EXPECT_NE(test::error_of([&] { recorded_file(long_path, "robot", "t.csv"); }).find("not found"), std::string::npos);
}

TEST(Trace, PipesLoopsAndOverlongNamesAreSaidAsSuchNeverWaitedOnOrThrown) {
  // A FIFO nobody writes to hung every reader; a symbolic-link loop or a name too long for
  // the files written beside it was the library's "filesystem error" (exit 3).
  const fs::path fifo = dir() / "fifo.csv";
  fs::remove(fifo);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of([&] { read_trace(fifo.string()); }),
            fifo.string() + ": is a device, pipe or socket, expected a regular file");
  EXPECT_EQ(error_of([&] { check_output_path(fifo.string(), true); }),
            fifo.string() + ": is a device, pipe or socket, expected a file name");
  const fs::path loop = dir() / "loop.csv";
  fs::remove(loop);
  fs::create_symlink(loop.filename(), loop);
  EXPECT_EQ(error_of([&] { read_trace(loop.string()); }),
            loop.string() + ": cannot be read: Too many levels of symbolic links");
  EXPECT_EQ(error_of([&] { check_output_path(loop.string(), true); }),
            loop.string() + ": cannot be written: Too many levels of symbolic links");
  const std::string longest = (dir() / (std::string(kMaxOutputNameLength - 4, 'n') + ".csv")).string();
  EXPECT_NO_THROW(check_output_path(longest, true));
  const std::string too_long = (dir() / (std::string(kMaxOutputNameLength - 3, 'n') + ".csv")).string();
  EXPECT_NE(error_of([&] { check_output_path(too_long, true); }).find(": a file name of 232 characters; at most 231"),
            std::string::npos);
  EXPECT_EQ(error_of([] { create_output_directory(""); }), "(empty directory name): expected a directory");
  EXPECT_NE(error_of([&] { create_output_directory((loop / "sub").string()); }).find(": cannot create the directory ("),
            std::string::npos);
  // A sidecar that is a loop is not "no sidecar": the trace's metadata cannot be read.
  const fs::path t = dir() / "with-loop.csv";
  fs::remove(t), fs::remove(sidecar_path(t.string()));
  write_trace(t.string(), sample_trace(), true);
  fs::remove(sidecar_path(t.string()));
  fs::create_symlink(fs::path(sidecar_path(t.string())).filename(), sidecar_path(t.string()));
  EXPECT_EQ(error_of([&] { read_trace(t.string()); }),
            sidecar_path(t.string()) + ": cannot be read: Too many levels of symbolic links");
  fs::remove(fifo), fs::remove(loop), fs::remove(sidecar_path(t.string()));
}

TEST(Trace, SidecarFieldsAreCheckedForTypeAndRangeAndJsonKeysForRepeats) {
  // Each was read without a word: a string where a rate belongs, another format, a key twice.
  auto refusal = [](const std::string& json) { return error_of([&] { parse_sidecar(json, "s.meta.json"); }); };
  EXPECT_EQ(refusal(R"({"camera_hz": "100"})"), "s.meta.json: key 'camera_hz': expected a positive number, got \"100\"");
  EXPECT_EQ(refusal(R"({"controller_hz": 0})"), "s.meta.json: key 'controller_hz': expected a positive number, got 0");
  EXPECT_EQ(refusal(R"({"format": "vcloe-trace-2"})"),
            "s.meta.json: key 'format': expected \"vcloe-trace-1\" (this vcloe reads no other), got \"vcloe-trace-2\"");
  EXPECT_EQ(refusal(R"({"substeps": 0})"), "s.meta.json: key 'substeps': expected a whole number from 1 to 1000, got 0");
  EXPECT_EQ(refusal(R"({"substeps": 1.5})"),
            "s.meta.json: key 'substeps': expected a whole number from 1 to 1000, got 1.5");
  EXPECT_EQ(refusal(R"({"seed": -1})"), "s.meta.json: key 'seed': expected a whole number from 0 to 2^64 - 2, got -1");
  // Whole numbers another tool wrote as 1.0 are whole numbers ("expected a whole number, got 1.0").
  EXPECT_NO_THROW(parse_sidecar(R"({"substeps": 1.0, "seed": 7.0})", "ok.json"));
  EXPECT_EQ(refusal(R"({"outer_form": "bogus"})"),
            "s.meta.json: key 'outer_form': expected \"feedforward\" or \"literal\", got \"bogus\"");
  EXPECT_EQ(refusal(R"({"camera_hz": 100, "camera_hz": 50})"), "s.meta.json: key 'camera_hz' appears twice in one object");
  EXPECT_EQ(refusal(R"({"a": {"x": 1, "x": 2}})"), "s.meta.json: key 'x' appears twice in one object");
  EXPECT_NO_THROW(parse_sidecar(R"({"a": {"x": 1}, "b": {"x": 2}, "camera_hz": 100, "seed": 7})", "ok.json"));
  // The parser's message in our words: file, line, column; no "[json.exception...]" tag.
  const std::string e = refusal("{\"camera_hz\": 1e400}");
  EXPECT_EQ(e.find("[json.exception"), std::string::npos) << e;
  EXPECT_EQ(e.rfind("s.meta.json: not valid JSON: ", 0), 0u) << e;
}

// A number a double cannot hold, in any JSON vcloe reads (probe 27, class B): an overflow was
// nlohmann's words without a place, an underflow read as 0. Now each is refused at its line,
// column and key, as the CSV and YAML readers refuse them; strings holding such digits are text.
TEST(Trace, JsonNumbersADoubleCannotHoldAreRefusedAtTheirPlace) {
  auto refusal = [](const std::string& json) { return error_of([&] { parse_json(json, "s.meta.json"); }); };
  const std::string range = " is beyond the range of a double (2.2e-308 to 1.8e308 in magnitude)";
  EXPECT_EQ(refusal("{\"camera_hz\": 1e400}"), "s.meta.json: not valid JSON: line 1, column 15 (key 'camera_hz'): 1e400" + range);
  EXPECT_EQ(refusal("{\"a\": 1,\n \"latency_s\": -1E-400}"),
            "s.meta.json: not valid JSON: line 2, column 15 (key 'latency_s'): -1E-400" + range);
  EXPECT_EQ(refusal("{\"sv\": [1, 2,\n  1e-330]}"), "s.meta.json: not valid JSON: line 2, column 3 (key 'sv'): 1e-330" + range);
  EXPECT_EQ(refusal("[0.5, 1e309]"), "s.meta.json: not valid JSON: line 1, column 7: 1e309" + range);
  EXPECT_NO_THROW(parse_json("{\"n\": \"1e400 \\\" 1e-400\", \"z\": 0e-500, \"m\": 1.7e308, \"t\": 2.3e-308}", "ok.json"));
}

// The rows against the sidecar's camera rate, in the one reader of a trace with a sidecar (every
// command: filter and compare as identify; probe 19's class B): rows every 20 ms under camera_hz
// 100, times in ms, a row off the grid, a row dropped — each refused naming the line; a trace
// starting later on the grid, one whose sidecar records frames left out (measure), and one
// without a sidecar are read.
TEST(Trace, RowsAtAnotherRateThanTheSidecarsCameraAreRefusedAtTheirLine) {
  const std::string path = (vcloe::test::trace::dir() / "rate.csv").string();
  auto with_times = [&](const std::vector<double>& times, bool gaps_recorded = false, bool sidecar = true) {
    PoseTrace t = vcloe::test::trace::sample_trace();
    t.time = times;
    t.metadata.camera_hz = 100.0;
    if (gaps_recorded) t.metadata.missing_frames = std::vector<std::int64_t>{1};
    write_trace(path, t, true);
    if (!sidecar) std::filesystem::remove(sidecar_path(path));
    return vcloe::test::error_of([&] { (void)read_trace(path); });
  };
  const std::string rate = " at the camera_hz 100 Hz of " + sidecar_path(path);
  EXPECT_EQ(with_times({0, 0.02, 0.04, 0.06, 0.08}),
            path + ":3: time 0.02 s is 2 camera periods after 0 s" + rate +
                ", which records no frame left out: one row per exposure expected (rows at another rate, or rows dropped?)");
  EXPECT_EQ(with_times({0, 10, 20, 30, 40}).rfind(path + ":3: time 10 s is 1000 camera periods after 0 s", 0), 0u);
  EXPECT_EQ(with_times({0, 0.01, 0.0178, 0.03, 0.04}),
            path + ":4: time 0.0178 s is not a whole number of camera periods" + rate +
                " (frame 1.78): rows at another rate, or times in other units?");
  EXPECT_EQ(with_times({0, 0.01, 0.02, 0.04, 0.05}).rfind(path + ":5: time 0.04 s is 2 camera periods after 0.02 s", 0), 0u);
  EXPECT_EQ(with_times({1, 1.01, 1.02, 1.03, 1.04}), "");
  EXPECT_EQ(with_times({0, 0.02, 0.03, 0.04, 0.05}, true), "");
  EXPECT_EQ(with_times({0, 0.02, 0.04, 0.06, 0.08}, false, false), "");
}

namespace {
// The sidecar of `path` edited as a hand would (its CSV, and so csv_sha256, unchanged).
void edit_sidecar(const std::string& path, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = nlohmann::json::parse(vcloe::test::file_text(sidecar_path(path)));
  edit(j);
  std::ofstream(sidecar_path(path)) << j.dump(2) << "\n";
  vcloe::test::seal_again(sidecar_path(path));  // the check behind the seal (RequiredSidecar tests the seal)
}
}  // namespace

// Probe 28, E (k6-28): duration_s 50 under the rows of a 1 s run was read by every command and
// written on by `filter`. The one trace reader holds duration_s to the rows; the writer writes no
// sidecar its reader would refuse.
TEST(Trace, ASidecarsDurationIsHeldToTheRowsOfItsCsv) {
  const std::string path = (vcloe::test::trace::dir() / "duration.csv").string();
  auto read_with = [&](double duration, bool stopped = false) {
    PoseTrace t = vcloe::test::trace::sample_trace();  // rows at 0 … 0.04 s
    t.metadata.camera_hz = 100.0;
    write_trace(path, t, true);
    edit_sidecar(path, [&](nlohmann::json& j) {
      j["duration_s"] = duration;
      if (stopped) j["stopped"] = {{"reason", "safety"}, {"frames", 5}, {"time_s", 0.04}};
    });
    return vcloe::test::error_of([&] { (void)read_trace(path); });
  };
  const std::string refused = sidecar_path(path) + ": key 'duration_s': expected the length of the run its CSV's rows cover (rows up to t = 0.04 s: ";
  EXPECT_EQ(read_with(50), refused + "from 0.04 to 0.055 s), got 50");
  EXPECT_EQ(read_with(0.02), refused + "from 0.04 to 0.055 s), got 0.02");
  EXPECT_EQ(read_with(0.056), refused + "from 0.04 to 0.055 s), got 0.056");
  EXPECT_EQ(read_with(0.02, true), refused + "at least 0.04 s), got 0.02");
  EXPECT_EQ(read_with(0.04), "");
  EXPECT_EQ(read_with(0.05), "");
  EXPECT_EQ(read_with(50, true), "");  // a run that stopped early: its rows end before
  // The writer: a trace whose sidecar its reader would refuse is not written.
  const std::string out = (vcloe::test::trace::dir() / "duration-out.csv").string();
  PoseTrace t = vcloe::test::trace::sample_trace();
  t.metadata.camera_hz = 100.0, t.metadata.duration_s = 50.0;
  EXPECT_EQ(vcloe::test::error_of([&] { write_trace(out, t, true); }),
            sidecar_path(out) + ": key 'duration_s': expected the length of the run its CSV's rows cover (rows up to t = 0.04 s: "
                                "from 0.04 to 0.055 s), got 50");
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(sidecar_path(out)));
  t.metadata.duration_s.reset(), t.metadata.controller_hz = 150.0;  // camera_hz 100 does not divide it
  EXPECT_NE(vcloe::test::error_of([&] { write_trace(out, t, true); }).find(sidecar_path(out) + ": key 'camera_hz': "),
            std::string::npos);
  EXPECT_FALSE(fs::exists(out));
}

// Probe 28, E (k6-31, k6-35): a sidecar's copy of its experiment edited alone (outer_form
// "literal" under a feedforward experiment, latency_s 0.5 under 0.01) was read by `filter` and
// `compare`. The one trace reader compares the copies with the experiment file the sidecar
// records, while that file is there with its recorded SHA-256 — the one comparison identify makes
// with the experiment it is given (check_experiment_copies).
TEST(Trace, ASidecarsCopiesAreComparedWithTheExperimentItRecords) {
  const std::string experiment = write_text("late-experiment.yaml", "timing: {latency: 0.02}\n");
  const std::string path = (vcloe::test::trace::dir() / "copies.csv").string();
  auto read_with = [&](const std::function<void(nlohmann::json&)>& edit) {
    PoseTrace t = vcloe::test::trace::sample_trace();
    t.metadata.controller_hz = 1000.0, t.metadata.camera_hz = 100.0, t.metadata.latency_s = 0.02;
    t.metadata.outer_form = "feedforward", t.metadata.experiment = file_record(experiment);
    write_trace(path, t, true);
    edit_sidecar(path, edit);
    return vcloe::test::error_of([&] { (void)read_trace(path); });
  };
  const std::string abs = fs::absolute(experiment).lexically_normal().string();
  const std::string why = ": the sidecar's copy is not the experiment it records (unchanged since: the same SHA-256); record the trace again";
  EXPECT_EQ(read_with([](nlohmann::json&) {}), "");
  EXPECT_EQ(read_with([](nlohmann::json& j) { j["latency_s"] = 0.5; }),
            path + ": was recorded with latency_s 0.5 (" + sidecar_path(path) + "), but " + abs + " gives 0.02" + why);
  EXPECT_EQ(read_with([](nlohmann::json& j) { j["outer_form"] = "literal"; }),
            path + ": was recorded with outer_form \"literal\" (" + sidecar_path(path) + "), but " + abs + " gives \"feedforward\"" + why);
  EXPECT_EQ(read_with([](nlohmann::json& j) { j["controller_hz"] = 2000.0; }),
            path + ": was recorded with controller_hz 2000 (" + sidecar_path(path) + "), but " + abs + " gives 1000" + why);
  // The experiment changed or gone since: nothing recorded to compare with (identify says so).
  EXPECT_EQ(read_with([&](nlohmann::json& j) {
              j["latency_s"] = 0.5;
              std::ofstream(experiment) << "timing: {latency: 0.5}\n# edited\n";
            }),
            "");
  EXPECT_EQ(read_with([&](nlohmann::json& j) {
              j["latency_s"] = 0.5;
              fs::remove(experiment);
            }),
            "");
}
