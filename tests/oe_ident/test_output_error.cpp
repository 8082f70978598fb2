// Specification of the output-error cost (oe_ident/src/output_error.hpp, eq. 32 of Li et al.
// 2019): r = (measured - twin) / sigma per channel at the measurement times, experiment after
// experiment; zero at the truth on a noise-free trace; its Jacobian the derivative of r (central
// finite differences); a diverging twin makes the evaluation return false, never NaN residuals.
#include <gtest/gtest.h>

#include <cmath>

#include "../../oe_ident/src/output_error.hpp"
#include "vcloe/oe_ident/problem.hpp"
#include "../sim/sim_fixtures.hpp"
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
  return Experiment{name, ref, r.true_pose, std::nullopt, std::nullopt};
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

}  // namespace test_output_error
