// Specification of the kinematic calibration (Li et al. 2018; docs/calibration.md): the
// geometry, encoder offsets, marker frame and camera-to-base residual recovered from static
// poses; the named combinations are exactly the Jacobian's null space; a model that lacks a
// departure of the robot is told by the residual verdict.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include "../test_support.hpp"
#include "kinematic_fixtures.hpp"
#include "vcloe/calib/pose_selection.hpp"
#include "vcloe/calib/static_trace.hpp"
#include "vcloe/core/trace.hpp"

using namespace vcloe;
using namespace vcloe::calib;
using namespace vcloe::calib::fixtures;

namespace {

const Vec6d kFrameNoise = (Vec6d() << 2e-5, 2e-5, 2e-5, 5e-5, 5e-5, 5e-5).finished();

// Largest |estimate − truth| over the entries of one kind (slot of every leg, or a range).
double largest_error(const KinematicVector& d, int slot, int count = 1) {
  double m = 0;
  for (int i = 0; i < sim::kLegs; ++i)
    for (int c = 0; c < count; ++c) m = std::max(m, std::abs(d(leg_index(i, slot + c))));
  return m;
}

}  // namespace

TEST(KinematicModel, NamedCombinationsDescribeTheSameRobot) {
  const sim::RobotModel nominal = default_robot();
  const KinematicVector truth = realistic_truth(nominal, 11);
  const std::vector<Vec6d> joints = random_joint_sets(nominal, truth, 5, 12);
  for (const NamedCombination& c : named_combinations(nominal, truth))
    for (std::size_t k = 0; k < c.changes.size(); ++k) {
      const KinematicVector moved = c.changes[k](truth, 2e-3);
      ASSERT_GT((moved - truth).norm(), 1e-4) << c.name;
      for (const Vec6d& q : joints) {
        Vec6d p0, m0, p1, m1;
        ASSERT_TRUE(static_pose(nominal, truth, q, p0, m0));
        ASSERT_TRUE(static_pose(nominal, moved, q, p1, m1));
        EXPECT_LT((m1 - m0).cwiseAbs().maxCoeff(), 1e-12) << c.name << " direction " << k;
      }
    }
}

TEST(KinematicModel, NullSpaceIsExactlyTheNamedCombinations) {
  const sim::RobotModel nominal = default_robot();
  const KinematicVector truth = realistic_truth(nominal, 21);
  const std::vector<Vec6d> joints = random_joint_sets(nominal, truth, 30, 22);
  const LegFrames frames(nominal);
  Matrix J(6 * joints.size(), kKinematicParameters);
  for (std::size_t k = 0; k < joints.size(); ++k) {
    Vec6d platform, measured;
    ASSERT_TRUE(static_pose(nominal, truth, joints[k], platform, measured));
    Eigen::Matrix<double, 6, kKinematicParameters> Jk;
    ASSERT_TRUE(measurement_jacobian(frames, truth, joints[k], platform, Jk));
    J.middleRows<6>(6 * static_cast<Eigen::Index>(k)) = kFrameNoise.cwiseInverse().asDiagonal() * Jk;
  }
  const std::vector<NamedCombination> named = named_combinations(nominal, truth);
  ASSERT_EQ(named.size(), 4u);  // base translation, base turn (parallel axes), platform motion, crank/offset
  const NullSpaceCheck check = check_null_space(J, named);
  EXPECT_EQ(check.dimension, 3 + 1 + 6 + 6);
  for (std::size_t n = 0; n < named.size(); ++n) EXPECT_TRUE(check.named_found[n]) << named[n].name;
  EXPECT_EQ(check.unnamed, 0);
  // The gauge leaves exactly the identifiable directions: full rank there.
  const Matrix N = free_directions(named, {});
  EXPECT_EQ(N.cols(), kKinematicParameters - 16);
  Eigen::JacobiSVD<Matrix> svd(J * N);
  EXPECT_GT(svd.singularValues().minCoeff(), 1e-6 * svd.singularValues()(0));
}

TEST(KinematicCalibration, RecoversTheTruthFromNoiseFreePoses) {
  const sim::RobotModel nominal = default_robot();
  const KinematicVector truth = realistic_truth(nominal, 31);
  const std::vector<StaticPose> poses =
      measure(nominal, truth, random_joint_sets(nominal, truth, 30, 32), 1, Vec6d::Zero(), 33);
  KinematicCalibrationOptions o;
  o.frame_noise = kFrameNoise;
  const KinematicCalibrationResult r = calibrate_kinematics(nominal, poses, o);
  const KinematicVector expected = in_gauge(nominal, nominal_parameters(nominal).vector(), truth);
  const KinematicVector d = r.estimate.vector() - expected;
  Eigen::Index worst = 0;
  d.cwiseAbs().maxCoeff(&worst);
  EXPECT_LT(d.cwiseAbs().maxCoeff(), 1e-9) << "worst " << parameter_name(static_cast<int>(worst));
  EXPECT_LT(r.ratio, 1e-3);
  EXPECT_TRUE(r.adequate);
}

TEST(KinematicCalibration, NoisyPosesWithinSigmaAndTheAccuracyTargets) {
  const sim::RobotModel nominal = default_robot();
  const KinematicVector truth = realistic_truth(nominal, 41);
  PoseSelectionOptions selection;
  selection.poses = 40, selection.candidates = 600, selection.frame_noise = kFrameNoise;
  selection.half_range << 0.06, 0.06, 0.05, 0.35, 0.35, 0.6;  // a robot with stiff drives reaches these
  const std::vector<StaticPose> poses = measure(nominal, truth, select_poses(nominal, selection).joints, 50, kFrameNoise, 43);
  ASSERT_EQ(poses.size(), 40u);
  const KinematicCalibrationResult r = calibrate_kinematics(nominal, poses, {});
  const KinematicVector d = r.estimate.vector() - in_gauge(nominal, nominal_parameters(nominal).vector(), truth);
  int identified = 0, within3 = 0;
  double worst_z = 0;
  for (int k = 0; k < kKinematicParameters; ++k) {
    if (r.status[k] != "identified") continue;
    ++identified;
    const double z = std::abs(d(k)) / r.sigma(k);
    within3 += z <= 3;
    worst_z = std::max(worst_z, z);
  }
  std::cout << "identified " << identified << ", within 3 sigma " << within3 << ", worst |z| " << worst_z
            << ", ratio " << r.ratio << ", joint centres " << std::max(largest_error(d, kBaseX, 3), largest_error(d, kPlatformX, 3)) * 1e6
            << " um, offsets " << largest_error(d, kEncoderOffset) * 1e3 << " mrad\n";
  EXPECT_EQ(identified, 66);  // all but the six crank angles, in the gauge
  EXPECT_GE(within3, 54);  // 3 sigma: 0.27 % outside each; a few of 56 may be
  EXPECT_LT(worst_z, 4.5);
  EXPECT_GT(r.ratio, 0.8);
  EXPECT_LT(r.ratio, 1.2);
  EXPECT_TRUE(r.adequate);
  EXPECT_LT(largest_error(d, kBaseX, 3), 20e-6);
  EXPECT_LT(largest_error(d, kPlatformX, 3), 20e-6);
  EXPECT_LT(largest_error(d, kEncoderOffset), 1e-4);
  EXPECT_LT(d.segment<3>(kMarkerOffset).cwiseAbs().maxCoeff(), 20e-6);
  EXPECT_LT(d.segment<3>(kMarkerOffset + 3).cwiseAbs().maxCoeff(), 1e-4);
  EXPECT_EQ(r.null_space.dimension, 16);
  EXPECT_EQ(r.null_space.unnamed, 0);
}

TEST(KinematicCalibration, AMissingDepartureIsToldByTheResidual) {
  // The robot's joint 2 axis is tilted by 3 mrad; the model keeps the drawn axes.
  const sim::RobotModel nominal = default_robot();
  sim::RobotModel tilted = nominal;
  tilted.legs[1].axis = Vec3d(3e-3, 0, 1).normalized();
  const KinematicVector truth = realistic_truth(nominal, 51);
  const std::vector<StaticPose> poses =
      measure(tilted, truth, random_joint_sets(tilted, truth, 40, 52), 50, kFrameNoise, 53);
  const KinematicCalibrationResult r = calibrate_kinematics(nominal, poses, {});
  std::cout << "residual " << r.ratio << " x the camera noise\n";
  EXPECT_FALSE(r.adequate);  // (its sentence, "model error dominates: ...", is report::calibration_verdict's)
  EXPECT_GT(r.ratio, 1.5);
}

TEST(KinematicCalibration, RefusesTooFewPosesAndUnknownNoise) {
  const sim::RobotModel nominal = default_robot();
  const KinematicVector truth = realistic_truth(nominal, 61);
  const std::vector<StaticPose> few = measure(nominal, truth, random_joint_sets(nominal, truth, 9, 62), 5, kFrameNoise, 63);
  EXPECT_NE(vcloe::test::error_of([&] { calibrate_kinematics(nominal, few, {}); }).find("measure at least 10 poses"),
            std::string::npos);
  const std::vector<StaticPose> single = measure(nominal, truth, random_joint_sets(nominal, truth, 12, 64), 1, kFrameNoise, 65);
  EXPECT_NE(vcloe::test::error_of([&] { calibrate_kinematics(nominal, single, {}); }).find("camera noise of axis x is unknown"),
            std::string::npos);
}

TEST(PoseSelection, DOptimalPosesBeatRandomOnesAndReachTheTargets) {
  const sim::RobotModel nominal = default_robot();
  PoseSelectionOptions o;
  o.poses = 40;
  o.candidates = 600;
  o.half_range << 0.06, 0.06, 0.05, 0.35, 0.35, 0.6;
  o.frame_noise = kFrameNoise;
  const PoseSelection s = select_poses(nominal, o);
  ASSERT_EQ(s.joints.size(), 40u);
  const PredictedAccuracy& best = s.accuracy.back();
  std::cout << "selected: base " << best.base_joint * 1e6 << " um, platform " << best.platform_joint * 1e6
            << " um, offset " << best.encoder_offset * 1e3 << " mrad; random: base " << s.random.base_joint * 1e6
            << " um, platform " << s.random.platform_joint * 1e6 << " um, offset " << s.random.encoder_offset * 1e3
            << " mrad\n";
  EXPECT_GT(best.log_det, s.random.log_det);
  EXPECT_LT(best.base_joint, s.random.base_joint);
  for (const Vec6d& q : s.joints) EXPECT_LE(q.cwiseAbs().maxCoeff(), 0.9 * nominal.joint_limit + 1e-12);
}

// The static-pose trace is read by the one numeric CSV reader (core/csv_table.hpp) and what no
// measurement can be is refused at its line and column: a negative standard deviation (read as
// it stood, then weighted as a noise level) and a negative settle time; 'nan' is read only where
// the writer means it (a pose that never settled).
TEST(StaticTrace, WhatNoMeasurementCanBeIsRefusedAtItsLineAndColumn) {
  const auto dir = std::filesystem::temp_directory_path() / ("vcloe-static-trace-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "s.csv").string();
  StaticTrace t;
  for (int k = 0; k < 2; ++k) {
    StaticPose p;
    p.joints = Vec6d::Constant(0.1 * k), p.measured = Vec6d::Constant(0.01 * k), p.scatter = Vec6d::Constant(1e-5);
    p.frames = 50;
    t.poses.push_back(p);
    t.command.push_back(p.joints);
    t.settled_s.push_back(k == 0 ? 0.25 : NAN);
  }
  t.info.software = "test", t.info.camera_hz = 100, t.info.settle_s = 0.5, t.info.measure_s = 0.5;
  write_static_trace(path, t, true);
  const StaticTrace back = read_static_trace(path);
  ASSERT_EQ(back.poses.size(), 2u);
  EXPECT_EQ(back.settled_s[0], 0.25);
  EXPECT_TRUE(std::isnan(back.settled_s[1]));
  t.poses[1].scatter(0) = -1e-5;
  write_static_trace(path, t, true);
  EXPECT_EQ(test::error_of([&] { read_static_trace(path); }),
            path + ":3: column 'sd_x': expected a standard deviation (>= 0), got -1e-05");
  // Counts against the sidecar's timing (probe 36, ST08-ST10): at most 51 frames in a 0.5 s hold at
  // 100 Hz, no spread of one frame, settled within the 1 s held.
  t.poses[1].scatter(0) = 1e-5;
  auto refused = [&](const std::function<void(StaticTrace&)>& edit) {
    StaticTrace e = t;
    edit(e);
    write_static_trace(path, e, true);
    return test::error_of([&] { read_static_trace(path); });
  };
  EXPECT_EQ(refused([](StaticTrace& e) { e.poses[1].frames = 51; }), "");
  EXPECT_EQ(refused([](StaticTrace& e) { e.poses[1].frames = 5000; }),
            path + ":3: column 'frames': 5000 frames, but a hold of 0.5 s at 100 Hz (the sidecar's measure_s and camera_hz) "
                   "exposes at most 51");
  EXPECT_NE(refused([](StaticTrace& e) { e.poses[1].frames = 1; }).find(":3: columns 'sd_*': a spread of one frame"), std::string::npos);
  EXPECT_NE(refused([](StaticTrace& e) { e.settled_s[0] = 1000; }).find(":2: column 'settled_s': 1000 s, but the robot was held 1 s"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

// Probe 18, class V: poses no robot of this kind has (positions in mm, angles in degrees) ended a
// fit at 10^7 x the camera noise and were written as a calibration; refused by the fit itself.
TEST(KinematicCalibration, PosesNoRobotOfThisKindHasAreRefusedNotFitted) {
  const sim::RobotModel nominal = default_robot();
  const KinematicVector truth = realistic_truth(nominal, 71);
  const std::vector<StaticPose> poses = measure(nominal, truth, random_joint_sets(nominal, truth, 14, 72), 1, Vec6d::Zero(), 73);
  KinematicCalibrationOptions o;
  o.frame_noise = kFrameNoise;
  o.max_iterations = 20;
  EXPECT_LT(calibrate_kinematics(nominal, poses, o).ratio, 1e-3);  // the same poses in m and rad fit
  for (const auto& [first, factor] : {std::pair{0, 1e3}, {3, 180 / M_PI}}) {  // mm; degrees
    std::vector<StaticPose> wrong = poses;
    for (StaticPose& p : wrong) p.measured.segment<3>(first) *= factor;
    const std::string e = vcloe::test::error_of([&] { calibrate_kinematics(nominal, wrong, o); });
    EXPECT_EQ(e.rfind("kinematic calibration: the static poses fit no robot of this kind: the calibration ends at ", 0), 0u) << e;
    EXPECT_NE(e.find("positions in mm rather than m, angles in degrees"), std::string::npos) << e;
  }
}

// Probe 18, class V: one measurement given twice (the same number, or numbered anew) was read as
// one more pose, shrinking the sigmas; the reader refuses it at its line.
TEST(StaticTrace, AMeasurementGivenTwiceOrAPoseNumberOutOfOrderIsRefusedAtItsLine) {
  const auto dir = std::filesystem::temp_directory_path() / ("vcloe-static-dup-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "s.csv").string();
  StaticTrace t;
  for (int k = 0; k < 3; ++k) {
    StaticPose p;
    p.joints = Vec6d::Constant(0.1 * k), p.measured = Vec6d::Constant(0.01 * k), p.scatter = Vec6d::Constant(1e-5);
    p.frames = 50;
    t.poses.push_back(p), t.command.push_back(p.joints), t.settled_s.push_back(0.25);
  }
  t.info.software = "test", t.info.camera_hz = 100, t.info.settle_s = 0.5, t.info.measure_s = 0.5;
  write_static_trace(path, t, true);
  EXPECT_EQ(read_static_trace(path).poses.size(), 3u);
  StaticTrace twice = t;  // pose 1 measured again as pose 3 (renumbered by the writer)
  twice.poses[2] = t.poses[0];
  write_static_trace(path, twice, true);
  EXPECT_EQ(test::error_of([&] { read_static_trace(path); }),
            path + ":4: pose 3 repeats the encoders and the measured pose of pose 1 (line 2): one measurement given twice");
  // Pose 1 twice as written by hand (its number kept), the sidecar's hash re-recorded.
  write_static_trace(path, t, true);
  std::string csv = test::file_text(path);
  const std::size_t row2 = csv.find("\n2,") + 1;
  csv.replace(row2, 1, "1");
  std::ofstream(path, std::ios::trunc) << csv;
  nlohmann::json meta = nlohmann::json::parse(test::file_text(path + ".meta.json"));
  meta["csv_sha256"] = sha256(csv);
  std::ofstream(path + ".meta.json", std::ios::trunc) << meta.dump();
  test::seal_again(path + ".meta.json");  // the check behind the seal
  EXPECT_EQ(test::error_of([&] { read_static_trace(path); }),
            path + ":3: column 'pose': expected pose 2 (numbered 1, 2, ... in the order measured), got 1");
  std::filesystem::remove_all(dir);
}
