// Specification of the pre-correction of a calibrated model (control/precorrect.hpp,
// docs/control.md "On realistic truths"): the reference is the pose of the model's marker frame
// and the drives servo the encoders, so theta_d are the encoders that put the marker frame on
// chi_d (IK of E under it, plus the encoder zeros) and the torques are E's motion's. A model
// without a marker frame and encoder zeros gives the command of before, bit for bit.
#include <gtest/gtest.h>

#include "control_fixtures.hpp"
#include "vcloe/control/precorrect.hpp"
#include "vcloe/sim/dynamics.hpp"
#include "vcloe/sim/kinematics.hpp"

using namespace vcloe;

namespace {

// The priors with the departures a kinematic calibration finds (docs/calibration.md's sizes).
sim::RobotFile calibrated_priors() {
  sim::RobotFile f = control_test::priors();
  const double offsets[6] = {2.7e-3, -1.9e-3, 0.8e-3, -2.9e-3, 1.6e-3, -0.6e-3};
  for (int i = 0; i < sim::kLegs; ++i) f.model.legs[i].encoder_offset = offsets[i];
  f.model.marker_frame << 0.9e-3, -0.8e-3, 0.6e-3, 1.9e-3, -1.7e-3, 1.2e-3;
  return f;
}

// The pre-correction as it was before the calibrated model's kinematics entered it: theta_d =
// IK(chi_d) of E, the torques along chi_d, the hold at chi_d(0) (the algorithm of precorrect.hpp).
std::vector<Vec6d> command_of_before(const sim::RobotFile& m, const servo::TickClock& clock, const control::Motion& motion) {
  const sim::XiVector<double> xi = m.lambda.head<sim::kNumXi>();
  const double Tc = clock.timing.controller_period();
  Vec6d hold;
  EXPECT_TRUE(sim::holding_torques<double>(m.model, motion.sample(0.0).chi, xi, hold));
  control::InverseDrives inverse(servo::drive_gains<double>(m.lambda), Tc, hold);
  auto torque = [&](double t) {
    control::LoadVector load;
    EXPECT_TRUE(control::drive_load(m.model, motion.sample(t), xi, load));
    return Vec6d(load.head<6>());
  };
  std::vector<Vec6d> out;
  Vec6d start = torque(0.0);
  for (int k = 0; k < clock.total_ticks; ++k) {
    const double t = clock.time(k);
    const Vec6d mid = torque(t + 0.5 * Tc), end = torque(t + Tc);
    const Vec6d tau = (start + 4.0 * mid + end) / 6.0;
    start = end;
    Vec6d theta;
    EXPECT_TRUE(sim::inverse_kinematics<double>(m.model, motion.sample(t).chi, theta));
    out.push_back(inverse.command(tau, theta));
  }
  return out;
}

}  // namespace

TEST(CalibratedPrecorrect, ItsEncodersPutTheModelsMarkerFrameOnTheReference) {
  const sim::RobotFile m = calibrated_priors();
  const excitation::FourierTrajectory tr = control_test::random_reference(31, 1.0);
  const servo::PreparedReference ref = servo::prepare_reference(control_test::priors().model, servo::LoopTiming{}, tr);
  const control::PreCorrection pc = control::precorrect(m.model, m.lambda, ref.clock, control::motion_of(tr));
  ASSERT_EQ(pc.theta.size(), static_cast<std::size_t>(ref.clock.total_ticks));
  double worst = 0, moved = 0;
  for (int k = 0; k < ref.clock.total_ticks; k += 97) {
    const Vec6d chi_d = tr.pose(ref.clock.time(k));
    // Forward kinematics: the pose whose encoders read theta_d; its marker frame is chi_d.
    Vec6d e = chi_d;
    ASSERT_TRUE(sim::pose_at_encoders(m.model, pc.theta[static_cast<std::size_t>(k)], e));
    worst = std::max(worst, (pose_of_attached<double>(e, m.model.marker_frame) - chi_d).cwiseAbs().maxCoeff());
    // The encoder zeros are added to the crank angles of E there.
    Vec6d crank;
    ASSERT_TRUE(sim::inverse_kinematics<double>(m.model, e, crank));
    EXPECT_LT((pc.theta[static_cast<std::size_t>(k)] - crank - sim::encoder_offsets(m.model)).cwiseAbs().maxCoeff(), 1e-12);
    Vec6d ik_of_reference;  // what the pre-correction took before: IK of chi_d as if it were E's pose
    ASSERT_TRUE(sim::inverse_kinematics<double>(m.model, chi_d, ik_of_reference));
    moved = std::max(moved, (pc.theta[static_cast<std::size_t>(k)] - ik_of_reference).cwiseAbs().maxCoeff());
  }
  EXPECT_LT(worst, 1e-11);
  EXPECT_GT(moved, 2e-3);  // the departures matter: millirad, a tick's rate limit is 10 mrad
}

TEST(CalibratedPrecorrect, EsMotionKeepsTheMarkerFrameOnTheReference) {
  // platform_motion's twist and its rate are E's: central differences of E's pose under the
  // marker frame's motion (positions; the angular rates are the marker's).
  const sim::RobotFile m = calibrated_priors();
  const excitation::FourierTrajectory tr = control_test::random_reference(32, 2.0);
  const double h = 1e-4;
  for (double t : {0.3, 0.9, 1.6}) {
    auto e_at = [&](double s) { return control::platform_motion(m.model, {tr.sample(s).chi, tr.sample(s).v, tr.sample(s).v_dot}); };
    const control::MotionSample e = e_at(t), before = e_at(t - h), after = e_at(t + h);
    const Vec3d h_dot = (after.chi.head<3>() - before.chi.head<3>()) / (2 * h);
    const Vec3d h_ddot = (after.chi.head<3>() - 2 * e.chi.head<3>() + before.chi.head<3>()) / (h * h);
    EXPECT_LT((e.v.head<3>() - h_dot).norm(), 1e-8) << t;
    EXPECT_LT((e.v_dot.head<3>() - h_ddot).norm(), 1e-4) << t;
    EXPECT_GT((e.v.head<3>() - tr.sample(t).v.head<3>()).norm(), 1e-7) << t;  // not the marker's own
    EXPECT_EQ(e.v.tail<3>(), tr.sample(t).v.tail<3>());
  }
}

TEST(CalibratedPrecorrect, WithoutMarkerFrameOrEncoderZerosTheCommandIsThatOfBeforeBitForBit) {
  const sim::RobotFile& m = control_test::priors();  // config/robot.yaml: no marker frame, no encoder zeros
  ASSERT_EQ(m.model.marker_frame, Vec6d::Zero());
  ASSERT_EQ(sim::encoder_offsets(m.model), Vec6d::Zero());
  const excitation::FourierTrajectory tr = control_test::random_reference(33, 1.0);
  const servo::PreparedReference ref = servo::prepare_reference(m.model, servo::LoopTiming{}, tr);
  const std::vector<Vec6d> now = control::precorrect(m.model, m.lambda, ref.clock, control::motion_of(tr)).command;
  const std::vector<Vec6d> before = command_of_before(m, ref.clock, control::motion_of(tr));
  ASSERT_EQ(now.size(), before.size());
  for (std::size_t k = 0; k < now.size(); ++k) ASSERT_EQ(now[k], before[k]) << "tick " << k;
}
