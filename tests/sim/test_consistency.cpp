// Specification of the nearest physically consistent moments (sim::project_consistent_moments):
// on thousands of random moments — inconsistent, negative, with some moments kept — the result
// obeys every inequality, keeps the kept moments to the last bit, is unchanged when already
// consistent, and no consistent point nearby is nearer (the problem is convex: a local minimum is
// the global one).
#include <gtest/gtest.h>

#include <random>

#include "sim_fixtures.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/sim/robot.hpp"

using vcloe::Vec3d;
namespace sim = vcloe::sim;

namespace {

// Within `relative` of the largest moment (the solver's promise: 1e-9).
bool obeys(const Vec3d& J, const Vec3d& weight, double margin, double floor, double relative = 1e-9) {
  const double tol = relative * J.cwiseAbs().maxCoeff();
  for (int c = 0; c < 3; ++c)
    if (J.sum() - J(c) < (1 + margin) * J(c) - tol) return false;
  for (int k = 0; k < 3; ++k)
    if (weight(k) > 0 ? J(k) < floor - tol : !(J(k) > 0)) return false;
  return true;
}

double cost(const Vec3d& J, const Vec3d& I, const Vec3d& weight) { return weight.dot((J - I).cwiseAbs2()); }

}  // namespace

TEST(ConsistentMoments, RandomMomentsBecomeTheNearestConsistentOnes) {
  std::mt19937_64 rng(20261125);
  std::uniform_real_distribution<double> moment(-0.2, 1.0), unit(0.0, 1.0), nudge(-1.0, 1.0);
  int solved = 0, infeasible = 0, changed = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    const double scale = std::pow(10.0, -6 + 6 * unit(rng));  // 1e-6 to 1 kg*m^2
    const Vec3d I = scale * Vec3d(moment(rng), moment(rng), moment(rng));
    Vec3d weight;
    for (int k = 0; k < 3; ++k) weight(k) = unit(rng) < 0.25 ? 0.0 : (unit(rng) < 0.5 ? 1.0 : 1e6);
    const double margin = unit(rng) < 0.5 ? 0.02 : 1e-6;
    const auto J = sim::project_consistent_moments(I, weight, margin);
    if (!J) {
      ++infeasible;
      // Nothing only when a kept moment is not positive or the kept ones leave no room: a kept
      // moment above the others' reach even at the largest values the free ones could take is
      // not testable in general; the all-free case must always have a solution.
      EXPECT_FALSE(weight.minCoeff() > 0) << I.transpose();
      continue;
    }
    ++solved;
    const double floor = std::max(1e-12, 1e-3 * I.cwiseAbs().maxCoeff());
    ASSERT_TRUE(obeys(*J, weight, margin, floor)) << "I " << I.transpose() << " -> " << J->transpose();
    EXPECT_TRUE(sim::moments_consistent(*J)) << J->transpose();
    for (int k = 0; k < 3; ++k) {
      if (weight(k) == 0) {
        EXPECT_EQ((*J)(k), I(k));
      }
    }
    if (obeys(I, weight, margin, floor, 0.0)) {
      EXPECT_EQ(*J, I);
    }
    changed += *J != I;
    // No feasible point around it is nearer (free moments nudged by up to 1e-3 of the scale).
    for (int n = 0; n < 20; ++n) {
      Vec3d P = *J;
      for (int k = 0; k < 3; ++k)
        if (weight(k) > 0) P(k) += 1e-3 * scale * nudge(rng);
      if (obeys(P, weight, margin, floor, 0.0)) {
        EXPECT_GE(cost(P, I, weight), cost(*J, I, weight) * (1 - 1e-9) - 1e-24)
            << "I " << I.transpose() << " w " << weight.transpose() << " m " << margin << " J " << J->transpose()
            << " P " << P.transpose();
      }
    }
  }
  EXPECT_GT(changed, 2000);  // most draws were inconsistent and moved
  EXPECT_GT(solved, 4000);
  std::cout << solved << " solved (" << changed << " moved), " << infeasible << " without a solution\n";
}

TEST(ConsistentMoments, TheExactCasesByHand) {
  // Iz > Ix + Iy by 1, all free: onto the plane Ix + Iy = Iz, the distance 1/sqrt(3).
  const Vec3d bad(1.0, 1.0, 3.0);
  const auto all = sim::project_consistent_moments(bad, Vec3d::Ones(), 0.0);
  ASSERT_TRUE(all);
  EXPECT_NEAR((*all - bad).norm(), 1.0 / std::sqrt(3.0), 1e-12);
  // Iz kept: Ix and Iy each rise by 0.5.
  const auto keep_z = sim::project_consistent_moments(bad, Vec3d(1, 1, 0), 0.0);
  ASSERT_TRUE(keep_z);
  EXPECT_NEAR((*keep_z)(0), 1.5, 1e-12);
  EXPECT_EQ((*keep_z)(2), 3.0);
  // A negative moment and a violated inequality at once: both constraints active.
  const auto both = sim::project_consistent_moments(Vec3d(-1.0, 0.1, 2.0), Vec3d::Ones(), 1e-6);
  ASSERT_TRUE(both);
  EXPECT_TRUE(sim::moments_consistent(*both)) << both->transpose();
  // Nothing free and inconsistent, or a kept moment that is not positive: no solution.
  EXPECT_FALSE(sim::project_consistent_moments(bad, Vec3d::Zero(), 0.0));
  EXPECT_FALSE(sim::project_consistent_moments(Vec3d(-1.0, 1.0, 1.0), Vec3d(0, 1, 1), 0.0));
}

// What identify writes passes the loader's own strictest reading first (triangle inequalities, no
// tolerance); a model it would refuse is an error naming the file, and no text comes back to write.
TEST(ConsistentMoments, AModelTheLoaderWouldRefuseIsNeverWritten) {
  const sim::LambdaVector<double>& priors = vcloe::test::default_priors();  // Table 1: inconsistent cranks
  std::string message;
  try {
    (void)sim::loadable_robot_yaml(vcloe::test::default_robot(), priors, "m.yaml", {});
  } catch (const vcloe::Error& e) {
    message = e.what();
  }
  EXPECT_EQ(message.rfind("m.yaml: not written: the model would not load (key '", 0), 0u) << message;
  EXPECT_NE(message.find("triangle inequality"), std::string::npos) << message;
  sim::LambdaVector<double> fixed = priors;
  for (int first : {sim::wrench_index(0, 0), sim::wrench_index(1, 0), sim::wrench_index(2, 0), sim::wrench_index(3, 0),
                    sim::wrench_index(4, 0), sim::wrench_index(5, 0), sim::link_index(0, 0), sim::link_index(1, 0),
                    sim::link_index(2, 0), sim::link_index(3, 0), sim::link_index(4, 0), sim::link_index(5, 0)})
    fixed.segment<3>(first + 1) = sim::nearest_consistent_moments(fixed.segment<3>(first + 1), {true, true, true}, 0.02);
  const std::string text = sim::loadable_robot_yaml(vcloe::test::default_robot(), fixed, "m.yaml", {"run.csv"});
  EXPECT_EQ(sim::parse_robot(text, "m.yaml", true).lambda, fixed);
}

// A fit that ends where no robot is (data no robot of this kind makes: columns swapped, other
// units) names the traces it was fitted to and what no robot has, never a line of the model it
// did not write (probe 19's class W): an inertia far out of range, a negative mass, a moment
// breaking the triangle inequality, a negative friction.
TEST(ConsistentMoments, AFitNoRobotCanHaveNamesTheTracesItWasFittedTo) {
  const sim::LambdaVector<double>& priors = vcloe::test::default_priors();
  sim::LambdaVector<double> fixed = priors;
  for (int first : {sim::wrench_index(0, 0), sim::wrench_index(1, 0), sim::wrench_index(2, 0), sim::wrench_index(3, 0),
                    sim::wrench_index(4, 0), sim::wrench_index(5, 0), sim::link_index(0, 0), sim::link_index(1, 0),
                    sim::link_index(2, 0), sim::link_index(3, 0), sim::link_index(4, 0), sim::link_index(5, 0)})
    fixed.segment<3>(first + 1) = sim::nearest_consistent_moments(fixed.segment<3>(first + 1), {true, true, true}, 0.02);
  ASSERT_NO_THROW((void)sim::loadable_robot_yaml(vcloe::test::default_robot(), fixed, "m.yaml", {"run.csv"}));
  const std::pair<int, double> absurd[] = {{sim::platform_index(1), 2809289.66}, {sim::platform_index(0), -3.0},
                                           {sim::platform_index(3), 5.0}, {sim::coulomb_index(0), -0.5}};
  for (const auto& [index, value] : absurd) {
    sim::LambdaVector<double> l = fixed;
    l(index) = value;
    std::string message;
    try {
      (void)sim::loadable_robot_yaml(vcloe::test::default_robot(), l, "m.yaml", {"run.csv", "runp.csv"});
    } catch (const vcloe::Error& e) {
      message = e.what();
    }
    const std::string head = "run.csv: the parameters fitted to its poses (with runp.csv) are none a robot can have (key '";
    EXPECT_EQ(message.rfind(head, 0), 0u) << sim::parameter_registry()[index].name << ": " << message;
    EXPECT_NE(message.find("; m.yaml not written: are these poses of this robot"), std::string::npos) << message;
    EXPECT_EQ(message.find("m.yaml:"), std::string::npos) << "a line of a file never written: " << message;
  }
}
