// Specification of excitation/fourier: eq. (37) and its exact derivatives, the YAML form,
// the feasibility check that names the first failing time and joint, and seeded random
// feasible trajectories.
#include <gtest/gtest.h>

#include <algorithm>

#include "../sim/sim_fixtures.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/excitation/workflows.hpp"
#include "vcloe/sim/kinematics.hpp"

using namespace vcloe;
using namespace vcloe::excitation;
using vcloe::test::default_robot;

TEST(Fourier, DerivativesAreExact) {
  const FourierTrajectory tr = random_feasible_trajectory(default_robot(), 3);
  const double h = 1e-5;
  for (double t = 0; t < 20; t += 0.37) {
    const TrajectorySample s = tr.sample(t), p = tr.sample(t + h), m = tr.sample(t - h);
    EXPECT_LT((s.chi_dot - (p.chi - m.chi) / (2 * h)).norm(), 1e-8);
    EXPECT_LT((s.chi_ddot - (p.chi_dot - m.chi_dot) / (2 * h)).norm(), 1e-7);
    EXPECT_LT((s.v_dot - (p.v - m.v) / (2 * h)).norm(), 1e-7);  // eq. (38)
  }
}

TEST(Fourier, IsPeriodicInTheFundamental) {
  const FourierTrajectory tr = random_feasible_trajectory(default_robot(), 4);
  EXPECT_LT((tr.pose(1.234) - tr.pose(1.234 + 1 / tr.f0)).norm(), 1e-12);
}

TEST(Fourier, YamlRoundTripIsExact) {
  const FourierTrajectory tr = random_feasible_trajectory(default_robot(), 5);
  const FourierTrajectory back = parse_trajectory(trajectory_to_yaml(tr), "t.yaml");
  EXPECT_EQ(back.s, tr.s);
  EXPECT_EQ(back.c, tr.c);
  EXPECT_EQ(back.offset, tr.offset);
  EXPECT_EQ(back.f0, tr.f0);
}

TEST(Fourier, BadFilesNameTheKey) {
  const std::string good = trajectory_to_yaml(random_feasible_trajectory(default_robot(), 5));
  auto error_of = [](const std::string& text) {
    try {
      parse_trajectory(text, "t.yaml");
    } catch (const vcloe::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string bad = good;
  bad.replace(bad.find("f0: 0.1"), 7, "f0: -1 ");
  EXPECT_NE(error_of(bad).find("key 'f0'"), std::string::npos);
  bad = good;
  const auto pos = bad.find("    s: [", bad.find("  y:"));
  bad.replace(pos, bad.find(']', pos) - pos + 1, "    s: []");
  EXPECT_NE(error_of(bad).find("axes.y.s"), std::string::npos) << error_of(bad);
  bad = good;  // a trajectory of 1e12 s was "feasible, samples checked 0"
  bad.replace(bad.find("duration: "), 10, "duration: 1e12 #");
  EXPECT_NE(error_of(bad).find("key 'duration': expected a duration in [0.001, 86400] s, got 1e+12"),
            std::string::npos)
      << error_of(bad);
  bad = good;  // a subnormal duration was "feasible, samples checked 1"
  bad.replace(bad.find("duration: "), 10, "duration: 4.9e-324 #");
  EXPECT_NE(error_of(bad).find("key 'duration': expected a duration in [0.001, 86400] s, got 5e-324"), std::string::npos)
      << error_of(bad);
  FourierTrajectory many = random_feasible_trajectory(default_robot(), 5);
  many.s.setZero(6, kMaxHarmonics + 1);
  many.c.setZero(6, kMaxHarmonics + 1);
  EXPECT_THROW(check_feasibility(default_robot(), many), vcloe::Error);
  // Read from a file, the struct's own bounds are said at their line and key, as the reader's are
  // ("trajectory: 201 harmonics: at most 200" named neither the file nor the key).
  EXPECT_NE(error_of(trajectory_to_yaml(many)).find("t.yaml:6: key 'axes': 201 harmonics: at most 200"), std::string::npos)
      << error_of(trajectory_to_yaml(many));
  FourierTrajectory day = random_feasible_trajectory(default_robot(), 5);
  day.duration = kMaxDuration;  // allowed, but not at the default 5 ms between limit checks
  try {
    check_feasibility(default_robot(), day);
    ADD_FAILURE() << "a day of motion checked every 5 ms";
  } catch (const vcloe::Error& e) {  // was "motion limits: sample_period: … more than 10^7 times"
    EXPECT_STREQ(e.what(), "trajectory: its 86400 s would need 17280000 limit checks at one every 0.005 s "
                           "(limits.sample_period); at most 10^7: up to 50000 s at this period");
  }
}

TEST(Fourier, MagnitudesNoRobotHasAreRefusedAtTheirKeyAndLine) {
  // Session 22's probe, class 3: a coefficient of 1e308 was "joint 1 velocity inf rad/s exceeds the
  // limit", an offset of 1e300 or a coefficient of 1e160 "leg N cannot close": infeasible motion,
  // named by neither key nor line. Each offset and coefficient is bounded at its own key.
  struct Case {
    const char* key;
    int axis, harmonic;  // harmonic -1: the offset
    bool cosine;
    double value;
    const char* expected;
  };
  const Case cases[] = {
      {"axes.x.s[0]", 0, 0, false, 1e308, "expected a coefficient of at most 100 m/s in magnitude, got 1e+308"},
      {"offset[0]", 0, -1, false, 1e300, "expected a position of at most 100 m in magnitude, got 1e+300"},
      {"axes.alpha.c[0]", 3, 0, true, 1e160, "expected a coefficient of at most 100 rad/s in magnitude, got 1e+160"},
      {"axes.gamma.s[2]", 5, 2, false, -100.5, "expected a coefficient of at most 100 rad/s in magnitude, got -100.5"},
      {"offset[4]", 4, -1, false, 3.2, "expected an angle of at most pi rad in magnitude, got 3.2"},
      {"offset[2]", 2, -1, false, -101, "expected a position of at most 100 m in magnitude, got -101"},
  };
  const char* const axes[6] = {"x", "y", "z", "alpha", "beta", "gamma"};
  const FourierTrajectory feasible = random_feasible_trajectory(default_robot(), 5);
  for (const Case& k : cases) {
    FourierTrajectory tr = feasible;
    if (k.harmonic < 0)
      tr.offset(k.axis) = k.value;
    else
      (k.cosine ? tr.c : tr.s)(k.axis, k.harmonic) = k.value;
    const std::string text = trajectory_to_yaml(tr);
    // The line of the value: the offset's line, or the axis' s or c line.
    std::size_t at = text.find(k.harmonic < 0 ? "offset:" : (std::string("  ") + axes[k.axis] + ":\n").c_str());
    if (k.harmonic >= 0) at = text.find(k.cosine ? "c: [" : "s: [", at);
    const std::string line = std::to_string(1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    try {
      parse_trajectory(text, "t.yaml");
      ADD_FAILURE() << k.key << " read";
    } catch (const vcloe::Error& e) {
      EXPECT_EQ(std::string(e.what()), "t.yaml:" + line + ": key '" + k.key + "': " + k.expected);
    }
    EXPECT_THROW(check_feasibility(default_robot(), tr), vcloe::Error) << k.key;  // the struct's own check, too
  }
  FourierTrajectory edge = feasible;  // the bounds themselves are magnitudes a file may hold
  edge.s(0, 0) = 100;
  edge.c(5, 0) = -100;
  edge.offset(2) = -100;
  edge.offset(3) = 3.14159;
  EXPECT_FALSE(edge.problem().has_value());
}

TEST(Feasibility, RandomTrajectoriesAreFeasibleAndSeeded) {
  const FourierTrajectory a = random_feasible_trajectory(default_robot(), 11);
  const FourierTrajectory b = random_feasible_trajectory(default_robot(), 11);
  const FourierTrajectory c = random_feasible_trajectory(default_robot(), 12);
  EXPECT_EQ(a.s, b.s);
  EXPECT_NE(a.s, c.s);
  EXPECT_TRUE(check_feasibility(default_robot(), a).feasible);
}

TEST(Feasibility, NamesTheFirstFailingTimeAndJoint) {
  FourierTrajectory tr = random_feasible_trajectory(default_robot(), 13);
  tr.s *= 40;  // far beyond the joint range
  tr.c *= 40;
  const FeasibilityReport r = check_feasibility(default_robot(), tr);
  ASSERT_FALSE(r.feasible);
  EXPECT_GE(r.time, 0.0);
  EXPECT_NE(r.reason.find("at t = "), std::string::npos) << r.reason;
  // Every sample before the reported time passes.
  FourierTrajectory head = tr;
  head.duration = std::max(r.time - 0.005, 1e-3);
  if (r.time > 0.005) {
    EXPECT_TRUE(check_feasibility(default_robot(), head).feasible);
  }
}

TEST(Feasibility, FiguresOfNoSamplePassedAreNotShownAsMeasured) {
  // Probe 33, t17: a reference infeasible at t = 0 printed max |theta| 0 and min transmission 1,
  // the initial values, as if measured; now null in JSON and said in the text.
  FourierTrajectory tr = random_feasible_trajectory(default_robot(), 13);
  tr.offset(5) += 3.14159;  // gamma half a turn off: no pose of it is reachable
  const FeasibilityReport r = check_feasibility(default_robot(), tr);
  ASSERT_FALSE(r.feasible);
  ASSERT_EQ(r.passed(), 0) << r.reason;
  const nlohmann::json j = feasibility_json(r);
  EXPECT_TRUE(j.at("max_abs_theta").is_null());
  EXPECT_TRUE(j.at("min_transmission").is_null());
  EXPECT_EQ(j.at("samples_passed"), 0);
  const std::string text = feasibility_text(r);
  EXPECT_NE(text.find("(no sample passed: nothing measured)"), std::string::npos) << text;
  EXPECT_EQ(text.find("max |theta|"), std::string::npos) << text;
  const FeasibilityReport ok = check_feasibility(default_robot(), random_feasible_trajectory(default_robot(), 13));
  EXPECT_GT(feasibility_json(ok).at("max_abs_theta").get<double>(), 0);
}

TEST(Feasibility, VelocityLimitIsEnforced) {
  const FourierTrajectory tr = random_feasible_trajectory(default_robot(), 14);
  MotionLimits tight;
  tight.max_joint_velocity = 1e-3;
  const FeasibilityReport r = check_feasibility(default_robot(), tr, tight);
  ASSERT_FALSE(r.feasible);
  EXPECT_NE(r.reason.find("velocity"), std::string::npos) << r.reason;
  EXPECT_GE(r.joint, 0);
}

// What one joint's error does to the pose: the report's figures are those of the mechanism
// itself, found here by moving one joint at a time through the forward kinematics.
TEST(Feasibility, JointErrorGainMatchesForwardKinematics) {
  const sim::RobotModel& m = default_robot();
  FourierTrajectory tr = random_feasible_trajectory(m, 15);
  tr.s.setZero();  // a still pose: every sample the report covers is this one
  tr.c.setZero();
  const FeasibilityReport r = check_feasibility(m, tr);
  ASSERT_TRUE(r.feasible) << r.reason;

  const Vec6d chi = tr.pose(0);
  Vec6d theta;
  ASSERT_TRUE(sim::inverse_kinematics<double>(m, chi, theta));
  const double h = 1e-6;
  double max_d = 0, max_a = 0, min_ratio = 1e9, max_ratio = 0;
  for (int i = 0; i < sim::kLegs; ++i) {
    const Vec6d dq = h * Vec6d::Unit(i);
    const sim::ForwardKinematicsResult p = sim::forward_kinematics(m, theta + dq, chi);
    const sim::ForwardKinematicsResult n = sim::forward_kinematics(m, theta - dq, chi);
    ASSERT_TRUE(p.converged && n.converged);
    const double d = (p.chi.head<3>() - n.chi.head<3>()).norm() / (2 * h);
    const Eigen::AngleAxisd turn(rotation_of<double>(p.chi) * rotation_of<double>(n.chi).transpose());
    const double a = std::abs(turn.angle()) / (2 * h);
    max_d = std::max(max_d, d);
    max_a = std::max(max_a, a);
    min_ratio = std::min(min_ratio, d / a);
    max_ratio = std::max(max_ratio, d / a);
  }
  EXPECT_NEAR(r.joint_error.max_displacement, max_d, 1e-6 * max_d);
  EXPECT_NEAR(r.joint_error.max_rotation, max_a, 1e-6 * max_a);
  EXPECT_NEAR(r.joint_error.min_ratio, min_ratio, 1e-6 * min_ratio);
  EXPECT_NEAR(r.joint_error.max_ratio, max_ratio, 1e-6 * max_ratio);
}

// Dimensional analysis: a robot built twice as large moves its platform twice as far for the
// same joint error, and turns it by the same angle.
TEST(Feasibility, JointErrorDisplacementScalesWithTheRobot) {
  const sim::RobotModel& m = default_robot();
  sim::RobotModel big = m;
  for (auto& leg : big.legs) {
    leg.base_joint *= 2;
    leg.wrench *= 2;
    leg.link_length *= 2;
    leg.platform_joint *= 2;
  }
  big.home.head<3>() *= 2;
  FourierTrajectory tr = random_feasible_trajectory(m, 16);
  FourierTrajectory tr_big = tr;
  tr_big.offset.head<3>() *= 2;
  tr_big.s.topRows<3>() *= 2;
  tr_big.c.topRows<3>() *= 2;
  const FeasibilityReport r = check_feasibility(m, tr), rb = check_feasibility(big, tr_big);
  ASSERT_TRUE(r.feasible && rb.feasible) << r.reason << rb.reason;
  EXPECT_NEAR(rb.joint_error.max_displacement, 2 * r.joint_error.max_displacement, 1e-9);
  EXPECT_NEAR(rb.joint_error.max_rotation, r.joint_error.max_rotation, 1e-9);
}

TEST(Feasibility, NearSingularGeometryTheMarginsMissIsRefused) {
  // Platform joints on a 2.4 mm circle instead of 120 mm (links recomputed so home is at
  // theta = 0): both singularity margins pass (they are normalised by the platform's size), yet
  // 1 mrad at a joint turns the platform about 60 mrad — simulate ran at 63 mrad RMS error.
  sim::RobotModel tiny = default_robot();
  for (sim::Leg& leg : tiny.legs) {
    leg.platform_joint *= 0.02;
    leg.link_length = (tiny.home.head<3>() + leg.platform_joint - leg.base_joint - leg.wrench).norm();
  }
  ASSERT_TRUE(sim::check_pose(tiny, tiny.home).ok());
  const FourierTrajectory tr = random_feasible_trajectory(default_robot(), 5);
  const FeasibilityReport r = check_feasibility(tiny, tr);
  EXPECT_FALSE(r.feasible);
  EXPECT_NE(r.reason.find("near-singular geometry: 1 mrad at joint "), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("(limit 10 for each)"), std::string::npos) << r.reason;
  EXPECT_GT(r.joint_error.max_rotation, 10.0);
  // The default robot stays near 1 (docs/trajectory-file.md): the limit leaves it a factor 9.
  const FeasibilityReport ok = check_feasibility(default_robot(), tr);
  EXPECT_TRUE(ok.feasible) << ok.reason;
  EXPECT_LT(ok.joint_error.max_rotation, 1.5);
}

TEST(Feasibility, LimitsAndHarmonicsTheChecksCannotResolveAreRefused) {
  const FourierTrajectory tr = random_feasible_trajectory(default_robot(), 5);
  // A NaN limit made every comparison false: the check passed everything.
  MotionLimits nan_limit;
  nan_limit.max_joint_velocity = std::nan("");
  try {
    check_feasibility(default_robot(), tr, nan_limit);
    ADD_FAILURE() << "a NaN limit accepted";
  } catch (const vcloe::Error& e) {
    EXPECT_STREQ(e.what(), "motion limits: max_joint_velocity: expected a positive limit of at most 1000 rad/s, got nan");
  }
  // A harmonic faster than a tenth of the check's sample rate could peak between samples.
  FourierTrajectory fast = tr;
  fast.f0 = 30.0 / fast.harmonics();  // 30 Hz at the top, the 5 ms check resolves 20 Hz
  const FeasibilityReport r = check_feasibility(default_robot(), fast);
  EXPECT_FALSE(r.feasible);
  EXPECT_NE(r.reason.find("is faster than the 5 ms samples of this check resolve (at most 20 Hz)"), std::string::npos)
      << r.reason;
  // A fundamental below a cycle a day (1e-300 Hz wrote a trajectory that never moved).
  std::string text = trajectory_to_yaml(tr);
  text.replace(text.find("f0: 0.1"), 7, "f0: 1e-300");
  try {
    parse_trajectory(text, "t.yaml");
    ADD_FAILURE() << "f0 1e-300 accepted";
  } catch (const vcloe::Error& e) {
    EXPECT_NE(std::string(e.what()).find("t.yaml:2: key 'f0': expected a fundamental frequency of at least one cycle a day"),
              std::string::npos)
        << e.what();
  }
  RandomTrajectoryOptions slow;
  slow.f0 = 1e-300;  // its amplitudes were scaled over a period of 1e300 s: it never moved
  EXPECT_THROW(random_feasible_trajectory(default_robot(), 1, slow), vcloe::Error);
}

TEST(Fourier, StartAtRestDrawsAReferenceThatStartsAndEndsAtRest) {
  RandomTrajectoryOptions o;
  o.duration = 10;  // one period of 0.1 Hz
  const FourierTrajectory moving = random_feasible_trajectory(default_robot(), 31, o);
  o.start_at_rest = true;
  const FourierTrajectory rest = random_feasible_trajectory(default_robot(), 31, o);
  EXPECT_GT(moving.sample(0).chi_dot.cwiseAbs().maxCoeff(), 1e-3);  // the draw of before starts moving
  for (const double t : {0.0, 10.0}) {
    const TrajectorySample s = rest.sample(t);
    EXPECT_LT(s.chi_dot.cwiseAbs().maxCoeff(), 1e-15) << t;
    EXPECT_LT(s.chi_ddot.cwiseAbs().maxCoeff(), 1e-14) << t;
  }
  EXPECT_TRUE(check_feasibility(default_robot(), rest).feasible);
  // Still as large as asked: the largest excursion of some axis reaches the amplitude (or shrunk to feasible).
  double peak = 0;
  for (double t = 0; t < 10; t += 0.01) peak = std::max(peak, (rest.pose(t) - rest.offset).head<3>().cwiseAbs().maxCoeff());
  EXPECT_GT(peak, 0.5 * o.position_amplitude);
  o.harmonics = 1;  // nothing left to move with
  EXPECT_THROW(random_feasible_trajectory(default_robot(), 31, o), vcloe::Error);
}
