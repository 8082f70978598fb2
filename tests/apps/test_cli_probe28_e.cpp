// Probe 28's E: a trace's sidecar copies its experiment (controller_hz, camera_hz, latency_s,
// outer_form; duration_s from the reference). Edited alone, the copies were read by `filter` and
// `compare` (exit 0) and written on by `filter`, while `identify` refused the same traces. The
// one trace reader now holds them to the experiment file's rules, duration_s to the rows, and the
// copies to the experiment file the sidecar records (unchanged since): every command refuses them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "../test_support.hpp"
#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using cli_test::CommandResult;
using cli_test::run_vcloe;

namespace test_cli_probe28_e {

namespace {

// A 0.3 s run on an experiment file of its own (recorded in the sidecar with its SHA-256).
struct RecordedRun {
  fs::path dir, trace, experiment;
};
RecordedRun make_run(const std::string& name) {
  RecordedRun r;
  r.dir = cli_test::fresh_dir("vcloe-cli-probe28-e", name);
  r.trace = r.dir / "m.csv";
  r.experiment = r.dir / "experiment.yaml";
  fs::copy_file(cli_test::config_dir + "experiment.yaml", r.experiment);
  const fs::path reference = r.dir / "ref.yaml";
  EXPECT_EQ(run_vcloe("trajectory random --seed 4 --duration 0.3 --out " + reference.string()).status, 0);
  const CommandResult c = run_vcloe("run --reference " + reference.string() + " --experiment " + r.experiment.string() +
                                    " --out " + r.trace.string());
  EXPECT_EQ(c.status, 0) << c.out;
  return r;
}

// A copy of the run's trace (rows untouched) whose sidecar is edited as a hand would.
fs::path edited(const RecordedRun& r, const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
  const fs::path t = r.dir / (name + ".csv");
  fs::copy_file(r.trace, t, fs::copy_options::overwrite_existing);
  nlohmann::json j = nlohmann::json::parse(cli_test::read_file(r.trace.string() + ".meta.json"));
  edit(j);
  std::ofstream(t.string() + ".meta.json") << j.dump(2) << "\n";
  vcloe::test::seal_again(t.string() + ".meta.json");  // the copies' own check, behind the seal
  return t;
}

}  // namespace

// The five edits of the probe, each refused by filter (which writes nothing) and by compare, in
// one line naming the file, the key, what was expected and what it got.
TEST(CliProbe28E, ASidecarsEditedCopiesOfItsExperimentAreRefusedByFilterAndCompare) {
  const RecordedRun r = make_run("copies");
  const std::string rule = "the copied timing breaks the experiment file's rule (docs/experiment-file.md): ";
  const std::string recorded = "but " + r.experiment.string() + " gives ";
  const std::string why = ": the sidecar's copy is not the experiment it records (unchanged since: the same SHA-256)";
  const struct {
    std::string name;
    std::function<void(nlohmann::json&)> edit;
    std::string refusal;  // after "<file>" or "<file>.meta.json"
  } cases[] = {
      {"literal", [](nlohmann::json& j) { j["outer_form"] = "literal"; },
       ": was recorded with outer_form \"literal\" (SIDECAR), " + recorded + "\"feedforward\"" + why},
      {"late", [](nlohmann::json& j) { j["latency_s"] = 0.5; },
       ": was recorded with latency_s 0.5 (SIDECAR), " + recorded + "0.01" + why},
      {"off_tick", [](nlohmann::json& j) { j["latency_s"] = 0.0105; },
       ".meta.json: key 'latency_s': " + rule +
           "timing.latency must be a multiple of the controller period, in [0, 86400] s: 0.001 s (got 0.0105 s)"},
      {"hz150", [](nlohmann::json& j) { j["controller_hz"] = 150.0; },
       ".meta.json: key 'camera_hz': " + rule + "timing.camera_hz must divide timing.controller_hz (got 100 and 150 Hz)"},
      {"long", [](nlohmann::json& j) { j["duration_s"] = 50.0; },
       ".meta.json: key 'duration_s': expected the length of the run its CSV's rows cover (rows up to t = 0.29 s: from 0.29 "
       "to 0.305 s), got 50"},
  };
  for (const auto& c : cases) {
    const fs::path t = edited(r, c.name, c.edit);
    std::string refusal = c.refusal;
    if (const auto at = refusal.find("SIDECAR"); at != std::string::npos) refusal.replace(at, 7, t.string() + ".meta.json");
    const fs::path out = r.dir / (c.name + "-f.csv");
    const CommandResult f = run_vcloe("filter " + t.string() + " --out " + out.string());
    EXPECT_EQ(f.status, 2) << c.name << "\n" << f.out;
    EXPECT_NE(f.out.find("vcloe: error: " + t.string() + refusal), std::string::npos) << c.name << "\n" << f.out;
    EXPECT_FALSE(fs::exists(out.string() + ".meta.json")) << c.name;
    const CommandResult k = run_vcloe("compare " + t.string() + " " + r.trace.string());
    EXPECT_EQ(k.status, 2) << c.name << "\n" << k.out;
    EXPECT_NE(k.out.find("vcloe: error: " + t.string() + refusal), std::string::npos) << c.name << "\n" << k.out;
  }
}

// The run's own trace, and the filter's output of it, still read: filter, compare, filter again.
TEST(CliProbe28E, TracesVcloeWritesAreReadAndTheFiltersOutputReadsBack) {
  const RecordedRun r = make_run("real");
  const fs::path f = r.dir / "f.csv", ff = r.dir / "ff.csv";
  CommandResult c = run_vcloe("filter " + r.trace.string() + " --out " + f.string());
  EXPECT_EQ(c.status, 0) << c.out;
  c = run_vcloe("compare " + f.string() + " " + r.trace.string());
  EXPECT_EQ(c.status, 0) << c.out;
  c = run_vcloe("filter " + f.string() + " --out " + ff.string());
  EXPECT_EQ(c.status, 0) << c.out;
}

}  // namespace test_cli_probe28_e
