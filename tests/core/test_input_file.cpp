// Session 23's probe, class A (docs/robustness.md): every input file is read whole by the one
// read_input_file (core/input_file.hpp), bounded by its kind before a byte is read, and memory
// running out while it is read or parsed is said of the file in one line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>

#include "../test_support.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/input_file.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/core/yaml_reader.hpp"

namespace test_input_file {

using namespace vcloe;
using vcloe::test::error_of;
namespace fs = std::filesystem;

fs::path fresh(const std::string& name) { return test::fresh_directory("vcloe-input-file", name); }

// A sparse file of `bytes` (nothing written: zeros, no disk used).
std::string sparse(const fs::path& p, std::uintmax_t bytes) {
  std::ofstream(p).close();
  fs::resize_file(p, bytes);
  return p.string();
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Kind {
  InputKind kind;
  const char* name;
  const char* expected;  // what the message says is expected
};

// A 20 GB sparse file of each kind was read whole (never ended): now refused from its size alone,
// at once, in the same line for every kind; one byte more than the bound is enough.
TEST(InputFile, AFileAboveItsKindsBoundIsRefusedBeforeAnyByteIsRead) {
  const fs::path d = fresh("above");
  const Kind kinds[] = {{InputKind::Yaml, "s.yaml", "a YAML file of at most 16777216 bytes (16 MiB) expected"},
                        {InputKind::Trace, "t.csv", "a trace of at most 2000000000 bytes expected"},
                        {InputKind::Json, "r.json", "a JSON file of at most 67108864 bytes (64 MiB) expected"},
                        {InputKind::KeyFile, "robot.key", "a key file of at most 1048576 bytes (1 MiB) expected"},
                        {InputKind::ImageList, "list.txt", "an image list of at most 67108864 bytes (64 MiB) expected"},
                        {InputKind::Image, "left.png", "an image file of at most 1073741824 bytes (1 GiB) expected"}};
  for (const Kind& k : kinds) {
    for (const std::uintmax_t size : {input_size_bound(k.kind) + 1, std::uintmax_t{20} << 30}) {
      const std::string f = sparse(d / k.name, size);
      const auto t0 = std::chrono::steady_clock::now();
      EXPECT_EQ(error_of([&] { read_input_file(f, k.kind); }),
                f + ": a file of " + std::to_string(size) + " bytes; " + k.expected);
      EXPECT_LT(seconds_since(t0), 1.0) << f;
    }
    EXPECT_EQ(input_size_problem(input_size_bound(k.kind), k.kind), std::nullopt) << k.name;  // the bound itself is read
  }
}

// The readers of each kind go through it: the YAML reader, the trace reader (its CSV and its
// sidecar), the JSON reader.
TEST(InputFile, EveryReaderGoesThroughTheOneBoundedRead) {
  const fs::path d = fresh("readers");
  const std::string yaml = sparse(d / "big.yaml", std::uintmax_t{20} << 30);
  EXPECT_EQ(error_of([&] { YamlDoc::load(yaml); }), yaml + ": a file of 21474836480 bytes; a YAML file of at most 16777216 bytes (16 MiB) expected");
  const std::string csv = sparse(d / "big.csv", std::uintmax_t{50} << 30);
  EXPECT_EQ(error_of([&] { read_trace(csv); }), csv + ": a file of 53687091200 bytes; a trace of at most 2000000000 bytes expected");
  std::ofstream(d / "run.csv") << "time,x,y,z,alpha,beta,gamma\n0,0,0,0,0,0,0\n";
  const std::string meta = sparse(d / "run.csv.meta.json", std::uintmax_t{30} << 30);
  EXPECT_EQ(error_of([&] { read_trace((d / "run.csv").string()); }),
            meta + ": a file of 32212254720 bytes; a JSON file of at most 67108864 bytes (64 MiB) expected");
  const std::string json = sparse(d / "r.json", std::uintmax_t{30} << 30);
  EXPECT_EQ(error_of([&] { read_json_file(json); }), json + ": a file of 32212254720 bytes; a JSON file of at most 67108864 bytes (64 MiB) expected");
}

// Just below each bound a file is read, and its content then judged by its parser.
TEST(InputFile, AFileJustBelowItsBoundIsReadAndJudgedByItsContent) {
  const fs::path d = fresh("below");
  const std::string yaml = sparse(d / "s.yaml", input_size_bound(InputKind::Yaml));
  EXPECT_EQ(read_input_file(yaml, InputKind::Yaml).size(), input_size_bound(InputKind::Yaml));
  const std::string e = error_of([&] { YamlDoc::load(yaml); });
  EXPECT_EQ(e.rfind(yaml, 0), 0u) << e;
  EXPECT_EQ(e.find("bytes; a YAML file"), std::string::npos) << e;
  const std::string json = sparse(d / "r.json", input_size_bound(InputKind::Json) - 1);
  EXPECT_EQ(error_of([&] { read_json_file(json); }).rfind(json + ": not valid JSON", 0), 0u);
  const std::string key = sparse(d / "robot.key", input_size_bound(InputKind::KeyFile));
  EXPECT_EQ(read_input_file(key, InputKind::KeyFile).size(), input_size_bound(InputKind::KeyFile));
  const std::string list = sparse(d / "list.txt", input_size_bound(InputKind::ImageList) - 1);
  EXPECT_EQ(read_input_file(list, InputKind::ImageList).size(), input_size_bound(InputKind::ImageList) - 1);
  // A trace's and an image's bounds (2 GB, 1 GiB) are checked by size alone above; a trace well
  // below is read by the trace reader as ever.
  std::ofstream(d / "t.csv") << "time,x,y,z,alpha,beta,gamma\n0,0,0,0,0,0,0\n";
  EXPECT_EQ(read_trace((d / "t.csv").string()).size(), 1u);
}

// std::bad_alloc while a file is read or parsed (a 600 MB YAML file under `ulimit -v` ended in
// "internal error: std::bad_alloc", exit 3) is one line naming the file and its size.
TEST(InputFile, MemoryRunningOutWhileAFileIsParsedIsSaidOfTheFile) {
  const fs::path d = fresh("memory");
  std::ofstream(d / "c.yaml") << "a: 1\n";
  const std::string f = (d / "c.yaml").string();
  EXPECT_EQ(error_of([&] { parse_input_file(f, InputKind::Yaml, [](const std::string&) -> int { throw std::bad_alloc(); }); }),
            "not enough memory to read " + f + " (5 bytes)");
  EXPECT_EQ(parse_input_file(f, InputKind::Yaml, [](const std::string& text) { return text.size(); }), 5u);
}

}  // namespace test_input_file
