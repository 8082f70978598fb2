#pragma once
// vcloe/control/drives_model.hpp — the drives' loop as a model sees it, for learning's update
// L = P^-1 (Bristow et al. 2006, "plant inversion"; Abdellatif & Heimann 2006 §5.2.1: "choosing L
// to be P^-1 would lead to immediate zero tracking"). P is the map from a change of the joint
// command to the change of the joint motion it makes: the drives' PID (eq. 31) against the
// joint-space inertia M_theta = J_ad^-T M J_ad^-1 (Li et al. 2019 eqs. 8, 17, 23) and the viscous
// friction b (eq. 24), linearised about the reference:
//   lp e + li int e + ld e_dot = M_theta dtheta_ddot + b dtheta_dot,   e = dU - dtheta
//   => dU = P^-1 dtheta = dtheta + D^-1 (M_theta dtheta_ddot + b dtheta_dot)
// with D^-1 the inverse of the drives' law in the loop's discrete time (control::InverseDrives,
// the pre-correction's). Per joint and Laplace: P(s) = (ld s^2 + lp s + li) / (m s^3 + (ld + b)
// s^2 + lp s + li): a lag of about m / ld above lp / ld — what the fixed lead of the plain law
// approximates. Coulomb friction is left out: a repeated disturbance the learning takes up.
#include <complex>
#include <vector>

#include "vcloe/servo/controllers.hpp"
#include "vcloe/servo/reference.hpp"
#include "vcloe/sim/parameters.hpp"

namespace vcloe::control {

struct DrivesModel {
  servo::DriveGains<double> gains{0, 0, 0};
  double controller_period = 0;    // s
  std::vector<Mat6d> inertia;      // M_theta at each frame's reference pose (kg m^2; frame j: ticks j*tpf ...)
  int ticks_per_frame = 1;
  Vec6d viscous = Vec6d::Zero();   // b per joint (N m s / rad)
};

// The model's drives along the reference (lambda: its Xi, friction and gains). Throws
// vcloe::Error naming the frame of a pose the model cannot reach, or gains the inverse does not
// exist for (control::check_drives_invertible).
DrivesModel drives_model(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                         const servo::PreparedReference& reference);

// P^-1 of a joint-motion change given per controller tick (starting at rest: the drives'
// integrators at zero): the command change that makes it, per tick.
std::vector<Vec6d> invert_drives(const DrivesModel& drives, const std::vector<Vec6d>& joint_change);

// |P(i w)| and arg P(i w) of joint i at frame j's inertia (the stability condition's check).
std::complex<double> drives_response(const DrivesModel& drives, std::size_t frame, int joint, double omega);

}  // namespace vcloe::control
