// Specification of issue 27's classes as a user meets them, each stopped in one place
// (docs/robustness.md, "Stopped by mechanism"): an empty value of any option (main.cpp), a
// pre-correction the robot would stop (rig::check_command_followable, shared with precorrect),
// numbers and model keys that were silently wrong, messages that named nothing, and valid input
// that was refused.
#include <map>
#include <nlohmann/json.hpp>

#include "../test_support.hpp"
#include "cli_fixtures.hpp"
#include "vcloe/core/trace.hpp"  // sha256_file

namespace fs = std::filesystem;
using namespace cli_test;

namespace {

// A 1 s reference for the tests below.
std::string mechanism_reference(const fs::path& d) {
  const std::string ref = (d / "ref.yaml").string();
  const CommandResult r = run_vcloe("trajectory random --seed 5 --duration 1 --out " + ref);
  EXPECT_EQ(r.status, 0) << r.out;
  return ref;
}

// `text` with the first line starting with `from` replaced by `to` (the edit must happen).
std::string mechanism_edit(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The CSV's row `row` (0 = header) with its second cell set to `cell`, and its sidecar's
// csv_sha256 made to match: a user's hand edit that the pair check cannot see.
void mechanism_hand_edit(const fs::path& csv, int row, const std::string& cell) {
  std::istringstream in(read_file(csv));
  std::ostringstream out;
  int n = 0;
  for (std::string line; std::getline(in, line); ++n) {
    if (n == row) {
      const std::size_t a = line.find(','), b = line.find(',', a + 1);
      line = line.substr(0, a + 1) + cell + line.substr(b);
    }
    out << line << "\n";
  }
  std::ofstream(csv, std::ios::trunc) << out.str();
  FILE* p = popen(("sha256sum '" + csv.string() + "'").c_str(), "r");
  char hash[65] = {};
  ASSERT_EQ(std::fread(hash, 1, 64, p), 64u);
  pclose(p);
  const fs::path side = csv.string() + ".meta.json";
  nlohmann::json meta = nlohmann::json::parse(read_file(side));
  meta["csv_sha256"] = std::string(hash);
  std::ofstream(side, std::ios::trunc) << meta.dump(2) << "\n";
  vcloe::test::seal_again(side);  // the checks behind the seal
}

}  // namespace

// Commands read an empty path as "not given": `--precorrection ''` ran without one, `--out ''`
// wrote nothing, `--plot ''` drew nothing, each with exit 0. Every option of every command now
// refuses an empty value (main.cpp, check_option_values), before anything is read.
TEST(CliMechanism, AnEmptyValueIsRefusedNamingTheOptionItWasGivenTo) {
  const std::string ref = config_dir + "reference.yaml";
  expect_refused({{"simulate --reference " + ref + " --out o.csv --precorrection ''", "--precorrection: expected a value, got an empty one"},
                  {"predict --model " + config_dir + "truth.yaml --reference " + ref + " --out ''", "--out: expected a value, got an empty one"},
                  {"compare a.csv b.csv --plot ''", "--plot: expected a value, got an empty one"},
                  {"identify --measured '' --out m.yaml", "--measured: expected a value, got an empty one"},
                  {"compare '' b.csv", "expected a value, got an empty one"}}, 5.0);
}

// `vcloe run` with a hand-edited pre-correction whose command jumps 0.5 rad in one tick moved
// the virtual robot where the live robot's safety monitor would have stopped it: the one rule
// (rig::check_command_followable, bridge::SafetyMonitor) now refuses it in every run that reads
// a pre-correction, before any motion; a model path recorded in the sidecar that is gone is said
// with the sidecar's key.
TEST(CliMechanism, APreCorrectionTheRobotWouldStopIsRefusedBeforeAnyMotion) {
  const fs::path d = fresh_dir("vcloe-mechanism", "precorrection");
  const std::string ref = mechanism_reference(d);
  const fs::path pc = d / "pc.csv";
  const CommandResult made = run_vcloe("precorrect --model " + config_dir + "truth.yaml --reference " + ref + " --out " + pc.string());
  ASSERT_EQ(made.status, 0) << made.out;
  fs::copy_file(pc, d / "p4.csv"), fs::copy_file(pc.string() + ".meta.json", d / "p4.csv.meta.json");
  mechanism_hand_edit(d / "p4.csv", 500, "0.5");
  const std::string p4 = (d / "p4.csv").string();
  // A model's pre-correction is made again and compared (session 31, probe 33's h01): the edit
  // is refused as such. A learnt command is nobody's to make again: the safety monitor's rule
  // stops its edit before any motion, as the live robot would.
  expect_refused({{"run --reference " + ref + " --precorrection " + p4 + " --out " + (d / "o.csv").string(),
                   p4 + ":501: column 'cmd_theta1': 0.5, but its model " + config_dir + "truth.yaml pre-corrects "},
                  {"simulate --reference " + ref + " --precorrection " + p4 + " --out " + (d / "o.csv").string(),
                   p4 + ":501: column 'cmd_theta1': 0.5, but its model "}});
  nlohmann::json learnt = nlohmann::json::parse(read_file(p4 + ".meta.json"));
  learnt["kind"] = "learnt";
  learnt["truth"] = {{"path", config_dir + "truth.yaml"}, {"sha256", vcloe::sha256_file(config_dir + "truth.yaml")}};
  std::ofstream(p4 + ".meta.json", std::ios::trunc) << learnt.dump(2) << "\n";
  vcloe::test::seal_again(p4 + ".meta.json");
  expect_refused({{"run --reference " + ref + " --precorrection " + p4 + " --out " + (d / "o.csv").string(),
                   p4 + ": its command cannot be followed: at t = 0.4"},
                  {"simulate --reference " + ref + " --precorrection " + p4 + " --out " + (d / "o.csv").string(),
                   p4 + ": its command cannot be followed: at t = 0.4"}});
  EXPECT_FALSE(fs::exists(d / "o.csv"));
  const std::string side = pc.string() + ".meta.json";
  nlohmann::json meta = nlohmann::json::parse(read_file(side));
  meta["model"]["path"] = (d / "gone.yaml").string();
  std::ofstream(side, std::ios::trunc) << meta.dump(2) << "\n";
  vcloe::test::seal_again(side);
  expect_refused({{"simulate --reference " + ref + " --precorrection " + pc.string() + " --out " + (d / "o.csv").string(),
                   "(key 'model' of " + side + "), which cannot be read"}});
}

// Silently wrong before: `predict --period 1e9` predicted one sample (t = 0) for a whole
// reference; a model file's encoder offsets and marker frame were dropped by `simulate` (now the
// twin simulates them where they act: servo/twin.hpp).
TEST(CliMechanism, NumbersAndKeysThatWereSilentlyWrongAreRefusedOrActed) {
  const fs::path d = fresh_dir("vcloe-mechanism", "silent");
  const std::string ref = mechanism_reference(d), truth = config_dir + "truth.yaml";
  const std::string offset = (d / "offset.yaml").string();
  std::ofstream(offset) << mechanism_edit(read_file(truth), "    axis: [0, 0, 1]\n", "    axis: [0, 0, 1]\n    encoder_offset: 0.001\n");
  const std::string marker = (d / "marker.yaml").string();
  std::ofstream(marker) << read_file(truth) << "marker_frame: [0.001, 0, 0, 0, 0, 0]\n";
  expect_refused({{"predict --model " + truth + " --reference " + ref + " --period 1e9",
                   "--period: expected at most the reference's duration, 1 s of " + ref + ", got 1e+09 s"},
                  {"predict --model " + truth + " --reference " + ref + " --period 1e-9", "--period: 1e-09 s between samples over the 1 s of " + ref +
                   " is 1e+09 samples, 5.09e+03 GB at 5089 bytes each (at most 2 GB a series): expected at least 2.56e-06 s"}});
  std::map<std::string, std::string> traces;
  for (const std::string& model : {truth, offset, marker}) {
    const fs::path out = d / (fs::path(model).stem().string() + ".csv");
    ASSERT_EQ(run_vcloe("simulate --model " + model + " --reference " + ref + " --out " + out.string()).status, 0) << model;
    traces[model] = read_file(out);
  }
  EXPECT_NE(traces[offset], traces[truth]) << "the encoder offset acts on the simulated run";
  EXPECT_NE(traces[marker], traces[truth]) << "the marker frame is what the simulated camera reports";
}

// Messages that named nothing or the wrong thing: a drive law without an inverse and gains too
// weak to follow were blamed on "pre-correction" and on the reference; bounds were printed
// rounded (0.0167 refused under "[0, 0.0167]"); an option was named by its setting's name.
TEST(CliMechanism, MessagesNameTheFileKeyOrOptionTheUserGaveAndPrintExactBounds) {
  const fs::path d = fresh_dir("vcloe-mechanism", "vague");
  const std::string ref = mechanism_reference(d), truth = read_file(config_dir + "truth.yaml");
  const std::string g0 = (d / "g0.yaml").string(), g1 = (d / "g1.yaml").string();
  std::ofstream(g0) << mechanism_edit(mechanism_edit(mechanism_edit(truth, "  lp: 280", "  lp: 0"), "  li: 1000", "  li: 0"), "  ld: 14", "  ld: 0");
  std::ofstream(g1) << mechanism_edit(mechanism_edit(mechanism_edit(truth, "  lp: 280", "  lp: 1e-6"), "  li: 1000", "  li: 0"), "  ld: 14", "  ld: 0");
  const std::string out = " --out " + (d / "t.yaml").string();
  expect_refused({{"precorrect --model " + g0 + " --reference " + ref + " --out " + (d / "p.csv").string(),
                   g0 + ": key 'drive_pid': the drives' law has no inverse for gains lp 0, li 0, ld 0"},
                  {"precorrect --model " + g1 + " --reference " + ref + " --out " + (d / "p.csv").string(),
                   g1 + ": key 'drive_pid' (lp 1e-06, li 0, ld 0) asks for a command along " + ref + " that the robot cannot follow: at t = "},
                  {"truth random --seed 3 --realistic --latency-jitter 0.0167" + out,
                   "--latency-jitter: expected a sigma in [0, 0.016666666666666666] s (3 sigma within 0.05), got 0.0167"},
                  {"truth random --seed 3 --realistic --base-position 0.0034" + out,
                   "--base-position: expected a sigma in [0, 0.0033333333333333335] m"},
                  {"truth random --seed 1 --platform-spread 5" + out, "--platform-spread: expected a relative spread in [0, 1)"}});
}

// Valid input refused before: `predict` has no loop, so the experiment's 10 ms latency says
// nothing about a 1 ms reference.
TEST(CliMechanism, APredictionOfAReferenceShorterThanTheLatencyIsMade) {
  const fs::path d = fresh_dir("vcloe-mechanism", "valid");
  const std::string ref = mechanism_reference(d), shorter = (d / "short.yaml").string();
  std::string text = read_file(ref);
  const std::size_t at = text.find("\nduration: ");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, text.find('\n', at + 1) - at, "\nduration: 0.001");
  std::ofstream(shorter) << text;
  const CommandResult r = run_vcloe("predict --model " + config_dir + "truth.yaml --reference " + shorter + " --period 0.0005");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("largest force"), std::string::npos) << r.out;
}
