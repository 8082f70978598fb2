// Specification of a pre-corrected run's start (servo::start_hold, docs/control.md): the robot
// stands at the pre-corrected command's first tick before t = 0, so the command starts with no
// step and the safety monitor's rate limit counts from there (rig::check_command_followable). On a
// calibrated truth run with its own model the first tick puts its marker frame on the reference's
// start — where the reference's start command (IK on the drawn robot file) left it off by the
// calibration's departures, more than one tick at the rate limit away.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>

#include "vcloe/control/precorrect.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/hw/truth_family.hpp"
#include "vcloe/rig/setup.hpp"
#include "../test_support.hpp"
#include "vcloe/servo/twin.hpp"

using namespace vcloe;

namespace {

const sim::RobotFile& cp_priors() {
  static const sim::RobotFile f = sim::load_robot(std::string(VCLOE_SOURCE_DIR) + "/config/robot.yaml");
  return f;
}

}  // namespace

TEST(CalibratedPrecorrection, ARunOfACalibratedTruthWithItsOwnModelStartsWithNoStep) {
  hw::TruthFamily family;
  family.realistic = true;  // geometry, encoder zeros, marker frame, centre of mass (docs/virtual-robot.md)
  const sim::RobotFile truth = hw::random_truth(cp_priors(), 801, family);
  excitation::RandomTrajectoryOptions o;
  o.duration = 0.5;
  o.start_at_rest = true;  // no torque step at t = 0: the first command is where the robot stands
  const excitation::FourierTrajectory tr = excitation::random_feasible_trajectory(cp_priors().model, 8101, o);
  rig::ExperimentSetup s = rig::make_setup(cp_priors(), servo::ExperimentConfig{}, tr, "reference 8101");
  const control::PreCorrection pc = control::precorrect(truth.model, truth.lambda, s.reference.clock, control::motion_of(tr));
  const double off = (pc.command.front() - s.reference.start_theta).cwiseAbs().maxCoeff();
  std::printf("first tick off the reference's start command (IK on the drawn file) by %.4f rad\n", off);
  EXPECT_GT(off, 0.010);  // more than a tick at the rate limit: the rule of before refused it
  s.reference.start_step = control::start_step(truth.model, truth.lambda, s.reference.clock, control::motion_of(tr));
  EXPECT_NO_THROW(rig::check_command_followable(s, pc.command, "the pre-correction"));
  s.reference.command_correction = control::correction_of(s.reference, s.experiment.outer, pc.command);
  // Where the virtual robot and the twin stand: theta_d(0), the first command to within its torque step.
  EXPECT_LT((servo::start_hold(s.reference) - pc.theta.front()).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((servo::start_hold(s.reference) - pc.command.front()).cwiseAbs().maxCoeff(), 1e-4);
  EXPECT_EQ(*rig::virtual_robot_options(s, {}, {}).start_command, servo::start_hold(s.reference));
  rig::VirtualRun run;
  run.noise_sigma.setZero();
  const PoseTrace t = rig::virtual_trace(s, truth, run, "");
  // Frame 0 is exposed at t = 0: the robot as it stood. Its marker frame is on the reference's start.
  const Vec6d start_error = pose_of_attached<double>(t.truth.front(), truth.model.marker_frame) - tr.pose(0.0);
  EXPECT_LT(start_error.head<3>().cwiseAbs().maxCoeff(), 5e-6) << start_error.transpose();
  EXPECT_LT(start_error.tail<3>().cwiseAbs().maxCoeff(), 2e-5) << start_error.transpose();
  Vec6d twin = s.reference.start_pose;  // the twin of the truth stands there too
  ASSERT_TRUE(servo::twin_standing_pose(truth.model, s.reference, twin));
  EXPECT_LT((pose_of_attached<double>(twin, truth.model.marker_frame) - tr.pose(0.0)).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(CalibratedPrecorrection, TheRateLimitCountsFromTheStartHoldAndAStepAfterItIsRefused) {
  excitation::RandomTrajectoryOptions o;
  o.duration = 0.2;
  const excitation::FourierTrajectory tr = excitation::random_feasible_trajectory(cp_priors().model, 8102, o);
  const rig::ExperimentSetup s = rig::make_setup(cp_priors(), servo::ExperimentConfig{}, tr, "reference 8102");
  std::vector<Vec6d> command(static_cast<std::size_t>(s.reference.clock.total_ticks), s.reference.start_theta);
  // Stands 0.15 rad off the start command, then still: beyond what the rate limit lets through in
  // one camera period (0.1 rad), which the rule of before counted from the start command.
  for (Vec6d& c : command) c(2) += 0.15;
  EXPECT_NO_THROW(rig::check_command_followable(s, command, "the command"));
  for (std::size_t k = 1; k < command.size(); ++k) command[k](2) += 0.15;  // the same step at tick 1
  const std::string why = test::error_of([&] { rig::check_command_followable(s, command, "the command"); });
  EXPECT_NE(why.find("the command"), std::string::npos) << why;  // (after its start's blame if it is not at rest)
  EXPECT_NE(why.find(" at t = 0.001 s: "), std::string::npos) << why;
  for (Vec6d& c : command) c(2) += 2.0;  // a start out of the joint range
  EXPECT_NE(test::error_of([&] { rig::check_command_followable(s, command, "the command"); }).find("the command: "),
            std::string::npos);
}
