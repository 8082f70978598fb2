// Specification of the `vcloe` command line: each command's documented outputs and errors,
// run as a user would run them (the built binary, a temporary directory).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace fs = std::filesystem;

namespace {

struct CommandResult {
  int status;
  std::string out;
};

CommandResult vcloe(const std::string& args) {
  const std::string cmd = std::string(VCLOE_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int rc = pclose(p);
  return {WEXITSTATUS(rc), out};
}

fs::path temp_dir() {
  const fs::path d = fs::temp_directory_path() / ("vcloe-cli-" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST(Cli, HelpListsTheCommands) {
  const CommandResult r = vcloe("--help");
  EXPECT_EQ(r.status, 0);
  for (const char* c : {"validate-model", "trajectory", "excite"}) EXPECT_NE(r.out.find(c), std::string::npos) << c;
}

TEST(Cli, ExciteWritesAFeasibleTrajectoryJsonAndPlot) {
  const fs::path d = temp_dir();
  const fs::path cfg = d / "small.yaml";
  std::ofstream(cfg) << "harmonics: 3\nevaluations: {global: 150, local: 100}\nbaseline_trajectories: 3\n";
  const fs::path out = d / "traj.yaml", plot = d / "traj.png";
  fs::remove(out);
  fs::remove(plot);
  const CommandResult r = vcloe("excite --config " + cfg.string() + " --out " + out.string() + " --json --plot " + plot.string());
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  for (const char* key : {"criterion", "initial", "final", "evaluations", "seconds", "unexcited_parameters"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["evaluations"].get<int>(), 250);
  EXPECT_GT(j["final"].get<double>(), j["initial"].get<double>());
  EXPECT_TRUE(fs::exists(out));
  if (std::system("command -v gnuplot >/dev/null 2>&1") == 0) {
    EXPECT_GT(fs::file_size(plot), 10000u);
  }
  // The written trajectory passes the check; a second run refuses to overwrite it.
  EXPECT_EQ(vcloe("trajectory check " + out.string()).status, 0);
  const CommandResult again = vcloe("excite --config " + cfg.string() + " --out " + out.string());
  EXPECT_NE(again.status, 0);
  EXPECT_NE(again.out.find("exists; pass --force"), std::string::npos) << again.out;
  fs::remove_all(d);
}

TEST(Cli, BadInputIsAOneLineErrorNamingTheKey) {
  const fs::path d = temp_dir();
  const fs::path cfg = d / "bad.yaml";
  std::ofstream(cfg) << "harmonics: 0\n";
  CommandResult r = vcloe("excite --config " + cfg.string() + " --out " + (d / "x.yaml").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("harmonics must be at least 1"), std::string::npos) << r.out;
  std::ofstream(cfg) << "f0: 0.1\nduration: 20\noffset: [0, 0, 0.18, 0, 0, 0]\naxes: {}\n";
  r = vcloe("trajectory check " + cfg.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("bad.yaml:4: key 'axes': missing required key 'x'"), std::string::npos) << r.out;
  r = vcloe("trajectory check /nonexistent.yaml");
  EXPECT_NE(r.out.find("/nonexistent.yaml: file not found"), std::string::npos) << r.out;
  fs::remove_all(d);
}

TEST(Cli, ValidateModelReportsTheDocumentedKeysAndMeetsTheTargets) {
  const CommandResult r = vcloe("validate-model --duration 2 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  for (const char* key : {"pos_max_mm", "pos_rms_mm", "rot_max_mrad", "rot_rms_mrad", "closure_max_mm", "id_rel_err_max"})
    ASSERT_TRUE(j.contains(key)) << key;
  EXPECT_LE(j["pos_max_mm"].get<double>(), 0.05);
  EXPECT_LE(j["rot_max_mrad"].get<double>(), 0.1);
  EXPECT_LE(j["id_rel_err_max"].get<double>(), 1e-6);
  EXPECT_LE(j["closure_max_mm"].get<double>(), 0.01);
}
