// Specification of control/precorrect: the inverse of the drives' law returns the torques asked
// for, the correction replaces exactly the feedforward the outer law holds, and the twin whose
// model made the pre-correction follows the reference far closer than under the servo alone.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include <unistd.h>

#include "../test_support.hpp"
#include "control_fixtures.hpp"
#include "vcloe/control/precorrect.hpp"
#include "vcloe/control/precorrection_file.hpp"
#include "vcloe/core/trace.hpp"

using namespace vcloe;

namespace {

// A CommandedRobot that records the commands it is given and stands still.
struct CommandRecorder {
  Vec6d standing = Vec6d::Zero();
  std::vector<Vec6d> commands;
  std::string none;
  Vec6d pose() const { return standing; }
  bool step(const Vec6d& U) {
    commands.push_back(U);
    return true;
  }
  const std::string& failure() const { return none; }
};

servo::OuterGains zero_gains() {
  servo::OuterGains g;
  g.kp.setZero(), g.ki.setZero(), g.kd.setZero();
  return g;
}

}  // namespace

TEST(InverseDrives, CommandsMakeTheDrivesLawOutputTheTorquesAskedFor) {
  // Random torques and encoder angles tick by tick: servo::InnerPid (eq. 31, the twin's drives),
  // started holding the same torque, outputs exactly the torques the inverse was asked for.
  const sim::LambdaVector<double>& lambda = control_test::priors().lambda;
  const servo::DriveGains<double> g = servo::drive_gains<double>(lambda);
  const double Tc = 1e-3;
  std::mt19937 rng(21);
  std::normal_distribution<double> n(0.0, 1.0);
  Vec6d hold;
  for (int i = 0; i < 6; ++i) hold(i) = 5 * n(rng);
  control::InverseDrives inverse(g, Tc, hold);
  servo::InnerPid<double> pid;
  pid.start_holding(g, hold);
  double worst = 0;
  for (int k = 0; k < 2000; ++k) {
    Vec6d tau, theta;
    for (int i = 0; i < 6; ++i) tau(i) = 10 * n(rng), theta(i) = 0.5 * n(rng);
    const Vec6d U = inverse.command(tau, theta);
    worst = std::max(worst, (pid.update(g, U, theta, Tc) - tau).cwiseAbs().maxCoeff());
  }
  EXPECT_LT(worst, 1e-9);
}

TEST(Precorrect, TheCorrectionReplacesTheFeedforwardTheOuterLawHolds) {
  // With zero outer gains the outer law's command is its held IK feedforward alone, tick by tick.
  const servo::LoopTiming timing;
  const excitation::FourierTrajectory tr = control_test::random_reference(4, 1.0);
  const servo::PreparedReference ref = servo::prepare_reference(control_test::priors().model, timing, tr);
  CommandRecorder robot{ref.start_pose, {}, {}};
  servo::VisualServo<double> outer(ref, zero_gains());
  servo::ExactPose camera;
  ASSERT_TRUE(servo::run_loop<double>(robot, outer, camera).ok);
  const std::vector<Vec6d> held = control::held_feedforward(ref);
  ASSERT_EQ(held.size(), robot.commands.size());
  for (std::size_t k = 0; k < held.size(); ++k) ASSERT_LT((held[k] - robot.commands[k]).norm(), 1e-12) << k;
}

TEST(Precorrect, TheTwinOfTheModelFollowsItsPreCorrectedReference) {
  // The twin (modeled drives, our dynamics) with the very model of the pre-correction, commanded
  // by q_c alone (zero outer gains): what remains is the zero-order hold's and RK4's error, far
  // below the servo alone's.
  const sim::RobotFile& model = control_test::priors();
  const servo::LoopTiming timing;
  const excitation::FourierTrajectory tr = control_test::random_reference(5, 4.0);
  const servo::PreparedReference ref = servo::prepare_reference(model.model, timing, tr);
  const control::PreCorrection pc = control::precorrect(model.model, model.lambda, ref.clock, control::motion_of(tr));
  const std::vector<Vec6d> correction = control::correction_of(ref, pc.command);
  servo::TwinRobot<double> twin(model.model, model.lambda, timing, ref.start_pose);
  control::PrecorrectedRobot<servo::TwinRobot<double>> corrected(twin, correction);
  servo::VisualServo<double> open_loop(ref, zero_gains());
  servo::ExactPose camera;
  const auto pre = servo::run_loop<double>(corrected, open_loop, camera);
  ASSERT_TRUE(pre.ok) << pre.failure;
  const auto alone = servo::simulate_twin<double>(model.model, model.lambda, ref, servo::OuterGains{});
  ASSERT_TRUE(alone.ok) << alone.failure;
  const control_test::TrackingRms a = control_test::tracking_rms(ref, alone), p = control_test::tracking_rms(ref, pre);
  std::printf("twin: servo alone %.4f mm %.4f mrad, pre-corrected %.5f mm %.5f mrad\n", a.position * 1e3,
              a.angle * 1e3, p.position * 1e3, p.angle * 1e3);
  EXPECT_LT(p.position, a.position / 50);
  EXPECT_LT(p.angle, a.angle / 50);
}

TEST(Precorrect, OnTheVirtualRobotTheTrueModelInsideTheLoopBeatsTheServoAlone) {
  // MuJoCo with its own drives' firmware and friction, the exact camera: the pre-correction made
  // with the true parameters, inside the outer loop.
  const servo::LoopTiming timing;
  const excitation::FourierTrajectory tr = control_test::random_reference(6, 4.0);
  const servo::PreparedReference ref = servo::prepare_reference(control_test::priors().model, timing, tr);
  const sim::RobotFile& truth = control_test::truth();
  const control::PreCorrection pc = control::precorrect(truth.model, truth.lambda, ref.clock, control::motion_of(tr));
  const std::vector<Vec6d> correction = control::correction_of(ref, pc.command);
  const auto alone = control_test::run_on_virtual_robot(ref, truth, servo::OuterGains{}, nullptr);
  const auto inside = control_test::run_on_virtual_robot(ref, truth, servo::OuterGains{}, &correction);
  ASSERT_TRUE(alone.loop.ok && inside.loop.ok) << alone.loop.failure << inside.loop.failure;
  const auto a = control_test::tracking_rms(ref, alone.loop), p = control_test::tracking_rms(ref, inside.loop);
  std::printf("virtual robot: servo alone %.4f mm %.4f mrad, pre-corrected (truth) %.5f mm %.5f mrad\n",
              a.position * 1e3, a.angle * 1e3, p.position * 1e3, p.angle * 1e3);
  EXPECT_LT(p.position, a.position / 5);
  EXPECT_LT(p.angle, a.angle / 5);
}

TEST(PrecorrectionFile, ReadsBackWhatWasWrittenAndRefusesAnotherReference) {
  const auto dir = std::filesystem::temp_directory_path() / ("vcloe-precorrection-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "p.csv").string(), ref_a = (dir / "a.yaml").string(), ref_b = (dir / "b.yaml").string();
  std::ofstream(ref_a) << "a\n";
  std::ofstream(ref_b) << "b\n";
  control::PrecorrectionFile f;
  f.controller_hz = 1000;
  f.command = {Vec6d::Constant(0.1), Vec6d::Constant(-0.2), Vec6d::LinSpaced(6, 0.0, 0.5)};
  f.reference = file_record(ref_a);
  f.software_version = "test";
  control::write_precorrection(path, f, false);
  const control::PrecorrectionFile back = control::read_precorrection(path);
  ASSERT_EQ(back.command.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(back.command[k], f.command[k]);
  EXPECT_EQ(back.reference, f.reference);
  EXPECT_NO_THROW(control::check_precorrection_for(back, path, ref_a, 1000, 3));
  EXPECT_NE(test::error_of([&] { control::check_precorrection_for(back, path, ref_b, 1000, 3); }).find("another reference"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { control::check_precorrection_for(back, path, ref_a, 500, 3); }).find("500 Hz"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { control::check_precorrection_for(back, path, ref_a, 1000, 4); }).find("needs 4"),
            std::string::npos);
  std::ofstream(path, std::ios::app) << "0.003,0,0,0,0,0,0\n";  // the CSV changed behind its sidecar
  EXPECT_NE(test::error_of([&] { control::read_precorrection(path); }).find("does not belong to its sidecar"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}
