#include "vcloe/calib/kinematic_calibration.hpp"

#include <ctime>
#include <iomanip>
#include <memory>
#include <sstream>

#include <ceres/ceres.h>

#include "vcloe/core/error.hpp"
#include "vcloe/core/rotation_difference.hpp"
#include "kinematic_fit_parts.hpp"

namespace vcloe::calib {

namespace {

// Residual of one static pose: (measured − predicted) / σ of the pose's mean, per axis.
struct StaticPoseCost {
  const LegFrames* frames;
  Vec6d joints, measured, sigma;
  mutable Vec6d guess;  // last FK solution: the next Newton start

  template <typename T>
  bool operator()(const T* p, T* r) const {
    Vec6<T> chi;
    if (!predicted_measurement<T>(*frames, p, joints, guess, chi)) return false;
    // measured - predicted with the angles as rotations (the measured triple nearest chi's).
    const Vec6<T> d = -pose_difference<T>(chi, measured.cast<T>());
    for (int c = 0; c < 6; ++c) r[c] = d(c) / sigma(c);
    return true;
  }
};

// The parameters move only in the free directions N (72 × k): x ⊕ δ = x + N δ.
class FreeDirections final : public ceres::Manifold {
 public:
  explicit FreeDirections(Matrix N) : N_(std::move(N)) {}
  int AmbientSize() const override { return kKinematicParameters; }
  int TangentSize() const override { return static_cast<int>(N_.cols()); }
  bool Plus(const double* x, const double* delta, double* out) const override {
    Eigen::Map<Eigen::VectorXd>(out, kKinematicParameters) =
        Eigen::Map<const Eigen::VectorXd>(x, kKinematicParameters) + N_ * Eigen::Map<const Eigen::VectorXd>(delta, N_.cols());
    return true;
  }
  bool PlusJacobian(const double*, double* J) const override {
    Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(J, kKinematicParameters, N_.cols()) = N_;
    return true;
  }
  bool Minus(const double* y, const double* x, double* out) const override {
    Eigen::Map<Eigen::VectorXd>(out, N_.cols()) =
        N_.transpose() * (Eigen::Map<const Eigen::VectorXd>(y, kKinematicParameters) -
                          Eigen::Map<const Eigen::VectorXd>(x, kKinematicParameters));
    return true;
  }
  bool MinusJacobian(const double*, double* J) const override {
    Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(J, N_.cols(), kKinematicParameters) = N_.transpose();
    return true;
  }

 private:
  Matrix N_;
};

class ProgressLines : public ceres::IterationCallback {
 public:
  ProgressLines(std::function<void(const std::string&)> out, int residuals) : out_(std::move(out)), n_(residuals) {}
  ceres::CallbackReturnType operator()(const ceres::IterationSummary& s) override {
    std::ostringstream line;
    line.precision(4);
    line << "calibrate kinematics: iteration " << s.iteration << "  residual/noise "
         << std::sqrt(2 * s.cost / n_) << "  step " << s.step_norm << (s.step_is_successful ? "" : " (rejected)");
    out_(line.str());
    return ceres::SOLVER_CONTINUE;
  }

 private:
  std::function<void(const std::string&)> out_;
  int n_;
};

double cpu_now() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

}  // namespace

Vec6d pooled_frame_noise(const std::vector<StaticPose>& poses) {
  Vec6d sum = Vec6d::Zero();
  int dof = 0;
  for (const StaticPose& p : poses)
    if (p.frames > 1) sum += p.scatter.cwiseAbs2() * (p.frames - 1), dof += p.frames - 1;
  return dof > 0 ? Vec6d((sum / dof).cwiseSqrt()) : Vec6d::Zero();
}

KinematicCalibrationResult calibrate_kinematics(const sim::RobotModel& nominal, const std::vector<StaticPose>& poses,
                                                const KinematicCalibrationOptions& o, const KinematicParameters* start) {
  const double cpu0 = cpu_now();
  KinematicCalibrationResult out;
  out.poses = static_cast<int>(poses.size());
  out.start = start ? *start : nominal_parameters(nominal);
  out.frame_noise = o.frame_noise.isZero() ? pooled_frame_noise(poses) : o.frame_noise;
  detail::check_inputs(poses, out.frame_noise);
  KinematicVector x = out.start.vector();
  out.combinations = named_combinations(nominal, x);
  const Matrix N = free_directions(out.combinations, o.fixed);
  out.free_directions = static_cast<int>(N.cols());
  if (6 * static_cast<int>(poses.size()) <= N.cols())
    fail("kinematic calibration", std::to_string(poses.size()) + " poses give " + std::to_string(6 * poses.size()) +
                                      " residuals for " + std::to_string(N.cols()) + " free directions: measure at least " +
                                      std::to_string(N.cols() / 6 + 1) + " poses");
  const LegFrames frames(nominal);
  std::vector<Vec6d> guesses = detail::initial_guesses(nominal, frames, x, poses);

  ceres::Problem problem;
  for (std::size_t k = 0; k < poses.size(); ++k) {
    const Vec6d sigma = out.frame_noise / std::sqrt(static_cast<double>(std::max(1, poses[k].frames)));
    auto* cost = new ceres::AutoDiffCostFunction<StaticPoseCost, 6, kKinematicParameters>(
        new StaticPoseCost{&frames, poses[k].joints, poses[k].measured, sigma, guesses[k]});
    problem.AddResidualBlock(cost, nullptr, x.data());
  }
  problem.SetManifold(x.data(), new FreeDirections(N));
  ceres::Solver::Options so;
  so.linear_solver_type = ceres::DENSE_QR;
  so.max_num_iterations = o.max_iterations;
  so.function_tolerance = 1e-12, so.parameter_tolerance = 1e-14, so.gradient_tolerance = 1e-14;
  std::unique_ptr<ProgressLines> progress;
  if (o.progress) {
    progress = std::make_unique<ProgressLines>(o.progress, 6 * static_cast<int>(poses.size()));
    so.callbacks.push_back(progress.get());
  }
  ceres::Solver::Summary summary;
  ceres::Solve(so, &problem, &summary);
  if (summary.termination_type == ceres::FAILURE)
    fail("kinematic calibration", "the fit failed: " + summary.message);
  out.iterations = static_cast<int>(summary.iterations.size());
  out.estimate = KinematicParameters::from_vector(x);
  detail::analyse_solution(nominal, frames, poses, N, o, out);
  if (!(out.ratio <= o.implausible_ratio)) {
    std::ostringstream m;
    m << std::setprecision(3) << "the static poses fit no robot of this kind: the calibration ends at " << out.ratio
      << " x the camera noise (limit " << o.implausible_ratio << "; at the noise is 1) - positions in mm rather than m, "
      << "angles in degrees, or the poses of another robot? not a result: no calibration was written";
    fail("kinematic calibration", m.str());
  }
  out.cpu_seconds = cpu_now() - cpu0;
  return out;
}

}  // namespace vcloe::calib
