// Specification of `vcloe predict` and `vcloe precorrect` (docs/control.md) as a user types them:
// the prediction's CSV, the pre-corrected command consumed by `simulate --precorrection`, and the
// bad inputs refused in one line — a model of another robot, a reference faster than the joint
// rate limits, a pre-correction made for another reference.
#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"

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
