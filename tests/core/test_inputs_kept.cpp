// Probe 19's data-loss and hashing classes at their one place: every file a command reads is an
// input of its IoPlan (the files of a directory read, a study's tables), an earlier recording is
// never discarded by --force, an output folder holds nothing but the outputs, a hash is compared
// in one case and a recorded input that is no regular file is refused before it is opened.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../test_support.hpp"
#include "vcloe/core/json_node.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/core/trace.hpp"

namespace test_inputs_kept {

using vcloe::IoPlan;
using vcloe::test::error_of;
namespace fs = std::filesystem;

fs::path kept_dir(const std::string& name) { return vcloe::test::fresh_directory("vcloe-inputs-kept", name); }
void write_text(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// rig run / control --keys k --out k/robot.pub --force replaced a key with the trace: a directory
// given as an input is every file in it, under any spelling of its files' names.
TEST(InputsKept, EveryFileOfADirectoryReadIsAnInputEvenWithForce) {
  const fs::path d = kept_dir("keys");
  fs::create_directories(d / "k");
  for (const char* f : {"robot.pub", "robot.key", "listen.key", "control.pub"}) write_text(d / "k" / f, "key");
  fs::create_symlink(d / "k" / "listen.key", d / "link.key");
  const std::string keys = (d / "k").string();
  auto refusal = [&](const fs::path& out) {
    return error_of([&] { IoPlan(true).input(keys, "a key of --keys").output(out.string(), "--out").check(); });
  };
  for (const fs::path& out : {d / "k" / "robot.pub", d / "k" / "listen.key", d / "k" / "." / "control.pub", d / "link.key"})
    EXPECT_NE(refusal(out).find("is also an input of this command"), std::string::npos) << out;
  EXPECT_NE(refusal(d / "k" / "robot.pub").find("a key of --keys " + keys), std::string::npos) << refusal(d / "k" / "robot.pub");
  EXPECT_EQ(refusal(d / "k" / "new.csv"), "");  // a new name in the directory is no input
  EXPECT_EQ(refusal(d / "o.csv"), "");
}

// `control --out o.csv --force` removed an interrupted run's o.csv.partial before recording
// anything: a recording that holds rows is the user's, refused with or without --force, at the
// check and at the open; a header alone (nothing recorded) or nothing there may be replaced.
TEST(InputsKept, AnEarlierRecordingIsNeverDiscardedByForce) {
  const fs::path d = kept_dir("partial");
  const std::string partial = (d / "o.csv.partial").string();
  for (const char* rows : {"time,x\n1,2\n", "time,x\nold recording", "a\n\n"}) {
    write_text(partial, rows);
    for (const bool force : {true, false}) {
      const std::string e = error_of([&] { IoPlan(force).recording(partial, "the recording").check(); });
      EXPECT_NE(e.find(partial + ": holds an earlier recording"), std::string::npos) << e;
      EXPECT_NE(e.find("mv " + partial), std::string::npos) << e;
    }
    vcloe::StreamedFile f;
    EXPECT_NE(error_of([&] { f.open(partial, true); }).find("holds an earlier recording"), std::string::npos);
    EXPECT_EQ(vcloe::test::file_text(partial), rows);  // untouched
  }
  for (const char* nothing : {"", "time,x\n", "time,x"}) {
    write_text(partial, nothing);
    EXPECT_EQ(error_of([&] { IoPlan(true).recording(partial).check(); }), "");
    vcloe::StreamedFile f;
    EXPECT_EQ(error_of([&] { f.open(partial, true); }), "");
  }
  EXPECT_EQ(error_of([&] { IoPlan(true).output(partial).check(); }), "");  // an ordinary output: --force replaces it
}

// Probe 24's E: `control --reference o.csv.partial --out o.csv` was refused as "holds an earlier
// recording" when the reference (rows after its first line) was named like control's partial. The
// identity of an output with an input (or another output) is said first, whatever the file holds;
// the recording's own checks follow only for a file that is neither.
TEST(InputsKept, AnOutputThatIsAnInputIsRefusedAsSuchBeforeWhatItHolds) {
  const fs::path d = kept_dir("identity-first");
  const std::string partial = (d / "o.csv.partial").string();
  struct Case {
    const char* held;   // the file's text
    bool as_input;      // also given as --reference
    bool as_output;     // also given as another output
    const char* said;   // the refusal
  };
  const Case cases[] = {
      {"duration: 1\nposes:\n  - [0, 0]\n", true, false, ": is also an input of this command"},
      {"time,x\n1,2\n", true, false, ": is also an input of this command"},
      {"time,x\n1,2\n", false, true, ": is also another output of this command"},
      {"{duration: 1}", true, false, ": is also an input of this command"},
      {"time,x\n1,2\n", false, false, ": holds an earlier recording"},
  };
  for (const Case& c : cases)
    for (const bool force : {true, false}) {
      write_text(partial, c.held);
      IoPlan plan(force);
      if (c.as_input) plan.input(partial, "--reference");
      if (c.as_output) plan.output(partial, "--plot");
      const std::string e = error_of([&] { plan.recording(partial, "the recording of --out").check(); });
      EXPECT_EQ(e.find(partial + c.said), 0u) << c.held << " force " << force << ": " << e;
      EXPECT_EQ(vcloe::test::file_text(partial), c.held);  // untouched
    }
}

// render --force with fewer frames left the earlier render's frames beside the new ones.
TEST(InputsKept, AnOutputFolderHoldsNothingButTheOutputs) {
  const fs::path d = kept_dir("folder");
  fs::create_directories(d / "img");
  for (const char* f : {"left_0000.png", "right_0000.png", "left_0001.png", "right_0001.png"}) write_text(d / "img" / f, "p");
  auto plan = [&](int frames, bool force) {
    IoPlan p(force);
    for (int k = 0; k < frames; ++k)
      for (const char* side : {"left", "right"})
        p.output((d / "img" / (std::string(side) + "_000" + std::to_string(k) + ".png")).string(), "an image");
    return error_of([&] { p.output_folder((d / "img").string(), "--out").check(); });
  };
  const std::string e = plan(1, true);
  EXPECT_NE(e.find((d / "img").string() + ": holds 2 file(s) this command does not write (left_0001.png, right_0001.png)"),
            std::string::npos) << e;
  EXPECT_NE(plan(1, false).find("holds 2 file(s)"), std::string::npos);  // said before "exists; pass --force"
  EXPECT_EQ(plan(2, true), "");
  EXPECT_EQ(plan(3, true), "");  // more frames than before: every old one replaced
  write_text(d / "img" / "notes.txt", "n");
  EXPECT_NE(plan(2, true).find("holds 1 file(s) this command does not write (notes.txt)"), std::string::npos);
}

// Session 29's probe, D: `study --force` wrote through D/truth-1, a link to the user's folder,
// over the files there. Every output under the directory the command claimed stays in it.
TEST(InputsKept, NoOutputUnderTheClaimedDirectoryPassesThroughALink) {
  const fs::path d = kept_dir("within"), outside = kept_dir("within-outside");
  write_text(outside / "measured.csv", "the user's");
  fs::create_directories(d / "truth-2" / "deeper");
  fs::create_directory_symlink(outside, d / "truth-1");
  fs::create_directory_symlink(outside, d / "truth-2" / "deeper" / "link");
  auto plan = [&](const fs::path& out) {
    return error_of([&] { IoPlan(true).within(d.string()).planned(out.string(), "a step's trace").check(); });
  };
  EXPECT_EQ(plan(d / "truth-1" / "measured.csv"),
            (d / "truth-1").string() + ": is a symbolic link (to " + outside.string() + "), not a directory of its own: " +
                (d / "truth-1" / "measured.csv").string() + " would be written where it points, outside " + d.string() + "; remove it");
  EXPECT_NE(plan(d / "truth-2" / "deeper" / "link" / "x.csv").find((d / "truth-2" / "deeper" / "link").string() + ": is a symbolic link"),
            std::string::npos);
  EXPECT_EQ(plan(d / "truth-2" / "deeper" / "x.csv"), "");  // real directories
  EXPECT_EQ(plan(d / "truth-3" / "x.csv"), "");             // not made yet
  EXPECT_EQ(error_of([&] { create_inner_directory((d / "truth-1/").string()); }).rfind((d / "truth-1").string() + ": is a symbolic link", 0),
            0u);
  EXPECT_EQ(vcloe::test::file_text(outside / "measured.csv"), "the user's");
}

// The report compared a SHA-256 written in capitals as another file's: every hash read is in
// lower case, as sha256_file's.
TEST(InputsKept, AHashReadInCapitalsIsTheSameHash) {
  const fs::path d = kept_dir("hash");
  write_text(d / "f.txt", "x");
  const std::string lower = vcloe::sha256_file_now((d / "f.txt").string());
  std::string upper = lower;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const nlohmann::json j = {{"h", upper}, {"f", {{"path", "f.txt"}, {"sha256", upper}}}};
  const vcloe::JsonNode root = vcloe::JsonNode::root(j, "r.json");
  EXPECT_EQ(root["h"].sha256(), lower);
  EXPECT_EQ(root["f"].file_record().sha256, lower);
}

// A recorded input that is a FIFO or a device was read for its hash for ever.
TEST(InputsKept, AFileHashedMustBeARegularFileBeforeItIsOpened) {
  const fs::path d = kept_dir("fifo");
  ASSERT_EQ(::mkfifo((d / "pipe").c_str(), 0600), 0);
  for (const std::string& p : {(d / "pipe").string(), std::string("/dev/zero"), std::string("/dev/null")}) {
    EXPECT_NE(error_of([&] { (void)vcloe::sha256_file_now(p); }).find(p + ": is a device, pipe or socket"), std::string::npos) << p;
    EXPECT_NE(error_of([&] { (void)vcloe::sha256_file(p); }).find("is a device, pipe or socket"), std::string::npos) << p;
  }
  EXPECT_NE(error_of([&] { (void)vcloe::sha256_file_now(d.string()); }).find("is a directory"), std::string::npos);
}

}  // namespace test_inputs_kept

namespace test_inputs_kept {

// Probe 23, class B: `filter m.csv --out r.yaml --force` replaced the reference m.csv's sidecar
// records, `run --precorrection p.csv --out mm.yaml --force` the model p.csv's sidecar records;
// only identify counted them. Now every input's companions (any format: a trace's sidecar, a
// pre-corrected command's, a model's report) make the files they record inputs, in IoPlan::input.
TEST(InputsKept, EveryFileACompanionOfAnInputRecordsIsAnInputToo) {
  const fs::path d = kept_dir("recorded");
  const auto record = [&](const char* name) {
    write_text(d / name, std::string(name) + "\n");
    return nlohmann::json{{"path", (d / name).string()}, {"sha256", std::string(64, 'a')}};
  };
  struct Case {
    const char* input;      // the file read, whose companion records files
    const char* companion;  // ".meta.json" or ".report.json"
    nlohmann::json document;
    const char* out;        // a file it records
    const char* role;       // as the refusal names it
  };
  const Case cases[] = {
      {"m.csv", ".meta.json", {{"format", "vcloe-trace-1"}, {"reference", record("r.yaml")}}, "r.yaml", "the reference recorded in"},
      {"m.csv", ".meta.json", {{"experiment", record("e.yaml")}, {"truth", record("t.yaml")}}, "t.yaml", "the truth recorded in"},
      {"m.csv", ".meta.json", {{"precorrection", record("p.csv")}}, "p.csv", "the precorrection recorded in"},
      {"m.csv", ".meta.json", {{"camera", {{"model", "stereo"}, {"rig", record("rig.yaml")}}}}, "rig.yaml", "the camera.rig recorded in"},
      {"p.csv", ".meta.json", {{"format", "vcloe precorrection 1"}, {"model", record("mm.yaml")}}, "mm.yaml", "the model recorded in"},
      {"id.yaml", ".report.json", {{"inputs", {{"measured", record("run.csv")}}}}, "run.csv", "the inputs.measured recorded in"},
  };
  for (const Case& c : cases) {
    const std::string input = (d / c.input).string(), out = (d / c.out).string();
    write_text(input, "read\n");
    write_text(input + c.companion, c.document.dump());
    const std::string e = error_of([&] { IoPlan(true).input(input, "--in").output(out, "--out").check(); });
    EXPECT_NE(e.find(out + ": is also an input of this command (" + out + ", " + c.role + " " + input + c.companion +
                     "); refusing to overwrite it even with --force"),
              std::string::npos)
        << c.out << ": " << e;
    fs::remove(input + c.companion);
    EXPECT_NO_THROW(IoPlan(true).input(input).output(out).check()) << "nothing recorded, nothing kept: " << c.out;
  }
  // A companion that cannot be read, or a malformed record, adds nothing (its reader says why).
  write_text(d / "m.csv.meta.json", "{not json");
  EXPECT_NO_THROW(IoPlan(true).input((d / "m.csv").string()).output((d / "r.yaml").string()).check());
  write_text(d / "m.csv.meta.json", R"({"reference": {"path": 7}, "truth": )" + record("t.yaml").dump() + "}");
  EXPECT_NO_THROW(IoPlan(true).input((d / "m.csv").string()).output((d / "r.yaml").string()).check());
  EXPECT_NE(error_of([&] { IoPlan(true).input((d / "m.csv").string()).output((d / "t.yaml").string()).check(); })
                .find("the truth recorded in"),
            std::string::npos)
      << "the other records of a sidecar with one malformed still count";
  // A path recorded relative to the trace (sidecars before paths were absolute): beside it.
  write_text(d / "m.csv.meta.json", R"({"reference": {"path": "r.yaml"}})");
  EXPECT_NE(error_of([&] { IoPlan(true).input((d / "m.csv").string()).output((d / "r.yaml").string()).check(); })
                .find("the reference recorded in"),
            std::string::npos);
}

}  // namespace test_inputs_kept
