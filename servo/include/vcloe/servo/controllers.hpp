#pragma once
// vcloe/servo/controllers.hpp — the two control laws of the cascade (Li et al. 2019 Fig. 3).
//
// Outer visual servo (eq. 30) at the camera rate: joint position command U_theta from the
// Cartesian PID of the pose error mapped by J_theta (eq. 29), with the inverse-kinematics
// feedforward by default. Inner joint PID (eq. 31) at the controller rate, the model of the
// drive's built-in controller: derivatives are backward differences of held commands and
// encoder samples, as a real drive computes them. Templated on the scalar for ceres::Jet.
// The components that run them at their rates: visual_servo.hpp, twin.hpp.
#include "vcloe/core/rotation_difference.hpp"
#include "vcloe/servo/reference.hpp"
#include "vcloe/sim/parameters.hpp"

namespace vcloe::servo {

template <typename T>
struct OuterPid {
  Vec6<T> integral = Vec6<T>::Zero();  // integral of the pose error
  Vec6<T> previous_measured = Vec6<T>::Zero();
  bool has_previous = false;

  // Literal form: start the integrator so that U equals theta_start (docs/design.md §5).
  void start_literal(const OuterGains& g, const OuterReference& ref, const Vec6d& theta_start) {
    const Vec6d e_int = ref.J_theta.partialPivLu().solve(theta_start).cwiseQuotient(g.ki);
    integral = e_int.cast<T>();
  }

  // eq. (30): U = [IK(chi_d) +] J_theta [kp e + kd e_dot + ki int e], e = chi_d - chi_m. A pose
  // source may report any Euler triple of a rotation (gamma in [0, 2 pi), a wrap mid-run, the
  // other branch): chi_m is read as the triple nearest chi_d (euler_nearest; the pose itself, bit
  // for bit, when it is already), so the error and the rate are of rotations.
  Vec6<T> update(const OuterGains& g, const OuterReference& ref, const Vec6<T>& measured_as_sent, double dt) {
    const Vec6<T> chi_d = ref.chi_d.cast<T>();
    Vec6<T> measured = measured_as_sent;
    measured.template tail<3>() = euler_nearest<T>(Vec3<T>(measured_as_sent.template tail<3>()), Vec3<T>(chi_d.template tail<3>()));
    const Vec6<T> e = chi_d - measured;
    Vec6<T> measured_rate = Vec6<T>::Zero();
    if (has_previous) measured_rate = pose_difference<T>(measured, previous_measured) / T(dt);
    const Vec6<T> e_dot = ref.chi_dot_d.cast<T>() - measured_rate;
    integral += e * T(dt);
    previous_measured = measured;
    has_previous = true;
    const Vec6<T> pid = g.kp.cast<T>().cwiseProduct(e) + g.kd.cast<T>().cwiseProduct(e_dot) +
                        g.ki.cast<T>().cwiseProduct(integral);
    Vec6<T> U = ref.J_theta.cast<T>() * pid;
    if (!g.literal) U += ref.theta_d.cast<T>();
    return U;
  }
};

// The drives' gains (eq. 31), the last three entries of Lambda.
template <typename T>
struct DriveGains {
  T lp, li, ld;  // N*m/rad, N*m/(rad*s), N*m*s/rad
};

template <typename T>
DriveGains<T> drive_gains(const sim::LambdaVector<T>& lambda) {
  return {lambda(sim::kGainP), lambda(sim::kGainI), lambda(sim::kGainD)};
}

template <typename T>
struct InnerPid {
  Vec6<T> integral = Vec6<T>::Zero();
  Vec6<T> previous_command = Vec6<T>::Zero();
  Vec6<T> previous_theta = Vec6<T>::Zero();
  bool has_previous = false;
  Vec6<T> e = Vec6<T>::Zero(), e_dot = Vec6<T>::Zero();  // of the last update

  // A drive that has been holding its robot at rest: the integral carries the holding torque
  // (li int = tau_hold, U = theta), so the first update outputs tau_hold. Without integral
  // action (li = 0) the drive holds nothing and the integral stays zero.
  void start_holding(const DriveGains<T>& g, const Vec6<T>& tau_hold) {
    integral = g.li != T(0) ? Vec6<T>(tau_hold / g.li) : Vec6<T>::Zero();
  }

  // eq. (31): tau = lp (U - theta) + ld (U_dot - theta_dot) + li int (U - theta).
  Vec6<T> update(const DriveGains<T>& g, const Vec6<T>& U, const Vec6<T>& theta, double dt) {
    e = U - theta;
    integral += e * T(dt);
    e_dot = has_previous ? Vec6<T>(((U - previous_command) - (theta - previous_theta)) / T(dt)) : Vec6<T>::Zero();
    previous_command = U;
    previous_theta = theta;
    has_previous = true;
    return g.lp * e + g.ld * e_dot + g.li * integral;
  }
};

}  // namespace vcloe::servo
