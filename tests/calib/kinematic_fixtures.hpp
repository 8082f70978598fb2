#pragma once
// Synthetic static poses for the kinematic calibration's specifications: a truth drawn around the
// robot file (the realistic departures of issue 24: joint centres and lengths ±0.5 mm, encoder
// offsets ±3 mrad, marker frame ±1 mm / ±2 mrad, camera-to-base residual ±0.3 mm / ±1 mrad),
// joint sets inside the range, and camera frames with Gaussian noise on each pose channel.
#include <random>
#include <string>
#include <vector>

#include "vcloe/calib/kinematic_calibration.hpp"
#include "vcloe/sim/kinematics.hpp"

namespace vcloe::calib::fixtures {

inline sim::RobotModel default_robot() { return sim::load_robot(std::string(VCLOE_SOURCE_DIR) + "/config/robot.yaml").model; }

inline KinematicVector realistic_truth(const sim::RobotModel& nominal, unsigned seed) {
  std::mt19937_64 rng(seed);
  auto u = [&](double half) { return std::uniform_real_distribution<double>(-half, half)(rng); };
  KinematicVector x = nominal_parameters(nominal).vector();
  for (int i = 0; i < sim::kLegs; ++i) {
    for (int c = 0; c < 3; ++c) x(leg_index(i, kBaseX + c)) += u(5e-4), x(leg_index(i, kPlatformX + c)) += u(5e-4);
    x(leg_index(i, kCrankLength)) += u(5e-4);
    x(leg_index(i, kLinkLength)) += u(5e-4);
    x(leg_index(i, kEncoderOffset)) += u(3e-3);
  }
  for (int c = 0; c < 6; ++c) {
    x(kMarkerOffset + c) += c < 3 ? u(1e-3) : u(2e-3);
    x(kCameraOffset + c) += c < 3 ? u(3e-4) : u(1e-3);
  }
  return x;
}

// Joint sets of platform poses drawn around home (±40 mm, ±0.2 rad) that the truth reaches inside
// 0.9 of the joint range with its pose checks passed, and whose static pose (reached from home)
// is that pose: the working assembly mode.
inline std::vector<Vec6d> random_joint_sets(const sim::RobotModel& nominal, const KinematicVector& truth, int n,
                                            unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  const sim::RobotModel geometry = apply_geometry(nominal, KinematicParameters::from_vector(truth));
  std::vector<Vec6d> out;
  while (static_cast<int>(out.size()) < n) {
    Vec6d chi = nominal.home;
    for (int c = 0; c < 6; ++c) chi(c) += (c < 3 ? 0.04 : 0.2) * u(rng);
    const sim::PoseCheck check = sim::check_pose(geometry, chi);
    if (!check.ok() || check.theta.cwiseAbs().maxCoeff() > 0.9 * nominal.joint_limit) continue;
    Vec6d q = check.theta;
    for (int i = 0; i < sim::kLegs; ++i) q(i) += truth(leg_index(i, kEncoderOffset));
    Vec6d platform, measured;
    if (static_pose(nominal, truth, q, platform, measured) && (platform - chi).cwiseAbs().maxCoeff() < 1e-9)
      out.push_back(q);
  }
  return out;
}

// `frames` camera frames per pose (noise sigma per frame), averaged as the measurement does.
inline std::vector<StaticPose> measure(const sim::RobotModel& truth_structure, const KinematicVector& truth,
                                       const std::vector<Vec6d>& joints, int frames, const Vec6d& sigma,
                                       unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n(0, 1);
  std::vector<StaticPose> out;
  for (const Vec6d& q : joints) {
    Vec6d platform, exact;
    if (!static_pose(truth_structure, truth, q, platform, exact)) continue;
    Vec6d sum = Vec6d::Zero(), sum2 = Vec6d::Zero();
    for (int f = 0; f < frames; ++f) {
      Vec6d e;
      for (int c = 0; c < 6; ++c) e(c) = sigma(c) * n(rng);
      sum += e, sum2 += e.cwiseAbs2();
    }
    StaticPose p;
    p.joints = q, p.frames = frames;
    const Vec6d mean = sum / frames;
    p.measured = exact + mean;
    p.scatter = frames > 1 ? Vec6d(((sum2 - frames * mean.cwiseAbs2()) / (frames - 1)).cwiseSqrt()) : Vec6d::Zero();
    out.push_back(p);
  }
  return out;
}

}  // namespace vcloe::calib::fixtures
