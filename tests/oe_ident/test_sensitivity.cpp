// Specification of oe_ident/sensitivity: the forward sensitivities of the closed-loop twin are
// the exact derivatives of simulate_twin (central finite differences), for every one of the
// 67 parameters, and the nominal trace is the twin's.
#include <gtest/gtest.h>

#include "../sim/sim_fixtures.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/oe_ident/sensitivity.hpp"

using namespace vcloe;
using vcloe::test::default_robot;

namespace {
servo::PreparedReference short_reference(double duration) {
  excitation::RandomTrajectoryOptions o;
  o.duration = duration;
  const auto tr = excitation::random_feasible_trajectory(default_robot(), 9, o);
  return servo::prepare_reference(default_robot(), servo::LoopTiming{}, duration, [&](double t) {
    const auto s = tr.sample(t);
    return servo::ReferenceSample{s.chi, s.chi_dot};
  });
}

// A parameter vector with every entry non-zero (friction too), so no direction is trivial.
sim::LambdaVector<double> test_lambda() {
  sim::LambdaVector<double> l = test::default_priors();
  for (int i = 0; i < sim::kLegs; ++i) {
    l(sim::coulomb_index(i)) = 0.15;
    l(sim::viscous_index(i)) = 0.2;
  }
  return l;
}
}  // namespace

TEST(Sensitivity, NominalTraceIsTheTwins) {
  const auto ref = short_reference(0.5);
  const auto lambda = test_lambda();
  const auto s = oe_ident::simulate_twin_sensitivity(default_robot(), lambda, ref, servo::OuterGains{},
                                                     Eigen::MatrixXd::Identity(67, 3));
  const auto t = servo::simulate_twin<double>(default_robot(), lambda, ref, servo::OuterGains{});
  ASSERT_TRUE(s.trace.ok && t.ok);
  ASSERT_EQ(s.trace.true_pose.size(), t.true_pose.size());
  for (std::size_t j = 0; j < t.true_pose.size(); ++j)
    EXPECT_LT((s.trace.true_pose[j] - t.true_pose[j]).norm(), 1e-13);
}

TEST(Sensitivity, MatchesCentralFiniteDifferencesForAll67Parameters) {
  const auto ref = short_reference(0.6);
  const auto lambda = test_lambda();
  const auto s = oe_ident::simulate_twin_sensitivity(default_robot(), lambda, ref, servo::OuterGains{},
                                                     Eigen::MatrixXd::Identity(67, 67));
  ASSERT_TRUE(s.trace.ok);
  for (int p = 0; p < 67; ++p) {
    const double h = 1e-3 * std::max(std::abs(lambda(p)), 1e-3);
    sim::LambdaVector<double> up = lambda, down = lambda;
    up(p) += h;
    down(p) -= h;
    const auto ru = servo::simulate_twin<double>(default_robot(), up, ref, servo::OuterGains{});
    const auto rd = servo::simulate_twin<double>(default_robot(), down, ref, servo::OuterGains{});
    ASSERT_TRUE(ru.ok && rd.ok);
    double err = 0, scale = 0;
    for (std::size_t j = 0; j < ru.true_pose.size(); ++j) {
      const Vec6d fd = (ru.true_pose[j] - rd.true_pose[j]) / (2 * h);
      err = std::max(err, (s.d_pose[j].col(p) - fd).cwiseAbs().maxCoeff());
      scale = std::max(scale, fd.cwiseAbs().maxCoeff());
    }
    // Structurally invisible parameters have exactly zero derivative; the rest match.
    EXPECT_LE(err, 1e-4 * scale + 1e-9) << sim::parameter_registry()[p].name << " scale " << scale;
  }
}

TEST(Sensitivity, LiteralOuterLawToo) {
  const auto ref = short_reference(0.4);
  servo::OuterGains g;
  g.literal = true;
  const auto lambda = test_lambda();
  const int p = sim::kGainI;
  const auto s = oe_ident::simulate_twin_sensitivity(default_robot(), lambda, ref, g, Eigen::MatrixXd::Identity(67, 67));
  const double h = 1e-3;
  sim::LambdaVector<double> up = lambda, down = lambda;
  up(p) += h;
  down(p) -= h;
  const auto ru = servo::simulate_twin<double>(default_robot(), up, ref, g);
  const auto rd = servo::simulate_twin<double>(default_robot(), down, ref, g);
  const std::size_t j = ru.true_pose.size() - 1;
  const Vec6d fd = (ru.true_pose[j] - rd.true_pose[j]) / (2 * h);
  EXPECT_LE((s.d_pose[j].col(p) - fd).norm(), 1e-5 * fd.norm());
}
