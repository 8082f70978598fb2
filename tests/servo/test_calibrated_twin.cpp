// Specification of the twin of a calibrated robot file (servo/twin.hpp): its drives close eq. (31)
// on the encoders (crank angle + encoder_offset), so the crank settles at command - offset; it
// stands where its drives hold the reference's start command; its camera reports the marker
// frame T_OE T_EM, which the outer loop servoes. A robot file without them is the twin of before
// (the golden traces, tests/apps/test_cli_golden.cpp).
#include <gtest/gtest.h>

#include "../sim/sim_fixtures.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/servo/twin.hpp"
#include "vcloe/sim/kinematics.hpp"

using namespace vcloe;
using namespace vcloe::servo;

namespace {

// The drawn robot with the departures a kinematic calibration finds (docs/calibration.md sizes).
sim::RobotModel calibrated_twin_robot() {
  sim::RobotModel m = test::default_robot();
  const double offsets[6] = {2.1e-3, -1.4e-3, 0.7e-3, -2.6e-3, 1.3e-3, -0.5e-3};
  for (int i = 0; i < sim::kLegs; ++i) m.legs[i].encoder_offset = offsets[i];
  m.marker_frame << 0.9e-3, -0.7e-3, 0.5e-3, 1.8e-3, -1.2e-3, 0.9e-3;
  return m;
}

Vec6d crank_angles(const sim::RobotModel& m, const Vec6d& chi) {
  Vec6d theta;
  EXPECT_TRUE(sim::inverse_kinematics<double>(m, chi, theta));
  return theta;
}

}  // namespace

TEST(CalibratedTwin, TheCrankSettlesAtTheCommandLessTheEncoderOffset) {
  const sim::RobotModel m = calibrated_twin_robot();
  const Vec6d U = crank_angles(m, m.home) + Vec6d::Constant(0.02);  // a command off the start
  Vec6d start = m.home;
  ASSERT_TRUE(sim::pose_at_encoders(m, crank_angles(m, m.home) + sim::encoder_offsets(m), start));
  EXPECT_LT((start - m.home).cwiseAbs().maxCoeff(), 1e-12);  // the encoders read the command there already
  TwinRobot<double> twin(m, test::default_priors(), LoopTiming{}, start);
  for (int k = 0; k < 6000; ++k) ASSERT_TRUE(twin.step(U)) << twin.failure();
  const Vec6d settled = crank_angles(m, twin.pose());
  EXPECT_LT((settled - (U - sim::encoder_offsets(m))).cwiseAbs().maxCoeff(), 1e-6) << settled.transpose();
}

TEST(CalibratedTwin, StandsWhereItsEncodersReadTheStartCommandAndReportsTheMarkerFrame) {
  const sim::RobotModel drawn = test::default_robot(), m = calibrated_twin_robot();
  excitation::RandomTrajectoryOptions o;
  o.duration = 0.5;
  // The controller's reference: prepared on the drawn robot file (its IK feedforward, start command).
  const PreparedReference ref =
      prepare_reference(drawn, LoopTiming{}, excitation::random_feasible_trajectory(drawn, 5, o));
  const LoopResult<double> r = simulate_twin<double>(m, test::default_priors(), ref, OuterGains{});
  ASSERT_TRUE(r.ok) << r.failure;
  // Frame 0 is exposed before the first tick: the pose the robot stood at.
  const Vec6d encoders = crank_angles(m, r.true_pose[0]) + sim::encoder_offsets(m);
  EXPECT_LT((encoders - ref.start_theta).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_GT((r.true_pose[0] - ref.start_pose).head<3>().norm(), 1e-5);  // the offsets moved it off the drawn start
  for (std::size_t j = 0; j < r.true_pose.size(); ++j) {
    const Eigen::Isometry3d E = Eigen::Translation3d(r.true_pose[j].head<3>()) * Eigen::Isometry3d(rotation_of<double>(r.true_pose[j]));
    const Eigen::Isometry3d M = Eigen::Translation3d(m.marker_frame.head<3>()) * Eigen::Isometry3d(rotation_of<double>(m.marker_frame));
    const Eigen::Isometry3d OM = E * M;
    EXPECT_LT((r.measured[j].head<3>() - OM.translation()).norm(), 1e-12) << j;
    EXPECT_LT((rotation_of<double>(r.measured[j]) - OM.linear()).cwiseAbs().maxCoeff(), 1e-12) << j;
  }
  // The outer loop servoes the marker frame: at the end it follows the reference, E does not.
  const std::size_t last = r.measured.size() - 1;
  const double marker_error = (r.measured[last] - ref.reference_at_exposure[last]).head<3>().norm();
  const double e_error = (r.true_pose[last] - ref.reference_at_exposure[last]).head<3>().norm();
  EXPECT_LT(marker_error, 0.5 * e_error) << marker_error << " " << e_error;
}

TEST(CalibratedTwin, WithoutOffsetsOrMarkerFrameItIsTheTwinOfBeforeBitForBit) {
  const sim::RobotModel drawn = test::default_robot();
  excitation::RandomTrajectoryOptions o;
  o.duration = 0.3;
  const PreparedReference ref =
      prepare_reference(drawn, LoopTiming{}, excitation::random_feasible_trajectory(drawn, 6, o));
  const LoopResult<double> r = simulate_twin<double>(drawn, test::default_priors(), ref, OuterGains{});
  TwinRobot<double> twin(drawn, test::default_priors(), ref.clock.timing, ref.start_pose);
  VisualServo<double> outer(ref, OuterGains{});
  ExactPose camera;
  const LoopResult<double> before = run_loop<double>(twin, outer, camera);
  ASSERT_TRUE(r.ok && before.ok);
  for (std::size_t j = 0; j < r.measured.size(); ++j) {
    ASSERT_EQ(r.measured[j], before.measured[j]) << j;
    ASSERT_EQ(r.true_pose[j], before.true_pose[j]) << j;
  }
}
