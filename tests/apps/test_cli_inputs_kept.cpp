// Probe 19 (issue 27): nothing a command reads or the user recorded is lost to --force, an output
// folder is not mixed with an earlier run's files, one frame is not two exposures: M2, M, N, L, I.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_fixtures.hpp"
#include "vcloe/report/study.hpp"
#include "vcloe/core/sealed_json.hpp"

namespace fs = std::filesystem;
using cli_test::expect_refused;
using cli_test::run_vcloe;

namespace test_cli_inputs_kept {

namespace {
const std::string& config_of_kept = cli_test::config_dir;

void write_study_table(const fs::path& dir, std::uint64_t seed) {
  fs::create_directories(dir);
  const std::vector<vcloe::report::TruthRow> rows = {vcloe::report::failed_row(seed, "a shard's row")};
  std::ofstream(dir / "study.json") << vcloe::sealed_json_text(vcloe::report::study_json(rows, vcloe::report::summarise(rows)), "study.json");
}
}  // namespace

// M2 and N: `study merge sd1 sd2 --out sd1 --force` replaced a shard's table it read; `rig run` and
// `control --keys k --out k/robot.pub --force` a key. Without --force the merge advised --force.
TEST(CliInputsKept, AShardsTableOrAKeyReadIsNeverAnOutputEvenWithForce) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-kept", "inputs");
  write_study_table(d / "sd1", 1);
  write_study_table(d / "sd2", 2);
  fs::create_directory_symlink(d / "sd2", d / "link");
  ASSERT_EQ(run_vcloe("rig keys --dir " + (d / "k").string()).status, 0);
  const std::string sd1 = (d / "sd1").string(), sd2 = (d / "sd2").string(), k = (d / "k").string();
  const std::string table1 = cli_test::read_file(d / "sd1" / "study.json"), pub = cli_test::read_file(d / "k" / "robot.pub");
  const std::string merge = "study merge " + sd1 + " " + sd2 + " --out ";
  const std::string ref = " --reference " + config_of_kept + "reference.yaml --keys " + k + " --out ";
  expect_refused({
      {merge + sd1 + " --force", sd1 + "/study.json: is also an input of this command (" + sd1 + "/study.json, the table of a study merged)"},
      {merge + (d / "link").string() + " --force", "is also an input of this command (" + sd2 + "/study.json"},
      {merge + sd1, "refusing to overwrite it even with --force"},  // not "pass --force"
      {"rig run" + ref + k + "/robot.pub --force", k + "/robot.pub: is also an input of this command (" + k + "/robot.pub, a key of --keys " + k + ")"},
      {"rig run" + ref + k + "/listen.key --force", "a key of --keys"},
      {"control --start-timeout 1" + ref + k + "/control.pub --force", "a key of --keys"},
  }, 5.0);
  EXPECT_EQ(cli_test::read_file(d / "sd1" / "study.json"), table1);
  EXPECT_EQ(cli_test::read_file(d / "k" / "robot.pub"), pub);
  EXPECT_EQ(run_vcloe(merge + (d / "joined").string()).status, 0);  // a fresh --out is merged
  EXPECT_EQ(vcloe::report::read_study((d / "joined" / "study.json").string()).rows.size(), 2u);
}

// M: `control --out o.csv --force` deleted an interrupted run's o.csv.partial before it recorded
// anything. A partial holding rows is refused before any wait, by control and rig run, with or
// without --force; it is left as it was.
TEST(CliInputsKept, AnInterruptedRecordingIsNotDiscardedByForce) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-kept", "partial");
  const std::string out = (d / "o.csv").string(), rows = "time,x\nold recording of an interrupted run\n";
  std::ofstream(out + ".partial") << rows;
  const std::string ref = " --reference " + config_of_kept + "reference.yaml --out " + out;
  expect_refused({
      {"control --start-timeout 1" + ref + " --force", out + ".partial: holds an earlier recording"},
      {"control --start-timeout 1" + ref, out + ".partial: holds an earlier recording"},
      {"rig run" + ref + " --force", "mv " + out + ".partial"},
  }, 5.0);
  EXPECT_EQ(cli_test::read_file(out + ".partial"), rows);
}

// Session 29's probe, D: `study --force` followed D/truth-1, a link to the user's folder, and
// replaced the recording there. Refused before any step, naming the link; nothing written there.
TEST(CliInputsKept, AStudyNeverWritesThroughALinkInItsDirectory) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-kept", "study-link");
  fs::create_directories(d / "keep");
  std::ofstream(d / "keep" / "truth.yaml") << "the user's";
  fs::create_directories(d / "s");
  fs::create_directory_symlink(d / "keep", d / "s" / "truth-1");
  const std::string s = (d / "s").string();
  expect_refused({
      {"study --truths 1 --n 1 --quiet --reference " + config_of_kept + "reference.yaml --dir " + s + " --force",
       s + "/truth-1: is a symbolic link (to " + (d / "keep").string() + "), not a directory of its own"},
  }, 5.0);
  EXPECT_EQ(cli_test::read_file((d / "keep" / "truth.yaml").string()), "the user's");
}

// L: `render --force` with fewer frames left the earlier render's frames 2-3 beside the new ones.
// Refused before any frame is rendered, with or without --force; the old files left as they were.
TEST(CliInputsKept, ARenderIntoAFolderWithOtherFilesIsRefusedNamingThem) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-kept", "render");
  const std::string img = (d / "img").string();
  fs::create_directories(d / "img");
  for (const char* f : {"left_0000.png", "right_0000.png", "left_0001.png", "right_0001.png", "truth.csv"})
    std::ofstream(d / "img" / f) << "an earlier render's";
  const std::string render = "render --reference " + config_of_kept + "reference.yaml --out " + img + " --frames ";
  expect_refused({
      {render + "1 --force", img + ": holds 2 file(s) this command does not write (left_0001.png, right_0001.png)"},
      {render + "1", "holds 2 file(s)"},
  }, 5.0);
  EXPECT_EQ(cli_test::read_file(d / "img" / "left_0001.png"), "an earlier render's");
}

// I: left_0000.png and left_0000.PNG (two exposures of frame 0) were paired across.
TEST(CliInputsKept, OneCamerasFrameUnderTwoNamesIsRefused) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-kept", "frames");
  for (const auto& [names, twice] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"left_0000.png", "right_0000.png", "left_0000.PNG", "right_0000.PNG"}, "left_0000.PNG and left_0000.png"},
           {{"left_0001.png", "right_0001.png", "LEFT_0001.png"}, "LEFT_0001.png and left_0001.png"},
           {{"left_7.tif", "right_7.tif", "Right_7.TIF"}, "Right_7.TIF and right_7.tif"}}) {
    fs::remove_all(d / "img");
    fs::create_directories(d / "img");
    for (const std::string& n : names) std::ofstream(d / "img" / n) << "not decoded before the scan";
    expect_refused({{"measure --images " + (d / "img").string() + " --out " + (d / "m.csv").string(),
                     twice + " are one camera's image of one frame under two names"}});
  }
}

// Probe 23, class B: a file a recording names (recorded in an input's sidecar) replaced by an
// output with --force: filter over the trace's reference, experiment, truth, robot or
// pre-correction; run, simulate, learn and rig run over the model the pre-correction records;
// measure over the reference the truth trace records. Each refused before any work, every
// command alike (IoPlan::input), the files left as they were.
TEST(CliInputsKept, AFileARecordingNamesIsNeverAnOutputOfAnyCommand) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-kept", "recorded");
  const auto at = [&](const char* f) { return (d / f).string(); };
  const std::string ref = at("ref.yaml"), e = at("e.yaml"), t = at("t.yaml"), rb = at("rb.yaml"), mm = at("mm.yaml");
  const std::string p = at("p.csv"), m = at("m.csv"), truth = at("rr/truth.csv");
  fs::copy_file(config_of_kept + "experiment.yaml", e);
  fs::copy_file(config_of_kept + "truth.yaml", t);
  fs::copy_file(config_of_kept + "robot.yaml", rb);
  fs::copy_file(config_of_kept + "robot.yaml", mm);
  ASSERT_EQ(run_vcloe("trajectory random --seed 4 --duration 1 --f0 1 --at-rest --out " + ref).status, 0);
  ASSERT_EQ(run_vcloe("precorrect --model " + mm + " --reference " + ref + " --experiment " + e + " --out " + p).status, 0);
  ASSERT_EQ(run_vcloe("run --reference " + ref + " --experiment " + e + " --truth " + t + " --robot " + rb +
                      " --precorrection " + p + " --out " + m).status, 0);
  ASSERT_EQ(run_vcloe("render --reference " + ref + " --out " + at("rr") + " --frames 2").status, 0);
  std::vector<std::string> before;
  for (const std::string& f : {ref, e, t, rb, mm, p}) before.push_back(cli_test::read_file(f));
  const std::string filter = "filter " + m + " --cutoff 10 --force --out ", in_m = " recorded in " + m + ".meta.json)";
  const std::string with_p = " --reference " + ref + " --experiment " + e + " --precorrection " + p + " --force --out " + mm;
  const std::string model = mm + ": is also an input of this command (" + mm + ", the model recorded in " + p + ".meta.json)";
  expect_refused({
      {filter + ref, ref + ": is also an input of this command (" + ref + ", the reference" + in_m},
      {filter + e, "the experiment" + in_m},
      {filter + t, "the truth" + in_m},
      {filter + rb, "the robot" + in_m},
      {filter + p, "the precorrection" + in_m + "; refusing to overwrite it even with --force"},
      {"run" + with_p, model},
      {"simulate" + with_p, model},
      {"learn --trials 1" + with_p, model},
      {"rig run" + with_p, model},
      {"measure --images " + at("rr") + " --truth " + truth + " --force --out " + ref,
       "(" + ref + ", the reference recorded in " + truth + ".meta.json)"},
  }, 5.0);
  std::size_t k = 0;
  for (const std::string& f : {ref, e, t, rb, mm, p}) EXPECT_EQ(cli_test::read_file(f), before[k++]) << f;
}

}  // namespace test_cli_inputs_kept
