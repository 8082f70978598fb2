#pragma once
// Shared helpers for the sim/ specifications: the default robot and random reachable states.
#include <random>

#include "vcloe/sim/dynamics.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::test {

inline const sim::RobotFile& default_robot_file() {
  static const sim::RobotFile file = sim::load_robot(std::string(VCLOE_SOURCE_DIR) + "/config/robot.yaml");
  return file;
}
// The default robot's structure and its prior values Lambda.
inline const sim::RobotModel& default_robot() { return default_robot_file().model; }
inline const sim::LambdaVector<double>& default_priors() { return default_robot_file().lambda; }
inline sim::XiVector<double> default_xi() { return default_priors().head<sim::kNumXi>(); }

// A pose that passes check_pose (joint range, both singularity margins), drawn around home
// with up to +-40 mm and +-0.15 rad so that a good part of the joint range is covered.
inline Vec6d random_feasible_pose(const sim::RobotModel& model, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (;;) {
    Vec6d chi = model.home;
    for (int k = 0; k < 3; ++k) chi(k) += 0.04 * u(rng);
    for (int k = 3; k < 6; ++k) chi(k) += 0.15 * u(rng);
    if (sim::check_pose(model, chi).ok()) return chi;
  }
}

inline Vec6d random_twist(std::mt19937& rng, double linear = 0.3, double angular = 1.5) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Vec6d v;
  for (int k = 0; k < 3; ++k) v(k) = linear * u(rng);
  for (int k = 3; k < 6; ++k) v(k) = angular * u(rng);
  return v;
}

// The pose reached from chi by moving with twist v for time t: h + t h_dot, R <- exp(t [w]x) R.
inline Vec6d advance_pose(const Vec6d& chi, const Vec6d& v, double t) {
  Vec6d out;
  out.head<3>() = chi.head<3>() + t * v.head<3>();
  const Vec3d w = v.tail<3>();
  const Mat3d dR = w.norm() > 0 ? Eigen::AngleAxisd(t * w.norm(), w.normalized()).toRotationMatrix()
                                 : Mat3d::Identity();
  out.tail<3>() = euler_xyz(dR * rotation_of<double>(chi));
  return out;
}

// Relative error |a - b| / max(|b|, floor) in the Frobenius norm.
template <typename A, typename B>
double rel_err(const A& a, const B& b, double floor = 1e-12) {
  return (a - b).norm() / std::max(b.norm(), floor);
}

}  // namespace vcloe::test
