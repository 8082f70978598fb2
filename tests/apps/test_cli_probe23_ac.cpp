// Specification of the command line on session 23's probe, classes A and C (docs/robustness.md,
// "Session 23's probe"): an input file far above what its kind can be is refused from its size
// before it is read (A); a user's file named like a temporary is never deleted by a write (C).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using cli_test::run_vcloe;

namespace test_cli_probe23_ac {

const std::string& config = cli_test::config_dir;

// A sparse file of `gib` GiB (nothing on disk).
std::string sparse(const fs::path& p, std::uintmax_t gib) {
  std::ofstream(p).close();
  fs::resize_file(p, gib << 30);
  return p.string();
}

// 20–50 GB sparse YAML, experiment, trace, report, image list and key files were read whole
// (killed at 60 s; 1 GB took 10 s); each is now one line naming the file, its size and its kind's
// bound, exit 2, within expect_refused's 10 s (a loaded host or the sanitizers' start-up took 2.1 s
// per command; reading any of these files whole takes minutes).
TEST(CliProbe23, AnInputFarAboveItsKindsSizeIsRefusedAtOnceNamingItsBound) {
  const fs::path d = cli_test::fresh_dir("vcloe-probe23", "sizes");
  const std::string yaml = sparse(d / "big.yaml", 20), e = sparse(d / "e.yaml", 30), csv = sparse(d / "big.csv", 50),
                    r = sparse(d / "r.json", 30), list = sparse(d / "list.txt", 20);
  const std::string keys = (d / "k").string();
  ASSERT_EQ(run_vcloe("rig keys --dir " + keys).status, 0);
  fs::remove(d / "k" / "robot.key");
  const std::string key = sparse(d / "k" / "robot.key", 20);
  ::chmod(key.c_str(), 0600);
  const std::string out = " --out " + (d / "o.csv").string();
  cli_test::expect_refused(
      {{"trajectory check " + yaml, yaml + ": a file of 21474836480 bytes; a YAML file of at most 16777216 bytes (16 MiB) expected"},
       {"simulate --reference " + config + "reference.yaml --experiment " + e + out,
        e + ": a file of 32212254720 bytes; a YAML file of at most 16777216 bytes (16 MiB) expected"},
       {"filter " + csv + out + " --cutoff 10", csv + ": a file of 53687091200 bytes; a trace of at most 2000000000 bytes expected"},
       {"report --identification " + r + " --out " + (d / "r.html").string(),
        r + ": a file of 32212254720 bytes; a JSON file of at most 67108864 bytes (64 MiB) expected"},
       {"measure --images " + list + out, list + ": a file of 21474836480 bytes; an image list of at most 67108864 bytes (64 MiB) expected"},
       {"rig run --reference " + config + "reference.yaml --keys " + keys + out,
        key + ": a file of 21474836480 bytes; a key file of at most 1048576 bytes (1 MiB) expected"}});
}

// `simulate --out o.csv` deleted the user's o.csv.tmp-999999 and o.csv.meta.json.tmp-999998,
// `trajectory random --out t.yaml` the user's t.yaml.tmp-999999; they are kept now, as they were.
TEST(CliProbe23, AUsersFilesNamedLikeTemporariesSurviveAWriteOfTheirOutput) {
  const fs::path d = cli_test::fresh_dir("vcloe-probe23", "tmp-names");
  const std::vector<std::string> users = {"t.yaml.tmp-999999", "o.csv.tmp-999999", "o.csv.meta.json.tmp-999998"};
  for (const std::string& name : users) std::ofstream(d / name) << "notes\n";
  const std::string t = (d / "t.yaml").string();
  ASSERT_EQ(run_vcloe("trajectory random --seed 4 --duration 0.2 --out " + t).status, 0);
  const cli_test::CommandResult r = run_vcloe("simulate --reference " + t + " --out " + (d / "o.csv").string());
  ASSERT_EQ(r.status, 0) << r.out;
  for (const std::string& name : users) EXPECT_EQ(cli_test::read_file(d / name), "notes\n") << name;
  EXPECT_TRUE(fs::exists(d / "o.csv.meta.json"));
}

}  // namespace test_cli_probe23_ac
