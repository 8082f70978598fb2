// Each joint's friction from one trial (friction_estimate.hpp).
#include "vcloe/control/friction_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <Eigen/Dense>

#include "vcloe/control/predict.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/servo/controllers.hpp"
#include "vcloe/sim/dynamics.hpp"
#include "vcloe/sim/kinematics.hpp"
#include "vcloe/vision/butterworth.hpp"

namespace vcloe::control {

namespace {

// The measured motion per frame, smoothed: the pose and its rates, the joint angles and theirs.
struct MeasuredMotion {
  std::vector<MotionSample> pose;
  std::vector<Vec6d> theta, theta_dot, theta_ddot;
};

std::vector<Vec6d> smoothed(const std::vector<Vec6d>& x, double cutoff_hz, double rate_hz) {
  const vision::SosFilter sos = vision::butterworth_lowpass(2, std::min(cutoff_hz, 0.45 * rate_hz), rate_hz);
  std::vector<Vec6d> out(x.size());
  std::vector<double> v(x.size());
  for (int i = 0; i < 6; ++i) {
    for (std::size_t j = 0; j < x.size(); ++j) v[j] = x[j](i);
    const std::vector<double> y = vision::sosfiltfilt(sos, v);
    for (std::size_t j = 0; j < x.size(); ++j) out[j](i) = y[j];
  }
  return out;
}

// Central differences (one-sided at the ends) of a per-frame signal: first and second rates.
void rates(const std::vector<Vec6d>& x, double h, std::vector<Vec6d>& d1, std::vector<Vec6d>& d2) {
  const std::size_t n = x.size();
  d1.assign(n, Vec6d::Zero()), d2.assign(n, Vec6d::Zero());
  for (std::size_t j = 1; j + 1 < n; ++j) {
    d1[j] = (x[j + 1] - x[j - 1]) / (2 * h);
    d2[j] = (x[j + 1] - 2 * x[j] + x[j - 1]) / (h * h);
  }
  d1[0] = d1[1], d1[n - 1] = d1[n - 2], d2[0] = d2[1], d2[n - 1] = d2[n - 2];
}

MeasuredMotion measured_motion(const sim::RobotModel& model, const std::vector<Vec6d>& measured, double camera_hz,
                               double cutoff_hz) {
  MeasuredMotion m;
  const std::vector<Vec6d> chi = smoothed(measured, cutoff_hz, camera_hz);
  std::vector<Vec6d> chi_dot, chi_ddot;
  rates(chi, 1 / camera_hz, chi_dot, chi_ddot);
  for (std::size_t j = 0; j < chi.size(); ++j) {
    // The measured pose is the marker frame's: E's motion under it, the encoders that put it there.
    m.pose.push_back(platform_motion(model, {chi[j], twist_from_pose_rate<double>(chi[j], chi_dot[j]),
                                             twist_rate_from_pose<double>(chi[j], chi_dot[j], chi_ddot[j])}));
    Vec6d theta;
    if (!sim::encoders_at_marker(model, chi[j], theta))
      fail("friction estimate", "the smoothed measured pose of frame " + std::to_string(j) + " is not reachable");
    m.theta.push_back(theta);
  }
  rates(m.theta, 1 / camera_hz, m.theta_dot, m.theta_ddot);
  return m;
}

// The drives' torque (eq. 31, servo::InnerPid with the model's gains, started holding the model's
// holding torque) with the encoders at the measured joint angles, linear between exposures; its
// mean over the ticks centred on each exposure.
std::vector<Vec6d> drive_torques(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                                 const servo::TickClock& clock, const std::vector<Vec6d>& command,
                                 const MeasuredMotion& m) {
  const int tpf = clock.timing.ticks_per_frame();
  const std::size_t frames = m.theta.size();
  const std::size_t ticks = std::min(command.size(), frames * static_cast<std::size_t>(tpf));
  const servo::DriveGains<double> g = servo::drive_gains<double>(lambda);
  Vec6d hold;
  if (!sim::holding_torques<double>(model, m.pose[0].chi, lambda.head<sim::kNumXi>(), hold))
    fail("friction estimate", "the first measured pose is not reachable");
  servo::InnerPid<double> pid;
  pid.start_holding(g, hold);
  std::vector<Vec6d> sum(frames, Vec6d::Zero());
  std::vector<double> count(frames, 0.0);
  for (std::size_t k = 0; k < ticks; ++k) {
    const double f = static_cast<double>(k) / tpf;
    const std::size_t j0 = std::min(static_cast<std::size_t>(f), frames - 1);
    const double w = j0 + 1 < frames ? f - static_cast<double>(j0) : 0.0;
    const Vec6d theta = (1 - w) * m.theta[j0] + w * m.theta[std::min(j0 + 1, frames - 1)];
    const Vec6d tau = pid.update(g, command[k], theta, clock.timing.controller_period());
    const auto j = std::min(static_cast<std::size_t>(std::lround(f)), frames - 1);  // the exposure it is nearest
    sum[j] += tau, count[j] += 1;
  }
  for (std::size_t j = 0; j < frames; ++j) sum[j] /= std::max(count[j], 1.0);
  return sum;
}

std::vector<Vec6d> rigid_torques(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                                 const MeasuredMotion& m) {
  sim::XiVector<double> xi = lambda.head<sim::kNumXi>();
  for (int i = 0; i < 6; ++i) xi(sim::coulomb_index(i)) = 0, xi(sim::viscous_index(i)) = 0;
  std::vector<Vec6d> out;
  for (std::size_t j = 0; j < m.pose.size(); ++j) {
    LoadVector load;
    if (!drive_load(model, m.pose[j], xi, load))
      fail("friction estimate", "the smoothed measured pose of frame " + std::to_string(j) + " is not reachable");
    out.push_back(load.head<6>());
  }
  return out;
}

// The fitted Coulomb and viscous levels of joint i over frames [first, last), or the model's.
JointFriction fit_joint(int i, const sim::LambdaVector<double>& lambda, double eps, const MeasuredMotion& m,
                        const std::vector<Vec6d>& drive, const std::vector<Vec6d>& rigid, std::size_t first,
                        std::size_t last, const FrictionFitOptions& o) {
  JointFriction r;
  r.coulomb = lambda(sim::coulomb_index(i)), r.viscous = lambda(sim::viscous_index(i));
  const auto n = static_cast<Eigen::Index>(last - first);
  Eigen::MatrixXd A(n, 5);
  Eigen::VectorXd y(n);
  double up = 0, down = 0, tau_max = 0, speed_max = 0;
  for (Eigen::Index r0 = 0; r0 < n; ++r0) {
    const std::size_t j = first + static_cast<std::size_t>(r0);
    const double qd = m.theta_dot[j](i);
    A.row(r0) << std::tanh(qd / eps), qd, 1.0, rigid[j](i), m.theta_ddot[j](i);
    y(r0) = drive[j](i) - rigid[j](i);
    up += qd > 3 * eps, down += qd < -3 * eps;
    tau_max = std::max(tau_max, std::abs(drive[j](i))), speed_max = std::max(speed_max, std::abs(qd));
  }
  r.moving_fraction = std::min(up, down) / static_cast<double>(n);
  // Variance inflation of the Coulomb column: diag((A^T A)^-1) with unit-norm columns.
  const Eigen::VectorXd norms = A.colwise().norm().transpose().cwiseMax(1e-300);
  const Eigen::MatrixXd An = A * norms.cwiseInverse().asDiagonal();
  const Eigen::MatrixXd N = An.transpose() * An;
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(N + 1e-12 * Eigen::MatrixXd::Identity(5, 5));
  r.inflation = ldlt.solve(Eigen::VectorXd::Unit(5, 0))(0);
  char why[160];
  if (r.moving_fraction < o.min_moving_fraction) {
    std::snprintf(why, sizeof why, "barely moves both ways (%.0f %% of the frames in its slower direction)",
                  100 * r.moving_fraction);
    r.why = why;
    return r;
  }
  if (!(r.inflation <= o.max_inflation)) {
    std::snprintf(why, sizeof why, "ill-conditioned fit (variance inflation %.0f)", r.inflation);
    r.why = why;
    return r;
  }
  const Eigen::VectorXd x = norms.cwiseInverse().asDiagonal() * ldlt.solve(An.transpose() * y);
  r.estimated = true;
  r.coulomb = std::clamp(x(0), 0.0, tau_max);
  r.fitted_viscous = x(1), r.viscous_estimated = o.apply_viscous;
  if (o.apply_viscous) r.viscous = std::clamp(x(1), 0.0, tau_max / std::max(speed_max, 1e-9));
  r.clamped = r.coulomb != x(0) || (o.apply_viscous && r.viscous != x(1));
  return r;
}

}  // namespace

FrictionEstimate estimate_friction(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                                   const servo::TickClock& clock, const MeasuredTrial& trial,
                                   const FrictionFitOptions& o) {
  const double camera_hz = clock.timing.camera_hz;
  const auto edge = static_cast<std::size_t>(std::lround(o.edge * camera_hz));
  if (trial.measured.size() < 2 * edge + 20)
    fail("friction estimate", "the trial has " + std::to_string(trial.measured.size()) + " frames, at least " +
                                  std::to_string(2 * edge + 20) + " are needed");
  const MeasuredMotion m = measured_motion(model, trial.measured, camera_hz, o.smoothing_hz);
  const std::vector<Vec6d> drive = drive_torques(model, lambda, clock, trial.command, m);
  const std::vector<Vec6d> rigid = rigid_torques(model, lambda, m);
  const std::size_t covered =
      std::min(trial.measured.size(), trial.command.size() / static_cast<std::size_t>(clock.timing.ticks_per_frame()));
  if (covered < 2 * edge + 20)
    fail("friction estimate", "the trial's command covers " + std::to_string(covered) + " frames, at least " +
                                  std::to_string(2 * edge + 20) + " are needed");
  const std::size_t last = covered - edge;
  FrictionEstimate out;
  for (int i = 0; i < 6; ++i)
    out[static_cast<std::size_t>(i)] = fit_joint(i, lambda, model.friction_epsilon, m, drive, rigid, edge, last, o);
  return out;
}

sim::LambdaVector<double> with_friction(const sim::LambdaVector<double>& lambda, const FrictionEstimate& e) {
  sim::LambdaVector<double> out = lambda;
  for (int i = 0; i < 6; ++i) {
    out(sim::coulomb_index(i)) = e[static_cast<std::size_t>(i)].coulomb;
    out(sim::viscous_index(i)) = e[static_cast<std::size_t>(i)].viscous;
  }
  return out;
}

std::string describe(const FrictionEstimate& e, const sim::LambdaVector<double>& model) {
  std::string out;
  char line[320];
  for (int i = 0; i < 6; ++i) {
    const JointFriction& f = e[static_cast<std::size_t>(i)];
    if (f.estimated && f.viscous_estimated)
      std::snprintf(line, sizeof line, "joint %d: Coulomb %.2f N m, viscous %.2f N m s/rad estimated (model %.2f, %.2f)%s\n",
                    i + 1, f.coulomb, f.viscous, model(sim::coulomb_index(i)), model(sim::viscous_index(i)),
                    f.clamped ? ", held at a physical bound" : "");
    else if (f.estimated)
      std::snprintf(line, sizeof line, "joint %d: Coulomb %.2f N m estimated (model %.2f)%s, viscous %.2f N m s/rad kept (fit %.2f)\n",
                    i + 1, f.coulomb, model(sim::coulomb_index(i)), f.clamped ? ", held at a physical bound" : "", f.viscous,
                    f.fitted_viscous);
    else
      std::snprintf(line, sizeof line, "joint %d: kept Coulomb %.2f N m, viscous %.2f N m s/rad: %s\n", i + 1, f.coulomb,
                    f.viscous, f.why.c_str());
    out += line;
  }
  return out;
}

}  // namespace vcloe::control
