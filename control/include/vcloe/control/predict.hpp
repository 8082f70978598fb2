#pragma once
// vcloe/control/predict.hpp — what the drives and the joints carry along a motion, from the
// model's inverse dynamics (sim/dynamics.hpp: M, C, G, friction by virtual work, Li et al. 2019
// eqs. 17-25): the drive torques tau_a = J_ad^-T (M v_dot + C v + G) + tau_fric, and the forces
// in each leg's three joints (what Gnad et al. 2024 plan motions against). Both are linear in
// Xi, so an uncertainty of Xi maps exactly through their Jacobian in Xi (tau_a: J_ad^-T Gamma,
// eq. 25): sigma_y^2 = diag(A Sigma_Xi A^T).
//
// Joint forces of leg i (base frame O, N), by virtual work on the leg alone: the platform moves
// A_i; the crank angle and the link's motion follow from A_dot (theta_dot = l.A_dot / m, eq. 8;
// the link's twist through J_b = K_b P_i, P_i = [I, -[R a_i]x] maps v to A_dot). With W_b the
// wrench each body needs, [m (c_ddot - g); I w_dot + w x I w], and tau_net = tau_a - tau_fric
// the torque that reaches the crank:
//   f_A = tau_net l / m - K_a^T W_crank - K_b^T W_link     (on the platform, from the link, at A_i)
//   f_T = f_A + W_link,force                                (on the link, from the crank, at T_i)
//   f_B = f_T + W_crank,force                               (on the crank, from the base, at B_i)
// Their sum over the legs, sum P_i^T f_A, is the platform's own wrench (a check in the tests).
#include <array>
#include <vector>

#include "vcloe/control/motion.hpp"
#include "vcloe/sim/kinematics.hpp"

namespace vcloe::control {

// The 60 quantities at one instant: tau_a (6), then per leg f_B, f_T, f_A (3 each, 54).
inline constexpr int kLoadSize = 60;
using LoadVector = Eigen::Matrix<double, kLoadSize, 1>;
using LoadJacobian = Eigen::Matrix<double, kLoadSize, sim::kNumXi>;
using XiCovariance = Eigen::Matrix<double, sim::kNumXi, sim::kNumXi>;

inline constexpr int torque_row(int leg) { return leg; }
// joint 0: base (B), 1: crank tip (T), 2: platform (A); component 0..2 (x, y, z in O).
inline constexpr int force_row(int leg, int joint, int component) { return 6 + 9 * leg + 3 * joint + component; }

// The load at (chi, v, v_dot) for values xi; false if chi is unreachable.
bool drive_load(const sim::RobotModel& model, const MotionSample& s, const sim::XiVector<double>& xi, LoadVector& load);
// Its Jacobian in Xi (the load is linear in Xi: load = A xi).
bool drive_load_jacobian(const sim::RobotModel& model, const MotionSample& s, LoadJacobian& A);

// The load along a sampled motion, and its standard deviation when a covariance of Xi is given.
// The motion is the reference's, the marker frame's on a calibrated model: the load is E's under it
// (platform_motion).
struct Prediction {
  double period = 0;
  std::vector<LoadVector> load, sigma;  // sigma empty without a covariance
};
// Throws vcloe::Error naming the time of the first unreachable pose.
Prediction predict(const sim::RobotModel& model, const sim::XiVector<double>& xi, const SampledMotion& motion,
                   const XiCovariance* covariance = nullptr);

// The platform's own wrench [m (a - g); I w_dot + w x I w] about E (for the force balance check).
Vec6d platform_wrench(const sim::RobotModel& model, const MotionSample& s, const sim::XiVector<double>& xi);

}  // namespace vcloe::control
