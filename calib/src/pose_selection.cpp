#include "vcloe/calib/pose_selection.hpp"

#include <cmath>
#include <random>

#include <Eigen/Cholesky>

#include "vcloe/core/defaults.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/sim/kinematics.hpp"

namespace vcloe::calib {

namespace {

struct Candidate {
  Vec6d joints, platform;
  Matrix J;  // whitened, in the free directions (6 × k)
};

std::vector<Candidate> draw_candidates(const sim::RobotModel& nominal, const PoseSelectionOptions& o, const Matrix& N,
                                       const Vec6d& mean_noise, int& checked) {
  const KinematicVector x = nominal_parameters(nominal).vector();
  const LegFrames frames(nominal);
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> u(-1, 1);
  // The robot file's singularity margins doubled: the real robot is not its drawing, and a pose
  // at the drawing's margin may be past it (or past a singularity on the way) for the real one.
  sim::RobotModel strict = nominal;
  strict.min_transmission = std::min(0.9, 2 * nominal.min_transmission);
  strict.min_parallel_conditioning = std::min(0.9, 2 * nominal.min_parallel_conditioning);
  std::vector<Candidate> out;
  checked = 0;
  while (static_cast<int>(out.size()) < o.candidates && checked < 200 * o.candidates) {
    ++checked;
    Vec6d chi = nominal.home;
    for (int c = 0; c < 6; ++c) chi(c) += o.half_range(c) * u(rng);
    const sim::PoseCheck check = sim::check_pose(strict, chi);
    if (!check.ok() || check.theta.cwiseAbs().maxCoeff() > o.joint_fraction * nominal.joint_limit) continue;
    Vec6d q = check.theta;
    for (int i = 0; i < sim::kLegs; ++i) q(i) += x(leg_index(i, kEncoderOffset));
    Vec6d platform, measured;
    if (!static_pose(nominal, x, q, platform, measured) || (platform - chi).cwiseAbs().maxCoeff() > 1e-9) continue;
    Eigen::Matrix<double, 6, kKinematicParameters> Jk;
    if (!measurement_jacobian(frames, x, q, platform, Jk)) continue;
    out.push_back({q, chi, mean_noise.cwiseInverse().asDiagonal() * Jk * N});
  }
  if (static_cast<int>(out.size()) < o.poses)
    fail("pose selection", "only " + std::to_string(out.size()) + " of " + std::to_string(checked) +
                               " candidate poses pass the pose checks: widen the range or lower the count");
  return out;
}

PredictedAccuracy predict(const Matrix& information, const Matrix& N, int poses) {
  PredictedAccuracy a;
  a.poses = poses;
  const Eigen::LDLT<Matrix> ldlt(information);
  a.log_det = ldlt.vectorD().array().log().sum();
  const Matrix C = N * ldlt.solve(Matrix::Identity(information.rows(), information.cols())) * N.transpose();
  auto worst = [&](int slot, int count) {
    double m = 0;
    for (int i = 0; i < sim::kLegs; ++i)
      for (int c = 0; c < count; ++c) m = std::max(m, std::sqrt(C(leg_index(i, slot + c), leg_index(i, slot + c))));
    return m;
  };
  auto block = [&](int first) {
    double m = 0;
    for (int c = 0; c < 3; ++c) m = std::max(m, std::sqrt(C(first + c, first + c)));
    return m;
  };
  a.base_joint = worst(kBaseX, 3), a.platform_joint = worst(kPlatformX, 3);
  a.crank_length = worst(kCrankLength, 1), a.link_length = worst(kLinkLength, 1);
  a.encoder_offset = worst(kEncoderOffset, 1);
  a.marker_position = block(kMarkerOffset), a.marker_angle = block(kMarkerOffset + 3);
  a.camera_position = block(kCameraOffset), a.camera_angle = block(kCameraOffset + 3);
  return a;
}

// Greedy D-optimal: the candidate with the largest log det(I + J M⁻¹ Jᵀ) joins (matrix
// determinant lemma), starting from a tiny ridge so the first steps are defined.
std::vector<int> greedy_d_optimal(const std::vector<Candidate>& c, int count, Matrix& M) {
  std::vector<int> chosen;
  std::vector<bool> used(c.size(), false);
  for (int step = 0; step < count; ++step) {
    const Matrix Minv = M.ldlt().solve(Matrix::Identity(M.rows(), M.cols()));
    double best = -INFINITY;
    int pick = -1;
    for (std::size_t k = 0; k < c.size(); ++k) {
      if (used[k]) continue;
      const Matrix S = Matrix::Identity(6, 6) + c[k].J * Minv * c[k].J.transpose();
      const double gain = S.ldlt().vectorD().array().log().sum();
      if (gain > best) best = gain, pick = static_cast<int>(k);
    }
    if (pick < 0) fail("pose selection", "the information of the candidates is not finite");
    used[static_cast<std::size_t>(pick)] = true;
    chosen.push_back(pick);
    M += c[static_cast<std::size_t>(pick)].J.transpose() * c[static_cast<std::size_t>(pick)].J;
  }
  return chosen;
}

// Nearest-neighbour tour in joint space from home: less motion between the poses.
std::vector<int> tour(const std::vector<Candidate>& c, std::vector<int> chosen, const Vec6d& home_joints) {
  std::vector<int> order;
  Vec6d at = home_joints;
  while (!chosen.empty()) {
    std::size_t best = 0;
    for (std::size_t k = 1; k < chosen.size(); ++k)
      if ((c[static_cast<std::size_t>(chosen[k])].joints - at).cwiseAbs().maxCoeff() <
          (c[static_cast<std::size_t>(chosen[best])].joints - at).cwiseAbs().maxCoeff())
        best = k;
    order.push_back(chosen[best]);
    at = c[static_cast<std::size_t>(chosen[best])].joints;
    chosen.erase(chosen.begin() + static_cast<std::ptrdiff_t>(best));
  }
  return order;
}

}  // namespace

PoseSelection select_poses(const sim::RobotModel& nominal, const PoseSelectionOptions& o) {
  if (o.poses < 10 || o.candidates < o.poses || o.frames < 1)
    fail("pose selection", "needs at least 10 poses, as many candidates and one frame per pose");
  const KinematicVector x = nominal_parameters(nominal).vector();
  const Matrix N = free_directions(named_combinations(nominal, x), {});
  const Vec6d frame = o.frame_noise.isZero() ? defaults::camera_noise_sigma() : o.frame_noise;
  const Vec6d mean_noise = frame / std::sqrt(static_cast<double>(o.frames));
  PoseSelection out;
  const std::vector<Candidate> c = draw_candidates(nominal, o, N, mean_noise, out.candidates_checked);
  out.candidates_kept = static_cast<int>(c.size());
  // A ridge far below any pose's information, so that log det is defined from the first step.
  Matrix total = Matrix::Zero(N.cols(), N.cols());
  for (const Candidate& k : c) total += k.J.transpose() * k.J;
  const Matrix ridge = 1e-9 * total.diagonal().asDiagonal();
  Matrix M = ridge;
  const std::vector<int> chosen = greedy_d_optimal(c, o.poses, M);
  Matrix partial = ridge, random = ridge;
  for (int n = 1; n <= o.poses; ++n) {
    const Candidate& k = c[static_cast<std::size_t>(chosen[static_cast<std::size_t>(n - 1)])];
    partial += k.J.transpose() * k.J;
    random += c[static_cast<std::size_t>(n - 1)].J.transpose() * c[static_cast<std::size_t>(n - 1)].J;
    if (n == 10 || n == 15 || n == 20 || (n % 10 == 0 && n > 20) || n == o.poses) out.accuracy.push_back(predict(partial, N, n));
  }
  out.random = predict(random, N, o.poses);
  Vec6d home_joints;
  sim::inverse_kinematics<double>(nominal, nominal.home, home_joints);
  for (int k : tour(c, chosen, home_joints)) {
    out.joints.push_back(c[static_cast<std::size_t>(k)].joints);
    out.platform.push_back(c[static_cast<std::size_t>(k)].platform);
  }
  return out;
}

}  // namespace vcloe::calib
