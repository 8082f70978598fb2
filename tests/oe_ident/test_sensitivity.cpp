// Specification of oe_ident/sensitivity: the forward sensitivities of the closed-loop twin are
// the exact derivatives of simulate_twin (central finite differences), for every one of the
// 67 parameters, and the nominal trace is the twin's.
#include <gtest/gtest.h>

#include "../sim/sim_fixtures.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/oe_ident/sensitivity.hpp"

#include <fstream>

using namespace vcloe;
using vcloe::test::default_robot;

namespace {
servo::PreparedReference short_reference(double duration) {
  excitation::RandomTrajectoryOptions o;
  o.duration = duration;
  const auto tr = excitation::random_feasible_trajectory(default_robot(), 9, o);
  return servo::prepare_reference(default_robot(), servo::LoopTiming{}, tr);
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

TEST(Sensitivity, GoldenJacobianAtThePriorsIsThatRecordedBeforeTheRedesign) {
  // The 67-parameter Jacobian of the twin's pose trace at the priors over the first 2 s of the
  // default excitation, recorded before the loop was rebuilt as components (issue #12; every
  // 10th frame in tests/data/golden/). Equal within 1e-9 of each column's largest entry;
  // columns the poses cannot see (rounding noise, below 1e-6 of the largest entry) within 1e-9
  // of that floor.
  const auto tr = excitation::load_trajectory(std::string(VCLOE_SOURCE_DIR) + "/config/excitation-default.yaml");
  auto first_2s = tr;  // the same trajectory, run for its first 2 s only
  first_2s.duration = 2.0;
  const auto ref = servo::prepare_reference(default_robot(), servo::LoopTiming{}, first_2s);
  const auto s = oe_ident::simulate_twin_sensitivity(default_robot(), test::default_priors(), ref, servo::OuterGains{},
                                                     Eigen::MatrixXd::Identity(67, 67), 2);
  ASSERT_TRUE(s.trace.ok) << s.trace.failure;
  ASSERT_EQ(s.d_pose.size(), 200u);
  std::ifstream in(std::string(VCLOE_SOURCE_DIR) + "/tests/data/golden/jacobian_priors_2s.every10.txt");
  Eigen::MatrixXd golden(120, 67), now(120, 67);
  for (int row = 0; row < 120; ++row) {
    for (int k = 0; k < 67; ++k) ASSERT_TRUE(in >> golden(row, k));
    now.row(row) = s.d_pose[static_cast<std::size_t>(10 * (row / 6))].row(row % 6);
  }
  const double largest = golden.cwiseAbs().maxCoeff();
  for (int k = 0; k < 67; ++k) {
    const double scale = std::max(golden.col(k).cwiseAbs().maxCoeff(), 1e-6 * largest);
    EXPECT_LE((now.col(k) - golden.col(k)).cwiseAbs().maxCoeff(), 1e-9 * scale) << sim::parameter_registry()[k].name;
  }
}
