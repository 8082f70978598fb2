// Every command's inputs and outputs checked together before any work (core IoPlan), plots drawn
// without a shell, hashes and seeds: the quoted cases of issue 27 and others of each class.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using cli_test::expect_refused;
using cli_test::run_vcloe;

namespace test_cli_io {

namespace {
const std::string& config = cli_test::config_dir;
}  // namespace

TEST(CliIo, OutputsOverAnyInputOrAnotherOutputAreRefusedBeforeAnyWork) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-io", "plan");
  fs::copy_file(config + "experiment.yaml", d / "e.yaml");
  fs::copy_file(config + "rig.yaml", d / "rig.yaml");
  fs::create_directories(d / "img");
  for (const char* f : {"left_0000.png", "right_0000.png"}) std::ofstream(d / "img" / f) << "not decoded before the check";
  const std::string ref = (d / "ref.yaml").string(), trace = (d / "t.csv").string(), exp = (d / "e.yaml").string();
  const std::string rig = (d / "rig.yaml").string(), r = (d / "r.html").string();
  ASSERT_EQ(run_vcloe("trajectory random --seed 4 --duration 1 --out " + ref).status, 0);
  ASSERT_EQ(run_vcloe("run --reference " + ref + " --experiment " + exp + " --out " + trace).status, 0);
  fs::create_symlink(trace, d / "t.png");
  fs::create_symlink(trace, d / "t.html");
  fs::create_symlink(exp, d / "e-link.yaml");
  std::ofstream(d / "pairs.txt") << "img/left_0000.png img/right_0000.png\n";
  const std::string before_exp = cli_test::read_file(exp), before_ref = cli_test::read_file(ref);
  expect_refused({
      // Files recorded in the trace's sidecar, not given on the command line.
      {"identify --measured " + trace + " --out " + exp + " --force", "is also an input of this command (" + exp +
                                                                           ", the experiment recorded in " + trace + ".meta.json)"},
      {"identify --measured " + trace + " --out " + ref + " --force", "the reference recorded in " + trace + ".meta.json"},
      // Two outputs on one file.
      {"identify --measured " + trace + " --out " + r + " --report " + r + " --force",
       "is also another output of this command (" + r + ", --out)"},
      {"identify --measured " + trace + " --out " + (d / "m.yaml").string() + " --report " + (d / "t.html").string() +
           " --force",
       "is also an input of this command (" + trace + ", --measured)"},
      {"excite --out " + (d / "e.png").string() + " --plot " + (d / "e.png").string() + " --force",
       "is also another output of this command"},
      // The camera's rig file, the images of a folder.
      {"run --reference " + ref + " --camera stereo --camera-rig " + rig + " --out " + rig + " --force",
       "is also an input of this command (" + rig + ", --camera-rig)"},
      {"measure --images " + (d / "img").string() + " --out " + (d / "img" / "left_0000.png").string() + " --force",
       "an image of --images"},
      // Each input named by its option, whichever check finds it (probe 28's notes, k1-07 and k1-29).
      {"excite --experiment " + exp + " --out " + (d / "e-link.yaml").string() + " --force",
       "is also an input of this command (" + exp + ", --experiment)"},
      {"measure --images " + (d / "pairs.txt").string() + " --out " + (d / "pairs.txt").string() + " --force",
       "is also an input of this command (" + (d / "pairs.txt").string() + ", --images (the list of pairs))"},
      // The plot of a comparison: a link to one of the traces compared.
      {"compare " + trace + " " + trace + " --plot " + (d / "t.png").string() + " --force",
       "is also an input of this command (" + trace + ", trace A)"},
  });
  EXPECT_EQ(cli_test::read_file(exp), before_exp);
  EXPECT_EQ(cli_test::read_file(ref), before_ref);
  EXPECT_FALSE(fs::exists(r));
}

TEST(CliIo, APlotIsDrawnWithoutAShellWhateverTheTemporaryDirectoryIsCalled) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-io", "plot");
  const std::string ref = (d / "t.yaml").string(), a = (d / "a.csv").string();
  ASSERT_EQ(run_vcloe("trajectory random --seed 2 --duration 1 --out " + ref).status, 0);
  ASSERT_EQ(run_vcloe("simulate --reference " + ref + " --out " + a).status, 0);
  // A quote in TMPDIR ran a shell command (std::system with the path in quotes).
  const fs::path tmp = d / "q'; touch PWNED; echo '";
  fs::create_directories(tmp);
  ::setenv("TMPDIR", tmp.c_str(), 1);
  const cli_test::CommandResult c = run_vcloe("compare " + a + " " + a + " --plot " + (d / "p.png").string());
  ::unsetenv("TMPDIR");
  EXPECT_EQ(c.status, 0) << c.out;
  EXPECT_TRUE(fs::is_regular_file(d / "p.png"));
  EXPECT_FALSE(fs::exists("PWNED"));
  EXPECT_FALSE(fs::exists(d / "PWNED"));
  EXPECT_TRUE(fs::is_empty(tmp));  // the job's directory removed
  // A newline and a quote in a trace's name (the plot's titles) broke the script.
  const fs::path odd = d / "line\nbreak 'q'.csv";
  fs::copy_file(a, odd);
  fs::copy_file(a + ".meta.json", odd.string() + ".meta.json");
  const cli_test::CommandResult n =
      run_vcloe("compare \"" + odd.string() + "\" \"" + odd.string() + "\" --plot " + (d / "n.png").string());
  EXPECT_EQ(n.status, 0) << n.out;
  EXPECT_GT(fs::file_size(d / "n.png"), 1000u);
}

TEST(CliIo, SeedsThatWouldWrapAreRefused) {
  expect_refused({
      // Each command's seeds as 64 bits (validate's were 32: 4294967296 was refused as "Could not convert",
      // excite's a long: 2^63 and above stored as 2^63 - 1), its derived seeds in range (session 21's probe, P).
      {"validate --model " + config + "robot.yaml --seed 18446744073709451614 --n 2",
       "--seed: 18446744073709451614 is too large"},  // trajectory 2's payload run: + 1 + 100000
      {"study --dir /nonexistent-vcloe/x --seed 18446744073709551614 --truths 2", "--seed: 18446744073709551614 is too large"},
      {"learn --reference " + config + "reference.yaml --out /nonexistent-vcloe/l.csv --seed 18446744073709551613 --trials 3",
       "--seed: 18446744073709551613 is too large: its 3 seeds"},  // trial j: seed + j - 1
      {"excite --out /nonexistent-vcloe/e.yaml --seed 18446744073709551615", "--seed: expected a whole number from 0 to 2^64 - 2"},
      // render: frame k's noise is seeded with --seed x 1000003 + k, each camera's with twice that + 0 or 1
      // (its --seed 18446744073709551614 wrapped round to an image pair of another seed, exit 0).
      {"render --out /nonexistent-vcloe/r --frames 5 --seed 18446744073709551614",
       "--seed: 18446744073709551614 is too large: its 5 seeds (18446744073709551614 x 1000003 + 0 to 4) would pass "
       "9223372036854775807, the largest this command carries, and wrap round to 0; expected --seed from 0 to 9223344366821"},
  });
  // Seeds from 2^32 on are seeds like any other: validate's no longer refused as beyond 32 bits.
  const cli_test::CommandResult v = run_vcloe("validate --model " + config + "robot.yaml --seed 4294967296 --n 0");
  EXPECT_EQ(v.out.find("Could not convert"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("--n: expected 1 to"), std::string::npos) << v.out;
}

}  // namespace test_cli_io
