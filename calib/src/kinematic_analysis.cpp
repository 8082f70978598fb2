#include <algorithm>
#include <cmath>
#include <sstream>

#include <Eigen/SVD>

#include "kinematic_fit_parts.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/sim/kinematics.hpp"

namespace vcloe::calib::detail {

void check_inputs(const std::vector<StaticPose>& poses, const Vec6d& frame_noise) {
  for (std::size_t k = 0; k < poses.size(); ++k) {
    const StaticPose& p = poses[k];
    if (!p.joints.allFinite() || !p.measured.allFinite() || !p.scatter.allFinite() || p.frames < 1)
      fail("static pose " + std::to_string(k + 1), "joint angles, measured pose and scatter must be finite and frames >= 1");
  }
  static const char* axes[] = {"x", "y", "z", "alpha", "beta", "gamma"};
  for (int c = 0; c < 6; ++c)
    if (!(frame_noise(c) > 0))
      fail("kinematic calibration", std::string("the camera noise of axis ") + axes[c] +
                                        " is unknown: give it, or poses measured with at least two frames each");
}

std::vector<Vec6d> initial_guesses(const sim::RobotModel& nominal, const LegFrames&, const KinematicVector& x,
                                   const std::vector<StaticPose>& poses) {
  std::vector<Vec6d> out;
  for (std::size_t k = 0; k < poses.size(); ++k) {
    Vec6d platform, measured;
    if (!static_pose(nominal, x, poses[k].joints, platform, measured))
      fail("static pose " + std::to_string(k + 1), "the geometry cannot close at these joint angles");
    out.push_back(platform);
  }
  return out;
}

namespace {

// Whitened Jacobian (6N × 72) and residual at the estimate.
void jacobian_at(const LegFrames& frames, const std::vector<StaticPose>& poses, const KinematicVector& x,
                 const Vec6d& frame_noise, std::vector<Vec6d>& guesses, Matrix& J, Eigen::VectorXd& r,
                 Eigen::VectorXd& raw) {
  const Eigen::Index n = static_cast<Eigen::Index>(poses.size());
  J.resize(6 * n, kKinematicParameters), r.resize(6 * n), raw.resize(6 * n);
  for (Eigen::Index k = 0; k < n; ++k) {
    const StaticPose& p = poses[static_cast<std::size_t>(k)];
    const Vec6d sigma = frame_noise / std::sqrt(static_cast<double>(p.frames));
    Eigen::Matrix<double, 6, kKinematicParameters> Jk;
    if (!measurement_jacobian(frames, x, p.joints, guesses[static_cast<std::size_t>(k)], Jk))
      fail("static pose " + std::to_string(k + 1), "the fitted geometry cannot close at these joint angles");
    Vec6d chi;
    predicted_measurement<double>(frames, x.data(), p.joints, guesses[static_cast<std::size_t>(k)], chi);
    raw.segment<6>(6 * k) = p.measured - chi;
    r.segment<6>(6 * k) = raw.segment<6>(6 * k).cwiseQuotient(sigma);
    J.middleRows<6>(6 * k) = sigma.cwiseInverse().asDiagonal() * Jk;
  }
}

}  // namespace

void analyse_solution(const sim::RobotModel& nominal, const LegFrames& frames, const std::vector<StaticPose>& poses,
                      const Matrix& N, const KinematicCalibrationOptions& o, KinematicCalibrationResult& out) {
  const KinematicVector x = out.estimate.vector();
  std::vector<Vec6d> guesses = initial_guesses(nominal, frames, x, poses);
  Matrix J;
  Eigen::VectorXd r, raw;
  jacobian_at(frames, poses, x, out.frame_noise, guesses, J, r, raw);
  const double n = static_cast<double>(poses.size());
  for (int c = 0; c < 6; ++c) {
    double e2 = 0, s2 = 0;
    for (std::size_t k = 0; k < poses.size(); ++k)
      e2 += raw(6 * static_cast<Eigen::Index>(k) + c) * raw(6 * static_cast<Eigen::Index>(k) + c),
          s2 += out.frame_noise(c) * out.frame_noise(c) / poses[k].frames;
    out.residual_rms(c) = std::sqrt(e2 / n), out.mean_noise(c) = std::sqrt(s2 / n);
  }
  out.dof = static_cast<int>(r.size() - N.cols());
  out.chi2 = r.squaredNorm();
  out.ratio = std::sqrt(out.chi2 / out.dof);
  out.adequate_ratio = o.adequate_ratio;
  out.adequate = out.ratio <= o.adequate_ratio;
  out.combinations = named_combinations(nominal, x);
  out.null_space = check_null_space(J, out.combinations);

  // Gauss–Newton covariance in the free directions, column-scaled for the rank decision.
  const Matrix Jf = J * N;
  Eigen::VectorXd scale = Jf.colwise().norm().transpose();
  for (Eigen::Index k = 0; k < scale.size(); ++k)
    if (!(scale(k) > 0)) scale(k) = 1;
  Eigen::JacobiSVD<Matrix> svd(Jf * scale.cwiseInverse().asDiagonal(), Eigen::ComputeThinV);
  const Eigen::VectorXd s = svd.singularValues();
  out.condition_number = s(s.size() - 1) > 0 ? s(0) / s(s.size() - 1) : INFINITY;
  Eigen::VectorXd inv2 = Eigen::VectorXd::Zero(s.size());
  for (Eigen::Index k = 0; k < s.size(); ++k)
    inv2(k) = s(k) > 1e-10 * s(0) ? 1.0 / (s(k) * s(k)) : INFINITY;
  const Matrix V = scale.cwiseInverse().asDiagonal() * svd.matrixV();
  const Matrix C = V * inv2.asDiagonal() * V.transpose();
  const Matrix Cp = N * C * N.transpose() * std::pow(std::max(1.0, out.ratio), 2);
  out.status.assign(kKinematicParameters, "identified");
  for (int k = 0; k < kKinematicParameters; ++k) {
    out.sigma(k) = std::sqrt(std::max(0.0, Cp(k, k)));
    if (!std::isfinite(out.sigma(k)) || (inv2.array() == INFINITY).any()) out.status[k] = "not identified";
  }
  for (int i = 0; i < sim::kLegs; ++i)
    out.status[leg_index(i, kCrankAngle)] = "not identifiable: the encoder offset carries it (kept as drawn)";
  for (int k : o.fixed) out.status[k] = "fixed";
}

}  // namespace vcloe::calib::detail
