// Specification of control/friction_estimate: from a trial's measured poses and the drives'
// commands, each joint's Coulomb and viscous friction levels are recovered (the drives' law and
// the model's rigid body known, its friction not), and a joint that does not move both ways keeps
// the model's values.
#include <gtest/gtest.h>

#include <random>

#include "control_fixtures.hpp"
#include "vcloe/control/friction_estimate.hpp"

using namespace vcloe;

namespace {

// The priors with other friction levels: the "robot" the synthetic trial runs on.
sim::LambdaVector<double> friction_test_truth() {
  sim::LambdaVector<double> l = control_test::priors().lambda;
  const double coulomb[6] = {0.4, 2.8, 1.0, 1.9, 0.6, 1.3}, viscous[6] = {0.2, 0.9, 0.5, 1.2, 0.3, 0.7};
  for (int i = 0; i < 6; ++i) l(sim::coulomb_index(i)) = coulomb[i], l(sim::viscous_index(i)) = viscous[i];
  return l;
}

// A trial that follows `tr` exactly: the drives commanded what makes them output the torques of
// `lambda` along it (the pre-correction with `lambda`, whose gains are the model's), the camera
// seeing the reference's pose at each exposure with `noise` times the default camera noise (20 um, 50 urad).
control::MeasuredTrial friction_test_trial(const excitation::FourierTrajectory& tr, const servo::TickClock& clock,
                                           const sim::LambdaVector<double>& lambda, double noise) {
  control::MeasuredTrial t;
  t.command = control::precorrect(control_test::priors().model, lambda, clock, control::motion_of(tr)).command;
  std::mt19937 rng(3);
  std::normal_distribution<double> n(0.0, 1.0);
  for (int j = 0; j < clock.frames(); ++j) {
    Vec6d chi = tr.pose(clock.time(clock.exposure_tick(j)));
    for (int i = 0; i < 6; ++i) chi(i) += noise * (i < 3 ? 20e-6 : 50e-6) * n(rng);
    t.measured.push_back(chi);
  }
  return t;
}

}  // namespace

TEST(FrictionEstimate, RecoversTheCoulombAndViscousLevelsOfASyntheticTrial) {
  // The drives' law (the model's gains) and the model's Xi are the robot's, its friction is not.
  // Without camera noise the levels come back to the smoothing and discretisation error (1 %, 5 %); with it,
  // Coulomb to 5 % and viscous (the weaker column: little of a 6 s motion is fast) to 20 %.
  const servo::LoopTiming timing;
  const excitation::FourierTrajectory tr = control_test::random_reference(7, 6.0);
  const servo::PreparedReference ref = servo::prepare_reference(control_test::priors().model, timing, tr);
  const sim::LambdaVector<double> truth = friction_test_truth();
  for (const double noise : {0.0, 1.0}) {
    const control::FrictionEstimate e = control::estimate_friction(control_test::priors().model, control_test::priors().lambda,
                                                                   ref.clock, friction_test_trial(tr, ref.clock, truth, noise));
    const double coulomb_tolerance = noise > 0 ? 0.05 : 0.01, viscous_tolerance = noise > 0 ? 0.2 : 0.05;
    for (int i = 0; i < 6; ++i) {
      const control::JointFriction& f = e[static_cast<std::size_t>(i)];
      ASSERT_TRUE(f.estimated) << "joint " << i + 1 << ": " << f.why;
      EXPECT_NEAR(f.coulomb, truth(sim::coulomb_index(i)), coulomb_tolerance * truth(sim::coulomb_index(i)))
          << "joint " << i + 1 << ", noise " << noise;
      EXPECT_NEAR(f.viscous, truth(sim::viscous_index(i)), viscous_tolerance * truth(sim::viscous_index(i)))
          << "joint " << i + 1 << ", noise " << noise;
      EXPECT_FALSE(f.clamped);
    }
    // The model's lambda with the estimate: the Xi and gains the model's, the friction the estimate's.
    const sim::LambdaVector<double> with = control::with_friction(control_test::priors().lambda, e);
    EXPECT_EQ(with(sim::kGainP), control_test::priors().lambda(sim::kGainP));
    EXPECT_EQ(with(sim::coulomb_index(1)), e[1].coulomb);
    EXPECT_NE(control::describe(e, control_test::priors().lambda).find("joint 2: Coulomb 2."), std::string::npos);
  }
}

TEST(FrictionEstimate, AJointThatDoesNotMoveBothWaysKeepsTheModelsValues) {
  // A slow rise of the platform (1 mm/s): every joint turns one way only, so its Coulomb level is
  // not separable from a constant torque; standing still, no joint moves at all.
  const servo::LoopTiming timing;
  servo::TickClock clock;
  clock.timing = timing;
  clock.total_ticks = 3000;
  const sim::LambdaVector<double>& model = control_test::priors().lambda;
  const Vec6d start = control_test::random_reference(7, 3.0).pose(0.0);
  for (const double speed : {1e-3, 0.0}) {
    control::MeasuredTrial t;
    for (int k = 0; k < clock.total_ticks; ++k) {
      Vec6d chi = start;
      chi(2) += speed * clock.time(k);
      Vec6d theta;
      ASSERT_TRUE(sim::inverse_kinematics<double>(control_test::priors().model, chi, theta));
      t.command.push_back(theta);
      if (clock.exposed_at(k) >= 0) t.measured.push_back(chi);
    }
    const control::FrictionEstimate e = control::estimate_friction(control_test::priors().model, model, clock, t);
    for (int i = 0; i < 6; ++i) {
      const control::JointFriction& f = e[static_cast<std::size_t>(i)];
      EXPECT_FALSE(f.estimated) << "joint " << i + 1;
      EXPECT_EQ(f.coulomb, model(sim::coulomb_index(i)));
      EXPECT_EQ(f.viscous, model(sim::viscous_index(i)));
      EXPECT_NE(f.why.find("barely moves both ways"), std::string::npos) << f.why;
    }
    EXPECT_NE(control::describe(e, model).find("joint 1: kept Coulomb 1.00"), std::string::npos);
  }
}
