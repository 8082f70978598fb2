// Golden results of the closed loop, recorded before the loop was rebuilt as components (issue
// #12) and held here so that no change to the loop, the twin or the virtual robot moves them
// unnoticed: `vcloe run --backend virtual` and `vcloe simulate` on config/reference.yaml and the
// default excitation (seed 1) equal the recorded traces within 1e-12 m / rad (and byte for byte:
// the arithmetic is unchanged), and validate-model's figures are unchanged. The data are in
// tests/data/golden/ (every 10th row of each trace; the SHA-256 of the whole CSV). To re-record
// them after a deliberate change (e.g. the engines' default steps, docs/virtual-robot.md
// "Convergence of the two engines"): run the four commands above with `--out X.csv`, keep the
// header and every 10th row, and put each CSV's sha256sum in golden.json. The two traces of the
// default excitation were re-recorded so when that excitation changed (excite checks the twin's
// motion, docs/excitation-file.md); the loop's arithmetic did not.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "cli_fixtures.hpp"

using cli_test::run_vcloe;

namespace {

const std::string kSource = VCLOE_SOURCE_DIR;

std::vector<std::vector<double>> numeric_rows(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::string line;
  std::getline(in, line);  // header
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');) row.push_back(std::stod(cell));
    rows.push_back(row);
  }
  return rows;
}

nlohmann::json golden() {
  std::ifstream in(kSource + "/tests/data/golden/golden.json");
  return nlohmann::json::parse(in);
}

std::string sha256_of(const std::string& path) {
  FILE* p = popen(("sha256sum " + path).c_str(), "r");
  char buf[65] = {};
  const std::size_t n = fread(buf, 1, 64, p);
  pclose(p);
  return std::string(buf, n);
}

// Runs `command` writing `name`.csv and compares it with the golden trace of that name.
void expect_golden_trace(const std::string& command, const std::string& name) {
  const auto dir = cli_test::fresh_dir("vcloe-golden", name);
  const std::string out = (dir / (name + ".csv")).string();
  const auto r = run_vcloe(command + " --out " + out);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto now = numeric_rows(out), then = numeric_rows(kSource + "/tests/data/golden/" + name + ".every10.csv");
  ASSERT_EQ(now.size(), 2000u);
  ASSERT_EQ(then.size(), 200u);
  double worst = 0;
  for (std::size_t j = 0; j < then.size(); ++j) {
    ASSERT_EQ(now[10 * j].size(), then[j].size());
    for (std::size_t c = 0; c < then[j].size(); ++c) worst = std::max(worst, std::abs(now[10 * j][c] - then[j][c]));
  }
  EXPECT_LE(worst, 1e-12) << name;
  EXPECT_EQ(sha256_of(out), golden()["sha256"][name].get<std::string>()) << name << ": not byte-identical";
}

}  // namespace

TEST(Golden, VirtualRobotTracesAreThoseRecordedBeforeTheRedesign) {
  expect_golden_trace("run --backend virtual --reference " + kSource + "/config/reference.yaml", "run_reference");
  expect_golden_trace("run --backend virtual --reference " + kSource + "/config/excitation-default.yaml",
                      "run_excitation-default");
}

TEST(Golden, TwinTracesAreThoseRecordedBeforeTheRedesign) {
  expect_golden_trace("simulate --reference " + kSource + "/config/reference.yaml", "sim_reference");
  expect_golden_trace("simulate --reference " + kSource + "/config/excitation-default.yaml", "sim_excitation-default");
}

TEST(Golden, ValidateModelFiguresAreThoseRecordedBeforeTheRedesign) {
  const auto r = run_vcloe("validate-model --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json now = nlohmann::json::parse(r.out), then = golden()["validate_model"];
  for (const auto& [key, value] : then.items()) {
    if (value.is_number_float())
      EXPECT_NEAR(now[key].get<double>(), value.get<double>(), 1e-6 * std::abs(value.get<double>())) << key;
    else if (value.is_array() && !value.empty() && value[0].is_number())
      for (std::size_t i = 0; i < value.size(); ++i)
        EXPECT_NEAR(now[key][i].get<double>(), value[i].get<double>(), 1e-6 * std::abs(value[i].get<double>())) << key;
    else
      EXPECT_EQ(now[key], value) << key;
  }
}
