// Specification of the output-error cost (oe_ident/src/output_error.hpp, eq. 32 of Li et al.
// 2019): r = (measured - twin) / sigma per channel at the measurement times, experiment after
// experiment; zero at the truth on a noise-free trace; its Jacobian the derivative of r (central
// finite differences); a diverging twin makes the evaluation return false, never NaN residuals.
#include <gtest/gtest.h>

#include <cmath>

#include "../../oe_ident/src/output_error.hpp"
#include "vcloe/oe_ident/problem.hpp"
#include "../sim/sim_fixtures.hpp"
#include "../test_support.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/servo/twin.hpp"

using namespace vcloe;
using namespace vcloe::oe_ident;
using vcloe::test::default_robot;

// This file's helpers and specifications in its own namespace: the test program is compiled as
// one translation unit (tests/CMakeLists.txt).
namespace test_output_error {

namespace {

servo::PreparedReference reference(double duration, std::uint64_t seed) {
  excitation::RandomTrajectoryOptions o;
  o.duration = duration;
  const auto tr = excitation::random_feasible_trajectory(default_robot(), seed, o);
  return servo::prepare_reference(default_robot(), servo::LoopTiming{}, tr);
}

sim::LambdaVector<double> truth() {
  sim::LambdaVector<double> l = test::default_priors();
  for (int i = 0; i < sim::kLegs; ++i) {
    l(sim::coulomb_index(i)) = 0.15;
    l(sim::viscous_index(i)) = 0.2;
  }
  return l;
}

Experiment noise_free(const servo::PreparedReference& ref, const std::string& name) {
  const auto r = servo::simulate_twin<double>(default_robot(), truth(), ref, servo::OuterGains{});
  EXPECT_TRUE(r.ok);
  return Experiment{name, ref, r.true_pose, std::nullopt, std::nullopt, {}};
}

// Three coordinates: m_p, fc1 and lp free, everything else at the truth.
ParameterMap three_coordinates() {
  std::vector<bool> free(sim::kNumLambda, false);
  for (int k : {sim::platform_index(0), sim::coulomb_index(0), sim::kGainP}) free[k] = true;
  return build_parameter_map(truth(), free, std::vector<ParameterSpec>(sim::kNumLambda));
}

const Vec6d kSigma = (Vec6d() << 1e-5, 2e-5, 3e-5, 4e-5, 5e-5, 6e-5).finished();

struct Fixture {
  servo::OuterGains gains;
  std::vector<Experiment> exps;
  Fixture() : exps{noise_free(reference(0.4, 3), "a"), noise_free(reference(0.3, 4), "b")} {}
  OutputError output_error() const { return OutputError(default_robot(), gains, exps, three_coordinates(), kSigma); }
};

}  // namespace

TEST(OutputError, IsZeroAtTheTruthOnANoiseFreeTrace) {
  const Fixture f;
  TwinRuns runs(f.output_error(), 1);
  ASSERT_EQ(runs.num_residuals(), 6 * static_cast<int>(f.exps[0].measured.size() + f.exps[1].measured.size()));
  const std::vector<double> d = runs.output_error().map().initial(truth());
  std::vector<double> r(static_cast<std::size_t>(runs.num_residuals()), 1.0);
  ASSERT_TRUE(runs.evaluate(d.data(), r.data(), nullptr));
  for (double x : r) ASSERT_LT(std::abs(x), 1e-9);
}

TEST(OutputError, IsMeasuredMinusTwinOverSigmaPerChannelAndFrame) {
  Fixture f;
  // Offsets of a known number of sigmas, different per experiment, frame and channel.
  auto offset = [](std::size_t e, std::size_t j, int c) { return (e == 0 ? 1.0 : -2.0) * (c + 1) + 0.01 * j; };
  for (std::size_t e = 0; e < 2; ++e)
    for (std::size_t j = 0; j < f.exps[e].measured.size(); ++j)
      for (int c = 0; c < 6; ++c) f.exps[e].measured[j](c) += offset(e, j, c) * kSigma(c);
  TwinRuns runs(f.output_error(), 2);
  const std::vector<double> d = runs.output_error().map().initial(truth());
  std::vector<double> r(static_cast<std::size_t>(runs.num_residuals()));
  ASSERT_TRUE(runs.evaluate(d.data(), r.data(), nullptr));
  std::size_t row = 0;
  for (std::size_t e = 0; e < 2; ++e)
    for (std::size_t j = 0; j < f.exps[e].measured.size(); ++j)
      for (int c = 0; c < 6; ++c, ++row) ASSERT_NEAR(r[row], offset(e, j, c), 1e-6) << e << " " << j << " " << c;
}

TEST(OutputError, JacobianMatchesCentralFiniteDifferences) {
  Fixture f;
  TwinRuns runs(f.output_error(), 2);
  const int n = runs.num_residuals(), q = runs.num_coordinates();
  ASSERT_EQ(q, 3);
  std::vector<double> d = runs.output_error().map().initial(truth());
  for (double& x : d) x += 0.05;  // away from the truth, residuals non-zero
  std::vector<double> r(static_cast<std::size_t>(n)), J(static_cast<std::size_t>(n * q));
  ASSERT_TRUE(runs.evaluate(d.data(), r.data(), J.data()));
  std::vector<double> r_only(r.size());
  ASSERT_TRUE(runs.evaluate(d.data(), r_only.data(), nullptr));
  for (int i = 0; i < n; ++i) ASSERT_NEAR(r[i], r_only[i], 1e-9);  // the same residuals either way
  for (int k = 0; k < q; ++k) {
    const double h = 1e-5;
    std::vector<double> up = d, down = d, ru(r.size()), rd(r.size());
    up[static_cast<std::size_t>(k)] += h;
    down[static_cast<std::size_t>(k)] -= h;
    ASSERT_TRUE(runs.evaluate(up.data(), ru.data(), nullptr));
    ASSERT_TRUE(runs.evaluate(down.data(), rd.data(), nullptr));
    double err = 0, scale = 0;
    for (int i = 0; i < n; ++i) {
      const double fd = (ru[i] - rd[i]) / (2 * h);
      err = std::max(err, std::abs(J[static_cast<std::size_t>(i * q + k)] - fd));
      scale = std::max(scale, std::abs(fd));
    }
    EXPECT_GT(scale, 1.0) << "coordinate " << k << " moves the residuals";
    EXPECT_LE(err, 1e-4 * scale) << "coordinate " << k;
  }
}

TEST(OutputError, ADivergingTwinFailsTheEvaluationInsteadOfReturningNaN) {
  Fixture f;
  TwinRuns runs(f.output_error(), 1);
  const OutputErrorCost cost(runs);
  std::vector<double> d = runs.output_error().map().initial(truth());
  d[2] += std::log(400.0);  // lp x 400: far beyond what 1 kHz sampling can stabilise
  std::vector<double> r(static_cast<std::size_t>(runs.num_residuals())), J(r.size() * 3);
  const double* params[] = {d.data()};
  double* jac[] = {J.data()};
  EXPECT_FALSE(cost.Evaluate(params, r.data(), nullptr));
  EXPECT_FALSE(cost.Evaluate(params, r.data(), jac));
  EXPECT_EQ(runs.failed_runs(), 2);
  EXPECT_THROW(runs.jacobian(d, "the test point"), vcloe::Error);
  // The point before it still evaluates (nothing is left broken).
  const std::vector<double> good = runs.output_error().map().initial(truth());
  const double* good_params[] = {good.data()};
  EXPECT_TRUE(cost.Evaluate(good_params, r.data(), nullptr));
}

// identify's residual forms measured - twin with the angles as rotations (measured_minus_twin):
// a trace whose gamma is the same rotation + 2 pi, whose alpha wraps by -2 pi mid-run, or whose
// angles are on the other Euler branch on some frames gives the residuals and Jacobian of the
// plain trace, and rms_error likewise (probe 19's class A: 6283 mrad "residual" on gamma).
TEST(OutputError, AnglesOnAnotherBranchOfTheSameRotationsLeaveResidualAndJacobianAsTheyWere) {
  const Fixture plain;
  TwinRuns runs(plain.output_error(), 1);
  const std::vector<double> d = runs.output_error().map().initial(truth());
  const auto rows = static_cast<std::size_t>(runs.num_residuals()), q = d.size();
  std::vector<double> r0(rows), J0(rows * q);
  ASSERT_TRUE(runs.evaluate(d.data(), r0.data(), J0.data()));
  for (int c = 0; c < 3; ++c) {
    Fixture f;
    for (Experiment& e : f.exps)
      for (std::size_t j = 0; j < e.measured.size(); ++j) {
        Vec6d& p = e.measured[j];
        if (c == 0) p(5) += 2 * M_PI;
        if (c == 1 && j >= 7) p(3) -= 2 * M_PI;
        if (c == 2 && j % 2 == 1) p.tail<3>() = Vec3d(p(3) + M_PI, M_PI - p(4), p(5) + M_PI);
      }
    TwinRuns wrapped(f.output_error(), 1);
    std::vector<double> r(rows), J(rows * q);
    ASSERT_TRUE(wrapped.evaluate(d.data(), r.data(), J.data()));
    for (std::size_t i = 0; i < rows; ++i) ASSERT_NEAR(r[i], r0[i], 1e-6) << "case " << c << ", row " << i;
    for (std::size_t i = 0; i < J.size(); ++i) ASSERT_EQ(J[i], J0[i]) << "case " << c << ", entry " << i;
    for (double mrad : rms_error(default_robot(), truth(), f.gains, f.exps[0])) EXPECT_LT(mrad, 1e-9) << "case " << c;
  }
}

// A camera's frames that were no measurement (docs/traces.md) have no pose: Experiment::frames
// names the exposure of each pose, and the residual and Jacobian are the full experiment's rows
// of those exposures, in order (the twin still runs every tick); rms_error and the horizons'
// prefixes count the measured frames only, and a pose naming no exposure is refused.
TEST(OutputError, AnExperimentWithUnmeasuredFramesHasTheRowsOfItsMeasuredExposuresOnly) {
  Fixture full;
  for (Experiment& e : full.exps)  // away from the truth, every row its own value
    for (std::size_t j = 0; j < e.measured.size(); ++j) e.measured[j] += Vec6d::Constant(1e-5 * static_cast<double>(j % 7));
  TwinRuns all(full.output_error(), 1);
  std::vector<double> d = all.output_error().map().initial(truth());
  for (double& x : d) x += 0.05;
  const auto q = d.size();
  std::vector<double> r0(static_cast<std::size_t>(all.num_residuals())), J0(r0.size() * q);
  ASSERT_TRUE(all.evaluate(d.data(), r0.data(), J0.data()));
  Fixture gaps = full;
  const std::vector<std::size_t> kept = {0, 1, 2, 5, 6, 9, 20, 21};  // exposures of experiment a measured
  Experiment& a = gaps.exps[0];
  ASSERT_GT(a.measured.size(), kept.back());
  std::vector<Vec6d> poses;
  for (std::size_t x : kept) poses.push_back(a.measured[x]);
  a.measured = poses, a.frames = kept;
  TwinRuns some(gaps.output_error(), 1);
  const std::size_t rows_b = 6 * gaps.exps[1].measured.size();
  ASSERT_EQ(static_cast<std::size_t>(some.num_residuals()), 6 * kept.size() + rows_b);
  std::vector<double> r(static_cast<std::size_t>(some.num_residuals())), J(r.size() * q);
  ASSERT_TRUE(some.evaluate(d.data(), r.data(), J.data()));
  for (std::size_t j = 0; j < kept.size(); ++j)
    for (std::size_t c = 0; c < 6; ++c) {
      const std::size_t row = 6 * j + c, full_row = 6 * kept[j] + c;
      ASSERT_EQ(r[row], r0[full_row]) << "pose " << j << ", channel " << c;
      for (std::size_t k = 0; k < q; ++k) ASSERT_EQ(J[row * q + k], J0[full_row * q + k]) << j << " " << c << " " << k;
    }
  const std::size_t b0 = 6 * kept.size(), b0_full = 6 * full.exps[0].measured.size();
  for (std::size_t i = 0; i < rows_b; ++i) ASSERT_EQ(r[b0 + i], r0[b0_full + i]);  // experiment b as it was
  // rms_error over the measured poses: the full experiment's frames in `kept` alone.
  Experiment only = full.exps[0];
  only.measured = poses;
  const auto twin = servo::simulate_twin<double>(default_robot(), truth(), only.reference, full.gains);
  double sum = 0;
  for (std::size_t j = 0; j < kept.size(); ++j) sum += std::pow(measured_minus_twin(poses[j], twin.measured[kept[j]])(0), 2);
  EXPECT_NEAR(rms_error(default_robot(), truth(), full.gains, a)[0], 1e3 * std::sqrt(sum / kept.size()), 1e-9);
  // A horizon keeps the measured poses of its exposures, and at least the first.
  const Experiment half = prefix_of(a, 0.5);
  std::vector<std::size_t> in_half;
  for (std::size_t x : kept)
    if (x < half.reference.exposure_times.size()) in_half.push_back(x);
  EXPECT_LT(half.reference.exposure_times.size(), a.reference.exposure_times.size());
  EXPECT_LT(in_half.size(), kept.size());
  EXPECT_EQ(half.frames, in_half);
  EXPECT_EQ(half.measured.size(), half.frames.size());
  Experiment late = a;
  late.frames = {30, 31}, late.measured = {poses[0], poses[1]};
  EXPECT_EQ(prefix_of(late, 0.01).frames, std::vector<std::size_t>{30});
  // Frames that are not increasing exposures of the reference are refused by the problem's check.
  Experiment bad = a;
  bad.frames[3] = 2;
  IdentificationOptions o;
  o.anchor = Anchor{AnchorKind::KnownParameter, sim::platform_index(0), truth()(sim::platform_index(0))};
  EXPECT_NE(test::error_of([&] { check_identification_inputs({bad}, o); })
                .find("a: measured pose 3 names exposure 2: expected increasing exposures below"),
            std::string::npos);
}

}  // namespace test_output_error
