// Specification of `vcloe predict` and `vcloe precorrect` (docs/control.md) as a user types them:
// the prediction's CSV, the pre-corrected command consumed by `simulate --precorrection`, and the
// bad inputs refused in one line — a model of another robot, a reference faster than the joint
// rate limits, a pre-correction made for another reference.
#include <nlohmann/json.hpp>

#include "../test_support.hpp"
#include "cli_fixtures.hpp"
#include "vcloe/core/sealed_json.hpp"
#include "vcloe/core/trace.hpp"  // sha256

namespace fs = std::filesystem;
using namespace cli_test;

namespace {

// `trajectory random` with its frequency and every coefficient times `speed`: the same poses,
// `speed` times as fast.
std::string control_reference(const fs::path& d, const std::string& name, int seed, double speed) {
  const fs::path ref = d / name;
  const CommandResult r =
      run_vcloe("trajectory random --seed " + std::to_string(seed) + " --duration 2 --out " + ref.string());
  EXPECT_EQ(r.status, 0) << r.out;
  if (speed == 1) return ref.string();
  std::istringstream in(read_file(ref));
  std::ostringstream out;
  for (std::string line; std::getline(in, line);) {
    const auto open = line.find('[');
    if (line.rfind("f0:", 0) == 0) {
      out << "f0: " << speed * std::stod(line.substr(3)) << "\n";
    } else if (open != std::string::npos && (line.find("s: [") != std::string::npos || line.find("c: [") != std::string::npos)) {
      std::stringstream nums(line.substr(open + 1, line.find(']') - open - 1));
      std::string num, row = line.substr(0, open + 1);
      for (bool first = true; std::getline(nums, num, ','); first = false) row += (first ? "" : ", ") + std::to_string(speed * std::stod(num));
      out << row << "]\n";
    } else {
      out << line << "\n";
    }
  }
  std::ofstream(ref) << out.str();
  return ref.string();
}

double tracking_rms_mm(const std::string& trace, const std::string& columns = "measured") {
  const CommandResult r = run_vcloe("compare " + trace + " " + trace + " --columns " + columns + " --columns-b reference --json");
  EXPECT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  double worst = 0;
  for (double v : j.at("rms_mm")) worst = std::max(worst, v);
  return worst;
}

}  // namespace

TEST(CliControl, PredictWritesTorquesAndJointForcesPerSample) {
  const fs::path d = fresh_dir("vcloe-cli-control", "predict");
  const std::string ref = control_reference(d, "r.yaml", 3, 1);
  const CommandResult r = run_vcloe("predict --model " + config_dir + "truth.yaml --reference " + ref +
                                    " --period 0.01 --out " + (d / "p.csv").string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("largest force in the A joints"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no uncertainty band"), std::string::npos) << r.out;  // the truth has no report
  std::istringstream csv(read_file(d / "p.csv"));
  std::string header, line;
  std::getline(csv, header);
  EXPECT_EQ(header.rfind("t,tau1,tau2,tau3,tau4,tau5,tau6,fB1_x", 0), 0u) << header;
  int rows = 0;
  while (std::getline(csv, line)) ++rows;
  EXPECT_EQ(rows, 201);  // 0 ... 2 s every 10 ms
}

TEST(CliControl, SimulateFollowsAPreCorrectedCommandCloserThanTheServoAlone) {
  const fs::path d = fresh_dir("vcloe-cli-control", "simulate");
  const std::string ref = control_reference(d, "r.yaml", 5, 1), model = config_dir + "robot.yaml";
  const std::string p = (d / "p.csv").string();
  const CommandResult pc = run_vcloe("precorrect --model " + model + " --reference " + ref + " --out " + p);
  ASSERT_EQ(pc.status, 0) << pc.out;
  EXPECT_TRUE(fs::exists(p + ".meta.json"));
  ASSERT_EQ(run_vcloe("simulate --model " + model + " --reference " + ref + " --out " + (d / "a.csv").string()).status, 0);
  const CommandResult s = run_vcloe("simulate --model " + model + " --reference " + ref + " --precorrection " + p +
                                    " --out " + (d / "b.csv").string());
  ASSERT_EQ(s.status, 0) << s.out;
  const double alone = tracking_rms_mm((d / "a.csv").string()), corrected = tracking_rms_mm((d / "b.csv").string());
  std::printf("twin of the priors, 2 s: servo alone %.4f mm, pre-corrected %.5f mm (worst axis RMS)\n", alone, corrected);
  EXPECT_LT(corrected, alone / 10);
}

TEST(CliControl, RunOnTheVirtualRobotFollowsThePreCorrectionOfItsTruth) {
  // `vcloe run` (MuJoCo, its drives' firmware, friction, camera noise) with the pre-correction of
  // the truth file it runs, inside the outer loop: the true pose closer to the reference.
  const fs::path d = fresh_dir("vcloe-cli-control", "run");
  const std::string ref = control_reference(d, "r.yaml", 8, 1), p = (d / "p.csv").string();
  ASSERT_EQ(run_vcloe("precorrect --model " + config_dir + "truth.yaml --reference " + ref + " --out " + p).status, 0);
  ASSERT_EQ(run_vcloe("run --reference " + ref + " --out " + (d / "a.csv").string()).status, 0);
  const CommandResult r = run_vcloe("run --reference " + ref + " --precorrection " + p + " --out " + (d / "b.csv").string());
  ASSERT_EQ(r.status, 0) << r.out;
  const double alone = tracking_rms_mm((d / "a.csv").string(), "truth");
  const double corrected = tracking_rms_mm((d / "b.csv").string(), "truth");
  std::printf("virtual robot, 2 s: servo alone %.4f mm, pre-corrected with its truth %.5f mm (worst axis RMS)\n", alone,
              corrected);
  EXPECT_LT(corrected, alone / 5);
}

TEST(CliControl, LearnRepeatsTheReferenceAndSavesACommandThatRunConsumes) {
  // `vcloe learn` from the priors' pre-correction on the virtual robot (config/truth.yaml): a line
  // per trial, the error smaller trial by trial, the best command in the precorrection format.
  const fs::path d = fresh_dir("vcloe-cli-control", "learn");
  const std::string ref = control_reference(d, "r.yaml", 8, 1), l = (d / "l.csv").string();
  const CommandResult r = run_vcloe("learn --reference " + ref + " --trials 3 --json --out " + l);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("trials").size(), 3u) << r.out;
  for (std::size_t n = 1; n < 3; ++n)
    EXPECT_LT(j["trials"][n]["over_noise"].get<double>(), j["trials"][n - 1]["over_noise"].get<double>()) << r.out;
  EXPECT_EQ(j["best_trial"], 3);
  const CommandResult run = run_vcloe("run --reference " + ref + " --precorrection " + l + " --out " + (d / "m.csv").string());
  ASSERT_EQ(run.status, 0) << run.out;
  const CommandResult text = run_vcloe("learn --reference " + ref + " --trials 1 --friction --force --out " + l);
  EXPECT_NE(text.out.find("trial 1: position "), std::string::npos) << text.out;
  // --friction: each joint's friction estimated from the trial, said in words (docs/control.md, "Friction learnt").
  EXPECT_NE(text.out.find("friction after trial 1:\n    joint 1: "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("    joint 6: "), std::string::npos) << text.out;
  // Learnt on the drives' loop alone: recorded, and run only with the outer gains zero.
  const CommandResult drives = run_vcloe("learn --reference " + ref + " --trials 2 --loop drives --lead 0.02 --force --out " + l);
  ASSERT_EQ(drives.status, 0) << drives.out;
  EXPECT_NE(drives.out.find("run it with the outer gains zero"), std::string::npos) << drives.out;
  const CommandResult refused = run_vcloe("run --reference " + ref + " --precorrection " + l + " --out " + (d / "n.csv").string());
  EXPECT_NE(refused.status, 0);
  EXPECT_NE(refused.out.find("was learnt on the drives' loop alone"), std::string::npos) << refused.out;
  const std::string off = (d / "off.yaml").string();
  std::ofstream(off) << "outer_pid:\n  kp: 0\n  ki: 0\n  kd: 0\n";
  const CommandResult ran = run_vcloe("run --reference " + ref + " --experiment " + off + " --precorrection " + l + " --out " +
                                      (d / "n.csv").string());
  EXPECT_EQ(ran.status, 0) << ran.out;
}

TEST(CliControl, BadInputIsRefusedInOneLine) {
  const fs::path d = fresh_dir("vcloe-cli-control", "refusals");
  const std::string ref = control_reference(d, "r.yaml", 5, 1), other = control_reference(d, "o.yaml", 6, 1);
  const std::string fast = control_reference(d, "fast.yaml", 5, 20);
  std::string robot = read_file(config_dir + "robot.yaml");
  robot.replace(robot.find("0.276075890767297"), 17, "0.29");
  std::ofstream(d / "other-robot.yaml") << robot;
  const std::string p = (d / "p.csv").string(), model = " --model " + config_dir + "robot.yaml";
  ASSERT_EQ(run_vcloe("precorrect" + model + " --reference " + ref + " --out " + p).status, 0);
  expect_refused({
      {"precorrect --model " + (d / "other-robot.yaml").string() + " --reference " + ref + " --out " + (d / "q.csv").string(),
       "is a model of another robot: geometry of leg 1 differs"},
      {"predict --model " + (d / "other-robot.yaml").string() + " --reference " + ref, "is a model of another robot"},
      {"precorrect" + model + " --reference " + fast + " --out " + (d / "q.csv").string(), "reference refused before any motion"},
      {"simulate" + model + " --reference " + other + " --precorrection " + p + " --out " + (d / "s.csv").string(),
       "was made for another reference"},
      {"run --reference " + other + " --precorrection " + p + " --out " + (d / "s.csv").string(), "was made for another reference"},
      {"learn --reference " + ref + " --trials 0 --out " + (d / "q.csv").string(), "--trials: expected at least 1 trial"},
      {"learn --reference " + ref + " --gain 2.5 --out " + (d / "q.csv").string(), "--gain: expected a learning gain in (0, 2)"},
      {"learn --reference " + other + " --precorrection " + p + " --out " + (d / "q.csv").string(),
       "was made for another reference"},
  });
  EXPECT_FALSE(fs::exists(d / "q.csv"));
  EXPECT_FALSE(fs::exists(d / "s.csv"));
}

TEST(CliControl, AModelEditedBesideItsIdentificationReportIsRefusedByEveryCommandThatUsesIt) {
  // Probe 33, B: model.yaml's platform mass edited beside model.yaml.report.json (which records the
  // model's SHA-256) was pre-corrected from, learnt and validated as if identified; predict and
  // report refused it. The one reader of a robot file (sim::check_identified_as_reported) now does.
  const fs::path d = fresh_dir("vcloe-cli-control", "reported");
  const std::string ref = control_reference(d, "r.yaml", 3, 1), model = (d / "m.yaml").string();
  fs::copy_file(config_dir + "robot.yaml", model);
  const nlohmann::json report = {{"inputs", {{"model", {{"path", model}, {"sha256", std::string(64, 'a')}}}}}};
  std::ofstream(model + ".report.json") << vcloe::sealed_json_text(report, model + ".report.json");
  const std::string says = model + ": is not the model its identification report " + model + ".report.json records (SHA-256 ";
  expect_refused({{"precorrect --model " + model + " --reference " + ref + " --out " + (d / "p.csv").string(), says},
                  {"predict --model " + model + " --reference " + ref, says},
                  {"validate --model " + model + " --n 1 --duration 2", says},
                  {"learn --model " + model + " --reference " + ref + " --trials 1 --out " + (d / "l.csv").string(), says},
                  // Probe 36, M01: simulate ran it; every reader of a robot file checks it now (sim::load_robot).
                  {"simulate --model " + model + " --reference " + ref + " --out " + (d / "s2.csv").string(), says},
                  {"kinematics --robot " + model + " --reference " + ref, says}});
  EXPECT_FALSE(fs::exists(d / "p.csv"));
  fs::remove(model + ".report.json");  // without its report it is a robot file like any other
  EXPECT_EQ(run_vcloe("precorrect --model " + model + " --reference " + ref + " --out " + (d / "p.csv").string()).status, 0);
}

namespace {
// Cell (row, column) of a CSV set to `value`, its sidecar's csv_sha256 made again: a hand edit
// whoever made it covered.
void edit_and_rehash(const std::string& csv, int line, int column, const std::string& value) {
  std::istringstream in(read_file(csv));
  std::string text;
  int n = 0;
  for (std::string l; std::getline(in, l);) {
    if (++n == line) {
      std::vector<std::string> cells;
      std::stringstream row(l);
      for (std::string c; std::getline(row, c, ',');) cells.push_back(c);
      cells[static_cast<std::size_t>(column)] = value;
      l.clear();
      for (const std::string& c : cells) l += (l.empty() ? "" : ",") + c;
    }
    text += l + "\n";
  }
  std::ofstream(csv) << text;
  nlohmann::json side = nlohmann::json::parse(read_file(csv + ".meta.json"));
  side["csv_sha256"] = vcloe::sha256(text);
  std::ofstream(csv + ".meta.json") << side.dump(2);
  vcloe::test::seal_again(csv + ".meta.json");  // a consistent forgery: what stops it is making it again
}
}  // namespace

TEST(CliControl, ADerivedFileEditedWithItsHashMadeAgainIsRefusedByMakingItAgain) {
  // Probe 33, A: a pre-correction (h01), a twin trace (h11) and a filtered trace (h09, h10) edited
  // and their csv_sha256 made again were driven, compared and fitted as written; a learnt command
  // relabelled a pre-correction (p10) too. Each is made again from the files it records.
  const fs::path d = fresh_dir("vcloe-cli-control", "derived");
  const std::string ref = control_reference(d, "r.yaml", 5, 1), model = config_dir + "robot.yaml";
  const std::string p = (d / "p.csv").string(), twin = (d / "twin.csv").string(), filtered = (d / "f.csv").string();
  ASSERT_EQ(run_vcloe("precorrect --model " + model + " --reference " + ref + " --out " + p).status, 0);
  ASSERT_EQ(run_vcloe("simulate --model " + model + " --reference " + ref + " --out " + twin).status, 0);
  ASSERT_EQ(run_vcloe("filter " + twin + " --out " + filtered).status, 0);
  EXPECT_EQ(run_vcloe("compare " + filtered + " " + twin).status, 0);  // as written: read
  EXPECT_EQ(run_vcloe("simulate --model " + model + " --reference " + ref + " --precorrection " + p + " --out " +
                      (d / "a.csv").string()).status, 0);
  edit_and_rehash(p, 502, 1, "0.05");
  edit_and_rehash(twin, 51, 8, "0.01");
  expect_refused({{"simulate --model " + model + " --reference " + ref + " --precorrection " + p + " --out " + (d / "b.csv").string(),
                   p + ":502: column 'cmd_theta1': 0.05, but its model " + model},
                  {"compare " + twin + " " + twin, twin + ":51: column 'y': 0.01, but the twin of the files its sidecar records"}});
  ASSERT_EQ(run_vcloe("simulate --model " + model + " --reference " + ref + " --force --out " + twin).status, 0);
  ASSERT_EQ(run_vcloe("filter " + twin + " --force --out " + filtered).status, 0);
  edit_and_rehash(filtered, 30, 7, "0.02");
  expect_refused({{"compare " + filtered + " " + twin, filtered + ":30: column 'x': 0.02, but filtering " + twin}});
  // Any trace's ref_* columns are its recorded reference (probe 35, t18: `compare --columns
  // reference` drew an edit of 10 mm): a run's too.
  const std::string run = (d / "run.csv").string();
  ASSERT_EQ(run_vcloe("run --reference " + ref + " --out " + run).status, 0);
  edit_and_rehash(run, 40, 1, "0.03");
  expect_refused({{"compare " + run + " " + run + " --columns reference", run + ": column 'ref_x' at t = 0.38 s: 0.03, but the reference its sidecar records"}});
  EXPECT_FALSE(fs::exists(d / "b.csv"));
}
