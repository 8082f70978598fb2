// Specification of the robot-side departures of a realistic virtual robot (docs/virtual-robot.md,
// "Departures"): each acts where it physically does — an encoder zero offset moves the pose the
// drives hold by J_theta^-1 of it, a platform centre of mass off E loads the drives with its
// moment, backlash leaves the crank half the play behind its motor — and `truth random
// --realistic` draws them reproducibly on top of the same dynamics, in a file that reads back.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "../test_support.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/hw/truth_family.hpp"
#include "vcloe/hw/virtual_rig.hpp"
#include "vcloe/hw/virtual_robot.hpp"
#include "vcloe/sim/dynamics.hpp"
#include "vcloe/sim/kinematics.hpp"

using namespace vcloe;

namespace departures_test {

sim::RobotFile default_truth() { return sim::load_robot(std::string(VCLOE_SOURCE_DIR) + "/config/truth.yaml", true); }
sim::RobotFile default_priors() { return sim::load_robot(std::string(VCLOE_SOURCE_DIR) + "/config/robot.yaml"); }

Vec6d ik(const sim::RobotModel& m, const Vec6d& chi) {
  Vec6d theta;
  EXPECT_TRUE(sim::inverse_kinematics<double>(m, chi, theta));
  return theta;
}

// Holds U for `ticks` controller periods; the pose at the end.
Vec6d hold(hw::VirtualRobot& robot, const Vec6d& U, int ticks) {
  for (int k = 0; k < ticks; ++k)
    if (!robot.step(U)) ADD_FAILURE() << robot.failure();
  return robot.pose();
}

}  // namespace departures_test

using namespace departures_test;

// The drives servo on their encoders: an encoder reading the crank + delta makes the drive hold
// the crank at U - delta, and the platform moves by J_theta^-1 (-delta e_i) (eq. 29, first order).
TEST(Departures, AnEncoderOffsetMovesTheHeldPoseByTheInverseJacobianOfIt) {
  sim::RobotFile t = default_truth();
  const sim::RobotModel nominal = t.model;
  const Vec6d U = ik(nominal, nominal.home);
  const double delta = 2e-3;
  t.model.legs[2].encoder_offset = delta;
  hw::VirtualRobotOptions o;
  o.joint_friction = false;  // Coulomb friction near rest would only slow the settling (it creeps)
  hw::VirtualRobot robot(t.model, t.lambda, nominal.home, o);  // standing at home, encoder 3 reading + 2 mrad
  const Vec6d moved = hold(robot, U, 3000);
  sim::Kinematics<double> k;
  ASSERT_TRUE(sim::compute_geometry<double>(nominal, nominal.home, k));
  sim::compute_jacobians<double>(nominal, Vec6d::Zero(), k);
  const Mat6d J = sim::J_theta<double>(k, nominal.home);
  const Vec6d predicted = J.partialPivLu().solve(-delta * Vec6d::Unit(2));
  const Vec6d actual = moved - nominal.home;
  std::printf("encoder offset 2 mrad on leg 3: pose moved %.4f mm, %.4f mrad; J^-1 predicts %.4f mm, %.4f mrad\n",
              actual.head<3>().norm() * 1e3, actual.tail<3>().norm() * 1e3, predicted.head<3>().norm() * 1e3,
              predicted.tail<3>().norm() * 1e3);
  EXPECT_GT(predicted.head<3>().norm(), 5e-5);  // a visible move: tens of micrometres at least
  EXPECT_LT((actual - predicted).head<3>().norm(), 0.05 * predicted.head<3>().norm());  // first order in delta
  EXPECT_LT((actual - predicted).tail<3>().norm(), 0.05 * predicted.tail<3>().norm());
  // Exactly: the pose whose IK is U - delta e_i (the truth's forward kinematics), to the engines' difference.
  const sim::ForwardKinematicsResult exact = sim::forward_kinematics(nominal, U - delta * Vec6d::Unit(2), nominal.home);
  ASSERT_TRUE(exact.converged);
  std::printf("  exact (forward kinematics) %.4f mm, %.4f mrad; virtual robot off it by %.2e mm, %.2e mrad\n",
              (exact.chi - nominal.home).head<3>().norm() * 1e3, (exact.chi - nominal.home).tail<3>().norm() * 1e3,
              (actual + nominal.home - exact.chi).head<3>().norm() * 1e3,
              (actual + nominal.home - exact.chi).tail<3>().norm() * 1e3);
  EXPECT_LT((moved - exact.chi).head<3>().norm(), 1e-3 * predicted.head<3>().norm());
  EXPECT_LT((moved - exact.chi).tail<3>().norm(), 1e-3 * predicted.tail<3>().norm());
  EXPECT_NEAR(robot.crank_angles()(2), U(2) - delta, 1e-6);  // the crank, not the encoder, is off
  EXPECT_NEAR(robot.joint_angles()(2), U(2), 1e-6);         // the encoder reads the command
}

// Standing before the run where the drives hold the start command: no jump at the first tick.
TEST(Departures, WithItsStartCommandTheRobotStandsWhereItsEncodersReadIt) {
  sim::RobotFile t = default_truth();
  const Vec6d U = ik(t.model, t.model.home);
  for (int i = 0; i < sim::kLegs; ++i) t.model.legs[i].encoder_offset = 1e-3 * (i % 2 ? 1 : -1);
  hw::VirtualRobotOptions o;
  o.start_command = U;
  hw::VirtualRobot robot(t.model, t.lambda, t.model.home, o);
  const Vec6d start = robot.pose();
  EXPECT_GT((start - t.model.home).head<3>().norm(), 1e-5);  // not at home: the cranks are off
  EXPECT_LT((robot.joint_angles() - U).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT((hold(robot, U, 500) - start).head<3>().norm(), 1e-7);
}

// The platform's centre of mass off E (the robot file's first moments m c): its weight has a
// moment about E that the drives carry. MuJoCo's holding torques differ from those with the centre
// at E by exactly the joint torques of that moment (J_ad^T dtau = [0; (R c) x m g] up to the sign
// convention of G), the model's holding torques are MuJoCo's (the model has the first moments
// too), and the robot holding them stands still (its drives start with them).
TEST(Departures, APlatformCentreOfMassOffEIsCarriedByTheDrives) {
  const sim::RobotFile t = default_truth();
  const Vec6d home = t.model.home;
  std::vector<std::string> adjustments;
  const sim::LambdaVector<double> l = hw::engine_consistent(t.model, t.lambda, adjustments);
  const Vec3d c(3e-3, -2e-3, 1e-3);
  sim::LambdaVector<double> with_com = l, truth_with_com = t.lambda;
  for (int k = 0; k < 3; ++k) {
    with_com(sim::first_moment_index(k)) = l(sim::platform_index(0)) * c(k);
    truth_with_com(sim::first_moment_index(k)) = t.lambda(sim::platform_index(0)) * c(k);
  }
  hw::MujocoRobot at_e = hw::MujocoRobot::build(t.model, l, home, {});
  hw::MujocoRobot off = hw::MujocoRobot::build(t.model, with_com, home, {});
  const Vec6d tau_off = off.inverse_dynamics(home, Vec6d::Zero(), Vec6d::Zero());
  const Vec6d dtau = tau_off - at_e.inverse_dynamics(home, Vec6d::Zero(), Vec6d::Zero());
  sim::Kinematics<double> k;
  ASSERT_TRUE(sim::compute_kinematics<double>(t.model, home, Vec6d::Zero(), k));
  const Vec6d wrench = k.J_ad().transpose() * dtau;
  const Vec3d moment = (rotation_of<double>(home) * c).cross(l(sim::platform_index(0)) * t.model.gravity);
  EXPECT_LT(wrench.head<3>().norm(), 1e-6 * moment.norm());
  EXPECT_LT(std::min((wrench.tail<3>() - moment).norm(), (wrench.tail<3>() + moment).norm()), 1e-6 * moment.norm());
  Vec6d tau_model;
  ASSERT_TRUE(sim::holding_torques<double>(t.model, home, sim::XiVector<double>(with_com.head<sim::kNumXi>()), tau_model));
  EXPECT_LT((tau_model - tau_off).norm(), 1e-6 * dtau.norm()) << (tau_model - tau_off).transpose();

  hw::VirtualRobot robot(t.model, truth_with_com, home, {});
  EXPECT_LT((hold(robot, ik(t.model, home), 1000) - home).head<3>().norm(), 1e-7);
}

// Backlash (an unmodelled departure): the motor-side encoder leads the crank by half the play in
// the direction of the torque; holding the platform against gravity, each crank sits b/2 tanh(tau/tau_b)
// behind its command.
TEST(Departures, BacklashLeavesEachCrankHalfThePlayBehindItsLoadedMotor) {
  const sim::RobotFile t = default_truth();
  const Vec6d home = t.model.home, U = ik(t.model, home);
  hw::VirtualRobotOptions o;
  o.backlash = 4e-3;
  o.backlash_torque = 0.5;
  o.start_command = U;
  hw::VirtualRobot robot(t.model, t.lambda, home, o);
  hold(robot, U, 2000);
  Vec6d tau;
  ASSERT_TRUE(sim::holding_torques<double>(t.model, robot.pose(), sim::XiVector<double>(t.lambda.head<sim::kNumXi>()), tau));
  for (int i = 0; i < sim::kLegs; ++i) {
    const double expected = -0.5 * o.backlash * std::tanh(tau(i) / o.backlash_torque);
    EXPECT_NEAR(robot.crank_angles()(i) - U(i), expected, 0.05 * o.backlash) << "leg " << i + 1 << ", tau " << tau(i);
  }
  EXPECT_GT((robot.crank_angles() - U).cwiseAbs().maxCoeff(), 0.25 * o.backlash);
}

// --realistic: the same dynamics as without it (streams of their own), every departure within
// its magnitude, the same seed the same truth; the file written reads back to the same robot and rig.
TEST(Departures, RealisticTruthsAreSeededWithinTheirMagnitudesOnTheSameDynamics) {
  const sim::RobotFile p = default_priors();
  hw::TruthFamily f;
  f.realistic = true;
  const sim::RobotFile plain = hw::random_truth(p, 11), t = hw::random_truth(p, 11, f);
  EXPECT_EQ(plain.lambda.head<sim::first_moment_index(0)>(), t.lambda.head<sim::first_moment_index(0)>());
  EXPECT_EQ(plain.lambda.tail<3>(), t.lambda.tail<3>());  // the gains
  EXPECT_EQ(sim::robot_to_yaml(t.model, t.lambda), sim::robot_to_yaml(hw::random_truth(p, 11, f).model, t.lambda));
  EXPECT_NE(sim::robot_to_yaml(t.model, t.lambda), sim::robot_to_yaml(hw::random_truth(p, 12, f).model, t.lambda));
  double geometry = 0, encoder = 0;
  for (int i = 0; i < sim::kLegs; ++i) {
    const sim::Leg &a = t.model.legs[i], &b = p.model.legs[i];
    geometry = std::max({geometry, (a.base_joint - b.base_joint).cwiseAbs().maxCoeff(),
                         (a.platform_joint - b.platform_joint).cwiseAbs().maxCoeff(),
                         std::abs(a.wrench.norm() - b.wrench.norm()), std::abs(a.link_length - b.link_length)});
    encoder = std::max(encoder, std::abs(a.encoder_offset));
    EXPECT_LT(std::abs(a.wrench.dot(a.axis)), 1e-12);
  }
  EXPECT_GT(geometry, 0.5 * f.geometry);
  EXPECT_LE(geometry, f.geometry * (1 + 1e-9));
  EXPECT_GT(encoder, 0.5 * f.encoder);
  EXPECT_LE(encoder, f.encoder);
  EXPECT_LE(t.model.marker_frame.head<3>().cwiseAbs().maxCoeff(), f.marker_position);
  EXPECT_LE(t.model.marker_frame.tail<3>().cwiseAbs().maxCoeff(), f.marker_angle);
  EXPECT_GT(t.model.marker_frame.cwiseAbs().maxCoeff(), 0.0);
  const hw::VirtualRig rig = hw::random_rig(11, f);
  EXPECT_GE(rig.latency_offset, f.latency_low);
  EXPECT_LE(rig.latency_offset, f.latency_high);
  EXPECT_EQ(rig.latency_jitter, f.latency_jitter);
  EXPECT_LE(sim::platform_com(t.lambda).cwiseAbs().maxCoeff(), f.com * (1 + 1e-12));
  EXPECT_GT(sim::platform_com(t.lambda).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(sim::platform_com(plain.lambda), Vec3d::Zero());
  EXPECT_GT(rig.camera_from_base_error.head<3>().norm(), 0.0);
  EXPECT_LT(rig.camera_from_base_error.head<3>().cwiseAbs().maxCoeff(), 5 * f.base_position);
  EXPECT_EQ(rig.backlash, 0.0);  // backlash is --unmodelled's
  hw::TruthFamily unmodelled;
  unmodelled.unmodelled = true;
  EXPECT_EQ(hw::random_rig(11, unmodelled).backlash, unmodelled.backlash);
  EXPECT_EQ(hw::virtual_rig_to_yaml(rig), hw::virtual_rig_to_yaml(hw::random_rig(11, f)));
  EXPECT_EQ(hw::virtual_rig_to_yaml(hw::random_rig(11)), "");  // a plain truth has no section
  // ... nor the calibration keys: a plain truth is written as before issue #24.
  EXPECT_EQ(sim::robot_to_yaml(plain.model, plain.lambda).find("encoder_offset"), std::string::npos);
  EXPECT_EQ(sim::robot_to_yaml(plain.model, plain.lambda).find("marker_frame"), std::string::npos);
  EXPECT_EQ(sim::robot_to_yaml(plain.model, plain.lambda).find("platform_first_moment"), std::string::npos);

  // Written and read back by the truth file's readers (robot file, then its virtual_rig section).
  const auto dir = std::filesystem::temp_directory_path() / "vcloe-departures-test";
  std::filesystem::create_directories(dir);
  hw::RandomTruthOptions o;
  o.priors = std::string(VCLOE_SOURCE_DIR) + "/config/robot.yaml";
  o.out = (dir / "realistic.yaml").string();
  o.seed = 11;
  o.family = f;
  o.force = true;
  hw::write_random_truth(o);
  const sim::RobotFile back = sim::load_robot(o.out, true);
  EXPECT_EQ(sim::robot_to_yaml(back.model, back.lambda), sim::robot_to_yaml(t.model, t.lambda));
  EXPECT_EQ(hw::virtual_rig_to_yaml(hw::load_virtual_rig(o.out)), hw::virtual_rig_to_yaml(rig));
  // The virtual robot stands on it where its drives hold the priors' start command.
  hw::VirtualRobotOptions vo;
  vo.start_command = ik(p.model, p.model.home);
  hw::VirtualRobot robot(back.model, back.lambda, p.model.home, vo);
  EXPECT_TRUE(robot.step(*vo.start_command)) << robot.failure();
}

TEST(Departures, OutOfRangeMagnitudesAndSectionsAreNamed) {
  hw::TruthFamily f;
  f.realistic = true;
  f.encoder = 0.2;
  ASSERT_TRUE(f.problem());
  EXPECT_EQ(f.problem()->key, "encoder");
  f = {};
  f.latency_low = 0.01;
  f.latency_high = 0.0;
  EXPECT_EQ(f.problem()->key, "latency_low");
  const std::string text = "virtual_rig:\n  latency_offset: 0.2\n";
  const YamlDoc doc = YamlDoc::parse(text, "truth.yaml");
  const std::string msg = test::error_of([&] { hw::read_virtual_rig(doc.root()); });
  EXPECT_NE(msg.find("truth.yaml:2: key 'virtual_rig.latency_offset'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("at most 0.05 s"), std::string::npos) << msg;
  const YamlDoc typo = YamlDoc::parse("virtual_rig:\n  latency: 0.002\n", "truth.yaml");
  EXPECT_NE(test::error_of([&] { hw::read_virtual_rig(typo.root()); }).find("unknown key"), std::string::npos);
  // The centre of mass is the robot file's since the model has it: the old key names the new one.
  const YamlDoc com = YamlDoc::parse("virtual_rig:\n  platform_com: [0.003, 0, 0]\n", "truth.yaml");
  const std::string moved = test::error_of([&] { hw::read_virtual_rig(com.root()); });
  EXPECT_NE(moved.find("truth.yaml:2: key 'virtual_rig.platform_com'"), std::string::npos) << moved;
  EXPECT_NE(moved.find("inertia.platform_first_moment"), std::string::npos) << moved;
}
