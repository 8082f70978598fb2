// Specification of servo/: the cascade of Li et al. 2019 Fig. 3 with explicit sampled-data timing.
// The twin tracks a feasible reference, honours the camera rate and the latency, reports a
// diverging run instead of returning NaNs, and differentiates through ceres::Jet.
#include <ceres/jet.h>
#include <gtest/gtest.h>

#include "../sim/sim_fixtures.hpp"
#include "../test_support.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/rotation_difference.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/servo/twin.hpp"

#include <cstdio>
#include <functional>

using namespace vcloe;
using namespace vcloe::servo;
using vcloe::test::default_robot;

namespace {

excitation::FourierTrajectory reference_trajectory(double duration) {
  excitation::RandomTrajectoryOptions o;
  o.duration = duration;
  return excitation::random_feasible_trajectory(default_robot(), 7, o);
}

PreparedReference prepared(const LoopTiming& timing, double duration) {
  const auto tr = reference_trajectory(duration);
  return prepare_reference(default_robot(), timing, tr);
}

double max_tracking_error_mm(const PreparedReference& ref, const LoopResult<double>& r) {
  double worst = 0;
  for (std::size_t j = 0; j < r.true_pose.size(); ++j)
    worst = std::max(worst, (r.true_pose[j] - ref.reference_at_exposure[j]).head<3>().norm());
  return worst * 1e3;
}

}  // namespace

TEST(Timing, RejectsRatesThatDoNotDivideAndLatencyOffTheGrid) {
  LoopTiming t;
  t.camera_hz = 300;
  EXPECT_THROW(t.validate("exp"), vcloe::Error);
  t = LoopTiming{};
  t.latency = 0.0105;
  try {
    t.validate("exp.yaml");
    FAIL();
  } catch (const vcloe::Error& e) {
    EXPECT_NE(std::string(e.what()).find("timing.latency"), std::string::npos);
  }
  EXPECT_NO_THROW(LoopTiming{}.validate("exp"));
}

TEST(Timing, ExperimentFileErrorsNameTheKey) {
  try {
    parse_experiment("timing:\n  camera_hz: 70\n", "exp.yaml");
    FAIL();
  } catch (const vcloe::Error& e) {
    EXPECT_NE(std::string(e.what()).find("exp.yaml:2"), std::string::npos) << e.what();
  }
  const ExperimentConfig c = parse_experiment("outer_pid:\n  kp: 0.5\n  form: literal\n", "exp.yaml");
  EXPECT_TRUE(c.outer.literal);
  EXPECT_DOUBLE_EQ(c.outer.kp(4), 0.5);
}

TEST(PreparedReference, ExposuresAtTheCameraRateAndUpdatesAfterTheLatency) {
  LoopTiming t;
  const PreparedReference ref = prepared(t, 2.0);
  EXPECT_EQ(ref.clock.total_ticks, 2000);
  ASSERT_EQ(ref.exposure_times.size(), 200u);
  EXPECT_DOUBLE_EQ(ref.exposure_times[1], 0.01);
  EXPECT_EQ(ref.updates.size(), 199u);  // the last frame arrives after the run ends
}

TEST(PreparedReference, ATruncatedReferenceRunsTheSamePrefix) {
  const PreparedReference full = prepared(LoopTiming{}, 2.0);
  const PreparedReference head = truncate_reference(full, 80);
  EXPECT_EQ(head.clock.total_ticks, 800);
  EXPECT_EQ(head.exposure_times.size(), 80u);
  EXPECT_EQ(head.updates.size(), 79u);  // as for a run prepared with that duration
  const auto a = simulate_twin<double>(default_robot(), test::default_priors(), full, OuterGains{});
  const auto b = simulate_twin<double>(default_robot(), test::default_priors(), head, OuterGains{});
  ASSERT_TRUE(a.ok && b.ok);
  ASSERT_EQ(b.true_pose.size(), 80u);
  for (std::size_t j = 0; j < 80; ++j) EXPECT_EQ(a.true_pose[j], b.true_pose[j]) << j;
}

TEST(Twin, TracksAFeasibleReferenceUnderTheDefaultCascade) {
  const PreparedReference ref = prepared(LoopTiming{}, 4.0);
  const LoopResult<double> r = simulate_twin<double>(default_robot(), test::default_priors(), ref, OuterGains{});
  ASSERT_TRUE(r.ok) << r.failure;
  ASSERT_EQ(r.true_pose.size(), ref.exposure_times.size());
  EXPECT_LT(max_tracking_error_mm(ref, r), 5.0);
}

TEST(Twin, StartsStandingWithItsModeledDrivesHoldingThePose) {
  // Both loops start with the robot standing at chi_d(0), its drives' integrals carrying the
  // holding torques J_ad^-T G of the twin's own parameters: under a constant reference the
  // twin does not move, whatever the parameters (here the priors and a platform 20 % heavier).
  LoopTiming t;
  const PreparedReference ref = prepare_reference(default_robot(), t, 1.0, [&](double) {
    return ReferenceSample{default_robot().home, Vec6d::Zero()};
  });
  for (double mass_factor : {1.0, 1.2}) {
    sim::LambdaVector<double> lambda = test::default_priors();
    lambda(sim::platform_index(0)) *= mass_factor;  // m_p
    const LoopResult<double> r = simulate_twin<double>(default_robot(), lambda, ref, OuterGains{});
    ASSERT_TRUE(r.ok) << r.failure;
    double worst = 0;
    for (const Vec6d& pose : r.true_pose) worst = std::max(worst, (pose - default_robot().home).norm());
    EXPECT_LT(worst, 1e-9) << "platform mass x" << mass_factor;
  }
}

TEST(Twin, LiteralOuterLawAlsoHoldsThePose) {
  // The literal eq. (30) has no feedforward: its integrator alone must hold the pose. Started at
  // the start joint angles (docs/design.md §5), it holds a standing robot exactly, and it
  // tracks a moving reference (less tightly than the feedforward form).
  OuterGains g;
  g.literal = true;
  const PreparedReference still = prepare_reference(default_robot(), LoopTiming{}, 1.0, [&](double) {
    return ReferenceSample{default_robot().home, Vec6d::Zero()};
  });
  const LoopResult<double> s = simulate_twin<double>(default_robot(), test::default_priors(), still, g);
  ASSERT_TRUE(s.ok) << s.failure;
  double drift = 0;
  for (const Vec6d& pose : s.true_pose) drift = std::max(drift, (pose - default_robot().home).norm());
  EXPECT_LT(drift, 1e-9);
  const PreparedReference ref = prepared(LoopTiming{}, 4.0);
  const LoopResult<double> r = simulate_twin<double>(default_robot(), test::default_priors(), ref, g);
  ASSERT_TRUE(r.ok) << r.failure;
  const LoopResult<double> ff = simulate_twin<double>(default_robot(), test::default_priors(), ref, OuterGains{});
  std::printf("tracking error max: literal %.3f mm, feedforward %.3f mm\n", max_tracking_error_mm(ref, r),
              max_tracking_error_mm(ref, ff));
  EXPECT_LT(max_tracking_error_mm(ref, r), 10.0);
}

namespace {
// A twin that counts its ticks, and a camera that notes the tick of every exposure.
struct CountingTwin {
  TwinRobot<double> twin;
  int ticks = 0;
  Vec6d pose() const { return twin.pose(); }
  bool step(const Vec6d& U) { return ++ticks, twin.step(U); }
  const std::string& failure() const { return twin.failure(); }
};
struct NotingCamera {
  const CountingTwin* robot;
  std::vector<int> exposure_ticks;
  Vec6d measure(int, const Vec6d& pose) {
    exposure_ticks.push_back(robot->ticks);
    return pose;
  }
};
}  // namespace

TEST(Loop, ExposesAtTheCameraRateAndUpdatesOnlyAfterTheLatency) {
  // Frame j is measured at tick j * ticks_per_frame; the held command changes only at the
  // arrival ticks j * ticks_per_frame + latency_ticks, and each change is what the outer
  // controller, stepped alone on frame j's measured pose, returns.
  for (const auto& [camera_hz, latency] : {std::pair{100.0, 0.01}, {50.0, 0.02}, {100.0, 0.0}, {250.0, 0.007}}) {
    LoopTiming t;
    t.camera_hz = camera_hz;
    t.latency = latency;
    const PreparedReference ref = prepared(t, 1.0);
    CountingTwin robot{TwinRobot<double>(default_robot(), test::default_priors(), t, ref.start_pose)};
    NotingCamera camera{&robot, {}};
    VisualServo<double> outer(ref, OuterGains{});
    std::vector<int> change_ticks;
    Vec6d held = outer.command();
    const LoopResult<double> r = run_loop<double>(robot, outer, camera, [&](const TickRecord& tick) {
      if (outer.command() != held) change_ticks.push_back(tick.tick);
      held = outer.command();
      return true;
    });
    ASSERT_TRUE(r.ok) << r.failure;
    const int per_frame = t.ticks_per_frame(), lag = t.latency_ticks();
    ASSERT_EQ(camera.exposure_ticks.size(), ref.exposure_times.size());
    for (std::size_t j = 0; j < camera.exposure_ticks.size(); ++j)
      EXPECT_EQ(camera.exposure_ticks[j], static_cast<int>(j) * per_frame) << camera_hz << " Hz, frame " << j;
    ASSERT_EQ(change_ticks.size(), ref.updates.size()) << camera_hz << " Hz, latency " << latency;
    for (std::size_t j = 0; j < change_ticks.size(); ++j)
      EXPECT_EQ(change_ticks[j], static_cast<int>(j) * per_frame + lag) << camera_hz << " Hz, frame " << j;
    VisualServo<double> alone(ref, OuterGains{});
    for (std::size_t j = 0; j < ref.updates.size(); ++j)
      ASSERT_EQ(alone.on_frame(static_cast<int>(j), r.measured[j]), r.command[j]) << "frame " << j;
  }
}

TEST(VisualServo, StepsOnTimeStampedPosesAsAProcessWould) {
  const PreparedReference ref = prepared(LoopTiming{}, 1.0);
  VisualServo<double> by_frame(ref, OuterGains{}), by_time(ref, OuterGains{});
  EXPECT_EQ(by_time.command(), ref.start_theta);  // holds IK of the start pose until a frame arrives
  for (int j = 0; j < 5; ++j) {
    const Vec6d pose = ref.reference_at_exposure[static_cast<std::size_t>(j)] + Vec6d::Constant(1e-4 * j);
    EXPECT_EQ(by_frame.on_frame(j, pose), by_time.on_pose(ref.exposure_times[static_cast<std::size_t>(j)], pose));
  }
  EXPECT_THROW(by_time.on_pose(ref.exposure_times[3], ref.start_pose), vcloe::Error);  // out of order
  EXPECT_THROW(by_time.on_pose(0.0555, ref.start_pose), vcloe::Error);                // off the camera grid
  EXPECT_NO_THROW(by_time.on_pose(ref.exposure_times[7], ref.start_pose));            // a lost frame is skipped
}

TEST(Twin, ADivergingRunIsReportedNotReturnedAsNaN) {
  sim::LambdaVector<double> lambda = test::default_priors();
  lambda(sim::kGainP) *= 400;  // far beyond what 1 kHz sampling can stabilise
  lambda(sim::kGainD) *= 400;
  const PreparedReference ref = prepared(LoopTiming{}, 2.0);
  const LoopResult<double> r = simulate_twin<double>(default_robot(), lambda, ref, OuterGains{});
  EXPECT_FALSE(r.ok);
  EXPECT_GT(r.failure_time, 0.0);
  for (const auto& p : r.true_pose) EXPECT_TRUE(p.allFinite());
  // The reason names what failed, where and under what: formerly only "the twin's state left
  // the workspace or turned non-finite".
  EXPECT_NE(r.failure.find("stopped during the controller period ending at t = "), std::string::npos) << r.failure;
  const std::size_t leg = r.failure.find("the twin's pose left the workspace: leg ");
  ASSERT_NE(leg, std::string::npos) << r.failure;
  EXPECT_NE(r.failure.find(" cannot close at x ", leg), std::string::npos) << r.failure;
  EXPECT_NE(r.failure.find(" mrad, moving at "), std::string::npos) << r.failure;
  EXPECT_NE(r.failure.find(" N*m (joint "), std::string::npos) << r.failure;
}

TEST(Twin, JetDerivativesOfThePoseTraceMatchFiniteDifferences) {
  using Jet = ceres::Jet<double, 3>;
  const PreparedReference ref = prepared(LoopTiming{}, 0.5);
  const sim::LambdaVector<double> base = test::default_priors();
  sim::LambdaVector<Jet> lambda = base.cast<Jet>();
  const int params[3] = {sim::platform_index(0), sim::viscous_index(2), sim::kGainP};
  for (int d = 0; d < 3; ++d) lambda(params[d]) = Jet(base(params[d]), d);
  const LoopResult<Jet> r = simulate_twin<Jet>(default_robot(), lambda, ref, OuterGains{});
  ASSERT_TRUE(r.ok);
  for (int d = 0; d < 3; ++d) {
    const double h = 1e-6 * std::max(1.0, std::abs(base(params[d])));
    sim::LambdaVector<double> up = base, down = base;
    up(params[d]) += h;
    down(params[d]) -= h;
    const auto ru = simulate_twin<double>(default_robot(), up, ref, OuterGains{});
    const auto rd = simulate_twin<double>(default_robot(), down, ref, OuterGains{});
    double worst = 0, scale = 0;
    for (std::size_t j = 0; j < r.true_pose.size(); ++j)
      for (int a = 0; a < 6; ++a) {
        const double fd = (ru.true_pose[j](a) - rd.true_pose[j](a)) / (2 * h);
        worst = std::max(worst, std::abs(r.true_pose[j](a).v(d) - fd));
        scale = std::max(scale, std::abs(fd));
      }
    EXPECT_GT(scale, 0.0);
    EXPECT_LE(worst, 1e-5 * scale) << "parameter " << sim::parameter_registry()[params[d]].name;
  }
}

TEST(Timing, AbsurdSettingsAreRefusedBeforeAnyWork) {
  LoopTiming t;
  t.substeps = 100000;  // would run for hours per simulated second
  EXPECT_NE(vcloe::test::error_of([&] { t.validate("exp.yaml"); }).find("timing.substeps must be between 1 and 1000"),
            std::string::npos);
  const auto still = [&](double) { return ReferenceSample{default_robot().home, Vec6d::Zero()}; };
  LoopTiming late;
  late.latency = 0.5;  // longer than the 0.3 s run: the outer loop would never act
  EXPECT_NE(vcloe::test::error_of([&] { prepare_reference(default_robot(), late, 0.3, still); }).find("not shorter than the run"),
            std::string::npos);
  EXPECT_NE(vcloe::test::error_of([&] { prepare_reference(default_robot(), LoopTiming{}, 1e12, still); }).find("10^8"),
            std::string::npos);
  LoopTiming slow_camera;
  slow_camera.camera_hz = 1e-300;  // the ticks per frame overflowed an int: SIGFPE (exit 136)
  EXPECT_NE(vcloe::test::error_of([&] { slow_camera.validate("exp.yaml"); })
                .find("timing.camera_hz must be at least 1 Hz (got 1e-300 Hz)"),
            std::string::npos);
  slow_camera.camera_hz = 1e-3;  // accepted; the twin then diverged, naming neither file nor key
  EXPECT_NE(vcloe::test::error_of([&] { slow_camera.validate("exp.yaml"); }).find("at least 1 Hz (got 0.001 Hz)"),
            std::string::npos);
  LoopTiming fine;  // each within its bound, together 10^8 RK4 steps per simulated second
  fine.controller_hz = 1e5;
  fine.substeps = 1000;
  EXPECT_NE(vcloe::test::error_of([&] { fine.validate("exp.yaml"); })
                .find("exp.yaml: timing.controller_hz x timing.substeps is 1e+08 integration steps per second; "
                      "at most 10^6"),
            std::string::npos);
  fine.substeps = 10;
  EXPECT_NO_THROW(fine.validate("exp.yaml"));
  EXPECT_NE(vcloe::test::error_of([] { parse_experiment("outer_pid:\n  kp: -5\n", "exp.yaml"); })
                .find("exp.yaml:2: key 'outer_pid.kp': expected non-negative gains"),
            std::string::npos);
  EXPECT_NE(vcloe::test::error_of([] { parse_experiment("outer_pid:\n  kp: 1e308\n", "exp.yaml"); })
                .find("exp.yaml:2: key 'outer_pid.kp': expected gains of at most 1e6"),
            std::string::npos);
}

TEST(Timing, AFuzzFoundKeyWithControlBytesIsAOneLineError) {
  // fuzz/fuzz_experiment: a key with a backspace and a NUL byte in it (yaml-cpp reads the NUL
  // as a line break) was quoted raw; control characters are no YAML text: said as a binary file.
  const std::string file = test::fuzz_input("experiment-control-chars-in-a-key.yaml");
  const std::string e = test::error_of([&] { load_experiment(file); });
  EXPECT_EQ(e.rfind(file + ": is a binary file, not a YAML text file (byte 0x00 at offset 57 ", 0), 0u) << e;
  for (const char c : e) EXPECT_GE(static_cast<unsigned char>(c), 0x20) << e;
}

// A pose source may report any Euler triple of a rotation (gamma in [0, 2 pi), alpha wrapping by
// 2 pi mid-run, the other branch): the servo's error and rate are differences of rotations
// (pose_difference), so the commands are those of the plain poses (probe 19's class A: control
// ended at frame 0 on gamma + 2 pi).
TEST(VisualServo, PosesOnAnotherBranchOfTheSameRotationsGiveTheSameCommands) {
  const PreparedReference ref = prepared(LoopTiming{}, 0.3);
  const std::size_t n = ref.updates.size();
  auto pose = [&](std::size_t j) { return Vec6d(ref.reference_at_exposure[j] + Vec6d::Constant(2e-4 * std::sin(0.3 * j))); };
  auto gamma_turn = [](Vec6d p, std::size_t) { return Vec6d(p + Vec6d(0, 0, 0, 0, 0, 2 * M_PI)); };
  auto alpha_wraps_mid = [](Vec6d p, std::size_t j) { return j >= 10 ? Vec6d(p - Vec6d(0, 0, 0, 2 * M_PI, 0, 0)) : p; };
  auto other_branch = [](Vec6d p, std::size_t j) {
    if (j % 3 == 1) p.tail<3>() = Vec3d(p(3) + M_PI, M_PI - p(4), p(5) - M_PI);
    return p;
  };
  const std::function<Vec6d(Vec6d, std::size_t)> cases[] = {gamma_turn, alpha_wraps_mid, other_branch};
  for (int c = 0; c < 3; ++c) {
    VisualServo<double> plain(ref, OuterGains{}), written(ref, OuterGains{});
    for (std::size_t j = 0; j < n; ++j) {
      const Vec6d u = plain.on_frame(static_cast<int>(j), pose(j));
      const Vec6d v = written.on_frame(static_cast<int>(j), cases[c](pose(j), j));
      ASSERT_LT((u - v).cwiseAbs().maxCoeff(), 1e-9) << "case " << c << ", frame " << j;
    }
  }
}

// With ceres::Jet the whole turns are taken from the real part: the derivative is that of a - b.
TEST(VisualServo, TheDifferenceOfRotationsCarriesJetDerivatives) {
  using Jet = ceres::Jet<double, 2>;
  const Vec3<Jet> a(Jet(0.1, 0), Jet(0.2), Jet(3.0, 1)), b(Jet(0.1), Jet(0.2), Jet(-3.1));
  const Vec3<Jet> d = euler_difference<Jet>(a, b);
  EXPECT_NEAR(d(2).a, 6.1 - 2 * M_PI, 1e-12);  // the short way round, not 6.1
  EXPECT_EQ(d(2).v(1), 1.0);
  EXPECT_EQ(d(0).v(0), 1.0);
  const Vec3<Jet> m(Jet(0.1), Jet(0.2), Jet(0.5 + 2 * M_PI)), s(Jet(0.1, 0), Jet(0.2), Jet(0.5, 1));
  const Vec3<Jet> r = -euler_difference<Jet>(s, m);  // measured - model: d/d model = -1
  EXPECT_NEAR(r(2).a, 0, 1e-12);
  EXPECT_EQ(r(2).v(1), -1.0);
}
