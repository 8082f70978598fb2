// Specification of excitation/criteria and optimizer: the QR step names what the model
// structure cannot excite, the criteria behave as eq. (39) says, and the optimiser is seeded,
// feasible and better than random trajectories.
#include <gtest/gtest.h>

#include <set>

#include "../sim/sim_fixtures.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/excitation/optimizer.hpp"

using namespace vcloe;
using namespace vcloe::excitation;
using vcloe::test::default_robot;

namespace {
ColumnReport report_for_random_trajectory() {
  Eigen::MatrixXd H;
  EXPECT_TRUE(stack_regressor(default_robot(), random_feasible_trajectory(default_robot(), 21), 0.1, H));
  return excited_columns(H);
}
const Unexcited* find(const ColumnReport& r, const std::string& name) {
  for (const auto& u : r.dropped)
    if (sim::parameter_registry()[u.parameter].name == name) return &u;
  return nullptr;
}
ExcitationProblem small_problem() {
  ExcitationProblem p;
  p.global_evaluations = 300;
  p.local_evaluations = 200;
  p.baseline_trajectories = 5;
  return p;
}
}  // namespace

TEST(QrReport, NamesWhatVerticalParallelAxesCannotExcite) {
  const ColumnReport r = report_for_random_trajectory();
  for (int i = 1; i <= 6; ++i) {
    const std::string w = "_w" + std::to_string(i), l = "_l" + std::to_string(i);
    // A crank only turns about its vertical axis: its Ix, Iy never enter.
    ASSERT_NE(find(r, "Ix" + w), nullptr);
    EXPECT_TRUE(find(r, "Ix" + w)->zero_column);
    ASSERT_NE(find(r, "Iy" + w), nullptr);
    EXPECT_TRUE(find(r, "Iy" + w)->zero_column);
    // Links do not spin about their axis.
    ASSERT_NE(find(r, "Iz" + l), nullptr);
    EXPECT_TRUE(find(r, "Iz" + l)->zero_column);
    // Wrench m and Iz enter only as Iz + m r^2.
    const Unexcited* iz = find(r, "Iz" + w);
    ASSERT_NE(iz, nullptr);
    EXPECT_FALSE(iz->zero_column);
    EXPECT_EQ(iz->combined_with, std::vector<int>{sim::parameter_index("m" + w)});
  }
  // The platform and the friction parameters are all excited.
  for (const char* name : {"m_p", "Ix_p", "Iy_p", "Iz_p", "fc1", "fv6"}) EXPECT_EQ(find(r, name), nullptr) << name;
  EXPECT_NE(r.describe().find("Ix_w1 (not excited)"), std::string::npos);
}

TEST(Criteria, ObservabilityIndexIsTheGeometricMeanOfSingularValuesOverRootM) {
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(12, 64);  // m = 2 samples
  H(0, 0) = 4;
  H(1, 1) = 1;
  const CriterionValues v = evaluate_criteria(H, {0, 1}, false);
  EXPECT_NEAR(v.observability_index, std::sqrt(4.0 * 1.0) / std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(v.log_det, std::log(16.0), 1e-12);
  EXPECT_NEAR(v.condition_number, 4.0, 1e-12);
  // Scaling a column scales the unscaled index, not the scaled one.
  H.col(0) *= 10;
  EXPECT_GT(evaluate_criteria(H, {0, 1}, false).observability_index, v.observability_index);
  EXPECT_NEAR(evaluate_criteria(H, {0, 1}, true).observability_index, 1 / std::sqrt(2.0), 1e-12);
}

TEST(Optimizer, IsSeededFeasibleAndBeatsRandomTrajectories) {
  const ExcitationProblem p = small_problem();
  const ExcitationResult a = optimize_excitation(default_robot(), p);
  const ExcitationResult b = optimize_excitation(default_robot(), p);
  EXPECT_EQ(a.trajectory.s, b.trajectory.s);
  EXPECT_EQ(a.trajectory.c, b.trajectory.c);
  EXPECT_TRUE(a.feasibility.feasible);
  EXPECT_TRUE(check_feasibility(default_robot(), parse_trajectory(trajectory_to_yaml(a.trajectory), "t"), p.limits).feasible);
  EXPECT_GT(a.final, a.initial);
  EXPECT_EQ(a.evaluations, p.global_evaluations + p.local_evaluations);
}

TEST(Optimizer, ImpossibleSettingsAreClearErrors) {
  ExcitationProblem p = small_problem();
  p.harmonics = 0;
  EXPECT_THROW(optimize_excitation(default_robot(), p), vcloe::Error);
  p = small_problem();
  p.f0 = -1;
  EXPECT_THROW(optimize_excitation(default_robot(), p), vcloe::Error);
  p = small_problem();
  p.limits.max_joint_velocity = 1e-9;  // nothing can move
  try {
    optimize_excitation(default_robot(), p);
    FAIL();
  } catch (const vcloe::Error& e) {
    EXPECT_NE(std::string(e.what()).find("feasible"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("velocity"), std::string::npos) << e.what();  // the limit that failed
  }
}

TEST(Optimizer, SamplingAndPivotSettingsAreBoundedWhereTheyAreRead) {
  // limits.sample_period 1e-9 never ended; regressor_period 100 sampled H once and reported 58
  // of 64 parameters "cannot excite"; qr_eps 0 kept numerically null columns.
  auto refusal = [](const std::string& yaml) {
    try {
      parse_excitation_settings("duration: 2\n" + yaml, "x.yaml");
    } catch (const vcloe::Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal("limits: {sample_period: 1.0e-9}\n").find("x.yaml:2: key 'limits.sample_period': expected at most 10^7"),
            std::string::npos);
  EXPECT_NE(refusal("regressor_period: 100\n").find("x.yaml:2: key 'regressor_period': expected 11 to 10^4 regressor samples"),
            std::string::npos);
  EXPECT_NE(refusal("check_period: 1.0e-12\n").find("x.yaml:2: key 'check_period': expected 10 to 10^5 limit checks"),
            std::string::npos);
  EXPECT_NE(refusal("qr_eps: 0\n").find("x.yaml:2: key 'qr_eps': expected a pivot ratio in (0, 1)"), std::string::npos);
  EXPECT_NE(refusal("seed: -1\n").find("x.yaml:2: key 'seed': expected a non-negative seed"), std::string::npos);
  EXPECT_NE(refusal("evaluations: {global: 0, local: 0}\n").find("x.yaml:2: key 'evaluations': expected at least one"),
            std::string::npos);
  EXPECT_NE(refusal("amplitude: {angle: 1.0e308}\n").find("x.yaml:2: key 'amplitude.angle': expected an angle amplitude in (0, pi] rad"),
            std::string::npos);
  EXPECT_EQ(refusal("regressor_period: 0.1\ncheck_period: 0.02\n"), "accepted");
}

TEST(Optimizer, EveryRangeErrorOfTheExcitationFileNamesItsLineAndKey) {
  // The reader's own errors had "x.yaml:4: key 'f0': …"; the settings' range check said only
  // "x.yaml: duration must be in …" (no line, no key path) — one path now: YamlNode::fail_if.
  auto refusal = [](const std::string& yaml) {
    try {
      parse_excitation_settings("harmonics: 3\n" + yaml, "x.yaml");
    } catch (const vcloe::Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::pair<const char*, const char*> cases[] = {
      {"criterion: best\n", "x.yaml:2: key 'criterion': unknown criterion 'best'"},
      {"duration: -20\n", "x.yaml:2: key 'duration': expected a time in [0.001, 86400] s, got -20"},
      {"amplitude:\n  position: 60\n", "x.yaml:3: key 'amplitude.position': expected a position amplitude in (0, 10] m"},
      {"amplitude:\n  angle: 14.3\n", "x.yaml:3: key 'amplitude.angle': expected an angle amplitude in (0, pi] rad"},
      {"limits:\n  max_joint_velocity: -1\n", "x.yaml:3: key 'limits.max_joint_velocity': expected a positive limit"},
      // Session 22's probe: a limit no robot has was taken, or said as "no baseline trajectory through".
      {"limits:\n  max_joint_velocity: 1e300\n",
       "x.yaml:3: key 'limits.max_joint_velocity': expected a positive limit of at most 1000 rad/s, got 1e+300"},
      {"limits:\n  sample_period: 1e300\n", "x.yaml:3: key 'limits.sample_period': expected a positive limit of at most 1 s"},
      {"limits:\n  max_joint_acceleration: 2e6\n",
       "x.yaml:3: key 'limits.max_joint_acceleration': expected a positive limit of at most 1e+06 rad/s^2, got 2e+06"},
      {"f0: -1\n", "x.yaml:2: key 'f0': f0 must be a positive frequency"},
      // A default coupled to a key the file gives: said at that key (session 20's probe, class V).
      {"duration: 0.05\n", "x.yaml:2: key 'duration': regressor_period: expected 11 to 10^4"},
      // Probe 19's T: keys the file does not have (f0_min; evaluations for baseline_trajectories).
      {"duration: 2\noptimize_f0: true\nf0_range: [0.5, 0.1]\n",
       "x.yaml:4: key 'f0_range': expected [lowest, highest] Hz with 0 < lowest < highest, got [0.5, 0.1]"},
      {"optimize_f0: true\nf0_range: [0, 0.2]\n", "x.yaml:3: key 'f0_range': expected [lowest, highest]"},
      {"duration: 2\nbaseline_trajectories: 0\n", "x.yaml:3: key 'baseline_trajectories': expected 1 to 10^4"},
      {"baseline_trajectories: 20000\n", "x.yaml:2: key 'baseline_trajectories': expected 1 to 10^4"},
      {"evaluations:\n  global: 10\n  local: -1\n", "x.yaml:4: key 'evaluations.local': expected an evaluation budget"},
      {"evaluations:\n  global: 20000000\n", "x.yaml:3: key 'evaluations.global': expected an evaluation budget"},
  };
  for (const auto& [yaml, expected] : cases)
    EXPECT_NE(refusal(yaml).find(expected), std::string::npos) << yaml << " -> " << refusal(yaml);
}
