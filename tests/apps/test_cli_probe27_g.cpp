// Probe 27's G: a directory output claimed atomically. `study --dir s`, `study merge --out j` and
// `demo --dir d` looked for the directory first: two started together both found none, both ran
// into it, the last one's tables over the first's, both "wrote" (exit 0). The directory is now
// claimed by mkdir(2) (core/output_file.hpp: OutputDirectory): of two, one has it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "cli_fixtures.hpp"
#include "vcloe/report/study.hpp"
#include "vcloe/core/sealed_json.hpp"

namespace fs = std::filesystem;
using cli_test::CommandResult;
using cli_test::run_vcloe;

namespace test_cli_probe27_g {

namespace {
void write_study_table(const fs::path& dir, std::uint64_t seed) {
  fs::create_directories(dir);
  const std::vector<vcloe::report::TruthRow> rows = {vcloe::report::failed_row(seed, "a shard's row")};
  std::ofstream(dir / "study.json") << vcloe::sealed_json_text(vcloe::report::study_json(rows, vcloe::report::summarise(rows)), "study.json");
}
}  // namespace

// Two merges into one new --out at once (k2-46): exactly one writes it, the other is refused
// (exit 2) and the table is the one of the merge that succeeded. A few rounds: the race is real.
TEST(CliProbe27G, TwoMergesIntoOneNewOutAtOnceExactlyOneWritesIt) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe27-g", "race");
  write_study_table(d / "sd1", 1);
  write_study_table(d / "sd2", 2);
  for (int round = 0; round < 4; ++round) {
    const std::string j = (d / ("j" + std::to_string(round))).string();
    CommandResult one{}, two{};
    std::thread a([&] { one = run_vcloe("study merge " + (d / "sd1").string() + " --out " + j); });
    std::thread b([&] { two = run_vcloe("study merge " + (d / "sd2").string() + " --out " + j); });
    a.join();
    b.join();
    ASSERT_EQ((one.status == 0) + (two.status == 0), 1) << one.out << "\n" << two.out;
    const CommandResult& lost = one.status == 0 ? two : one;
    EXPECT_EQ(lost.status, 2) << lost.out;
    EXPECT_NE(lost.out.find(j + ": exists; pass --force to overwrite the joined tables in it"), std::string::npos) << lost.out;
    const auto rows = vcloe::report::read_study(j + "/study.json").rows;
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].seed, one.status == 0 ? 1u : 2u);
  }
}

// The same race made deterministic: the other command has just made --out (still empty) when
// this one claims it — refused, nothing written into it; with --force it is used.
TEST(CliProbe27G, AnOutputDirectoryMadeMeanwhileIsRefusedWithoutForce) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe27-g", "meanwhile");
  write_study_table(d / "sd1", 1);
  fs::create_directory(d / "j");
  const std::string merge = "study merge " + (d / "sd1").string() + " --out " + (d / "j").string();
  const CommandResult r = run_vcloe(merge);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(r.out, "vcloe: error: " + (d / "j").string() + ": exists; pass --force to overwrite the joined tables in it\n");
  EXPECT_TRUE(fs::is_empty(d / "j"));
  EXPECT_EQ(run_vcloe(merge + " --force").status, 0);
  EXPECT_TRUE(fs::exists(d / "j" / "study.md"));
}

// A command refused after its claim (here study's --config, read after --dir is claimed) leaves
// no directory it made, nor the parents it made for it.
TEST(CliProbe27G, ARefusalAfterTheClaimLeavesNoDirectory) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe27-g", "refused");
  std::ofstream(d / "bad.yaml") << "no_such_key: 1\n";
  const CommandResult r = run_vcloe("study --dir " + (d / "new" / "x").string() + " --config " + (d / "bad.yaml").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("bad.yaml:1: key 'no_such_key': unknown key"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d / "new")) << r.out;
}

}  // namespace test_cli_probe27_g
