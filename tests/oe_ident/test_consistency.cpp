// Specification of the consistent model identify writes (oe_ident/consistency.hpp): moments the
// poses do not determine move to the nearest values obeying the triangle inequalities, the
// identified ones never move, and the twin's trace does not change.
#include <gtest/gtest.h>

#include "../sim/sim_fixtures.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/hw/mujoco_model.hpp"
#include "vcloe/oe_ident/consistency.hpp"
#include "vcloe/servo/twin.hpp"

using namespace vcloe;

namespace {

// What the poses determine of the inertias: the platform, each crank's Iz about its axis and
// each link's Ix, Iy; a crank's Ix, Iy and a link's spin Iz never enter the dynamics.
std::array<bool, sim::kNumLambda> seen() {
  std::array<bool, sim::kNumLambda> s{};
  s.fill(true);
  for (int i = 0; i < sim::kLegs; ++i) {
    s[sim::wrench_index(i, 1)] = s[sim::wrench_index(i, 2)] = false;
    s[sim::link_index(i, 3)] = false;
  }
  return s;
}

}  // namespace

TEST(ConsistentModel, TheInconsistentPriorsBecomeConsistentMovingOnlyWhatThePosesDoNotSee) {
  const sim::LambdaVector<double>& priors = test::default_priors();
  ASSERT_FALSE(sim::check_physical_consistency(priors).empty()) << "Table 1's cranks and links violate them";
  const oe_ident::ConsistentModel c = oe_ident::make_consistent(priors, seen());
  EXPECT_TRUE(c.remaining.empty());
  EXPECT_TRUE(sim::check_physical_consistency(c.lambda).empty());
  EXPECT_EQ(c.moved.size(), 18u);  // crank Ix, Iy and link Iz of six legs
  for (int k = 0; k < sim::kNumLambda; ++k) {
    if (seen()[static_cast<std::size_t>(k)]) {
      EXPECT_EQ(c.lambda(k), priors(k)) << sim::parameter_registry()[k].name;
    }
  }
  EXPECT_NE(c.moved.front().find("Ix_w1"), std::string::npos) << c.moved.front();
}

TEST(ConsistentModel, TheTwinsTraceIsUnchanged) {
  const sim::RobotModel& model = test::default_robot();
  const sim::LambdaVector<double>& priors = test::default_priors();
  excitation::RandomTrajectoryOptions o;
  o.duration = 1.0;
  const auto tr = excitation::random_feasible_trajectory(model, 3, o);
  const servo::PreparedReference ref = servo::prepare_reference(model, servo::LoopTiming{}, tr);
  const auto a = servo::simulate_twin<double>(model, priors, ref, servo::OuterGains{});
  const auto b = servo::simulate_twin<double>(model, oe_ident::make_consistent(priors, seen()).lambda, ref, servo::OuterGains{});
  ASSERT_TRUE(a.ok && b.ok);
  double largest = 0;
  for (std::size_t j = 0; j < a.measured.size(); ++j) largest = std::max(largest, (a.measured[j] - b.measured[j]).cwiseAbs().maxCoeff());
  EXPECT_LE(largest, 1e-9);
}

// Identified moments that break a triangle inequality (Table 1's cranks, all marked identified)
// move too — the least that obeys it — and the report says they were identified: the model
// written is always consistent, nothing is hidden.
TEST(ConsistentModel, IdentifiedMomentsThatBreakATriangleInequalityMoveTheLeastAndAreNamedAsIdentified) {
  const sim::LambdaVector<double> l = test::default_priors();
  std::array<bool, sim::kNumLambda> all{};
  all.fill(true);
  const oe_ident::ConsistentModel c = oe_ident::make_consistent(l, all);
  EXPECT_TRUE(c.remaining.empty());
  EXPECT_TRUE(sim::check_physical_consistency(c.lambda, 0.0).empty());
  ASSERT_FALSE(c.moved.empty());
  for (const std::string& m : c.moved) EXPECT_NE(m.find("(identified, but the fitted moments break"), std::string::npos) << m;
  // The least move: on the boundary (1e-6 margin), not at the 2 % margin unidentified ones get.
  for (int i = 0; i < sim::kLegs; ++i) {
    const Vec3d J = c.lambda.segment<3>(sim::wrench_index(i, 1));
    const double largest = J.maxCoeff();
    EXPECT_NEAR(J.sum() - largest, largest * (1 + 1e-6), 1e-9 * largest) << "crank " << i;
  }
  // A body already consistent is left as it is.
  EXPECT_EQ(c.lambda.segment<4>(sim::platform_index(0)), l.segment<4>(sim::platform_index(0)));
}

// What identify writes loads in MuJoCo as it is: the engine adjusts nothing (hw::engine_consistent
// only raises crank Ix, Iy and lowers link spins that violate the triangle inequalities), also
// for priors whose crank moments differ per axis.
TEST(ConsistentModel, LoadsInMuJoCoWithoutEngineAdjustments) {
  sim::LambdaVector<double> priors = test::default_priors();
  std::vector<std::string> adjustments;
  hw::engine_consistent(test::default_robot(), priors, adjustments);
  ASSERT_FALSE(adjustments.empty()) << "Table 1's priors need adjusting";
  for (int i = 0; i < sim::kLegs; ++i) {  // lopsided cranks: Ix small, Iy large
    priors(sim::wrench_index(i, 1)) *= 0.3;
    priors(sim::wrench_index(i, 2)) *= 1.6;
  }
  for (const auto& l : {test::default_priors(), priors}) {
    adjustments.clear();
    hw::engine_consistent(test::default_robot(), oe_ident::make_consistent(l, seen()).lambda, adjustments);
    EXPECT_TRUE(adjustments.empty()) << adjustments.front();
  }
}
