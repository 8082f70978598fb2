#pragma once
// vcloe/sim/dynamics_direct.hpp — the inverse dynamics of eq. (17) in closure-vector form:
// no Jacobian matrices, no M, no C. Each body's velocity and acceleration follow directly from
// the closure vectors, and J^T F is applied through the structure of J_a and J_b:
//
//   theta_dot  = (l.h_dot + (a x l).w) / m                      m = (w x l).s   (eqs. 6-8)
//   theta_ddot = (l.h_ddot + (a x l).w_dot + l_dot.h_dot + (a_dot x l + a x l_dot).w
//                 - m_dot theta_dot) / m                         (derivative of eq. 6)
//   u = A_dot - T_dot = l_dot,   w2 = l x u / |l|^2,   w2_dot = l x u_dot / |l|^2   (eq. 12)
//   wrench: J_a^T F = J_ad,i^T ((s x c_w).f + s.n)                                (eq. 10)
//   link:   J_b^T F = [p; a x p] + J_ad,i^T ((s x w).(f - p)),
//           p = ((rho l x f + n) x l) / |l|^2                                      (eqs. 13-16)
//
// With tau_a given, returns the residual tau_g - J_ad^T tau_a (zero on the motion tau_a makes).
// Same result as inverse_dynamics (tested to 1e-12), several times cheaper, which matters
// where it is differentiated with Jets at every integration stage (oe_ident/sensitivity).
//
// Two scalar types: T for what the derivative is taken through (the pose and the twist), C for
// the constants of that derivative (the acceleration, Xi, the drive torques; C = T by default).
// With T a ceres::Jet and C double, a product of a Jet by a constant is a Jet times a double
// (each derivative component one multiplication) instead of a Jet times a Jet with a zero
// derivative (two and an addition) — the same numbers: x * 0 + y = y exactly.
#include "vcloe/sim/dynamics.hpp"

namespace vcloe::sim {

template <typename T, typename C = T>
bool inverse_dynamics_direct(const RobotModel& model, const Vec6<T>& chi, const Vec6<T>& v, const Vec6<C>& v_dot,
                             const XiVector<C>& xi, Vec6<T>& tau_g, const Vec6<C>* tau_a = nullptr) {
  Kinematics<T> k;
  if (!compute_geometry<T>(model, chi, k)) return false;
  const Vec3<C> g = model.gravity.cast<C>();
  const Vec3<T> h_dot = v.template head<3>(), omega = v.template tail<3>();
  const Vec3<C> h_ddot = v_dot.template head<3>(), omega_dot = v_dot.template tail<3>();

  // Platform: Newton-Euler about E with first moment h_O = R h (dynamics.hpp's header).
  const Mat3<T> Ip = k.R * Vec3<C>(xi(1), xi(2), xi(3)).asDiagonal() * k.R.transpose();  // detail::platform_inertia
  const Vec3<T> h = k.R * Vec3<C>(xi(first_moment_index(0)), xi(first_moment_index(1)),
                                  xi(first_moment_index(2)));  // detail::platform_first_moment
  tau_g.template head<3>() = (xi(platform_index(0)) * (h_ddot - g)).template cast<T>() + omega_dot.cross(h) +
                             omega.cross(omega.cross(h));
  tau_g.template tail<3>() = Ip * omega_dot + omega.cross(Ip * omega) + h.cross(h_ddot - g);

  const C rho_w = C(model.wrench_com), rho_l = C(model.link_com);
  for (int i = 0; i < kLegs; ++i) {
    const LegGeometry<T>& gi = k.geometry[i];
    const Vec3<T>& s = gi.s;
    const Vec3<T> axl = gi.a.cross(gi.l);
    const C L2 = C(model.legs[i].link_length * model.legs[i].link_length);
    // Velocities.
    const T theta_dot = (gi.l.dot(h_dot) + axl.dot(omega)) / gi.m;
    const Vec3<T> a_dot = omega.cross(gi.a);
    const Vec3<T> sxw = s.cross(gi.w);
    const Vec3<T> w_dot = theta_dot * sxw;
    const Vec3<T> u = h_dot + a_dot - w_dot;  // = l_dot
    const T m_dot = s.dot(w_dot.cross(gi.l) + gi.w.cross(u));
    // Accelerations.
    const T theta_ddot = (gi.l.dot(h_ddot) + axl.dot(omega_dot) + u.dot(h_dot) +
                          (a_dot.cross(gi.l) + gi.a.cross(u)).dot(omega) - m_dot * theta_dot) /
                         gi.m;
    const Vec3<T> w_ddot = theta_ddot * sxw + theta_dot * s.cross(w_dot);
    const Vec3<T> u_dot = h_ddot + omega_dot.cross(gi.a) + omega.cross(a_dot) - w_ddot;
    const Vec3<T> omega2_dot = gi.l.cross(u_dot) / L2;

    // Generalized-force direction of the actuated joint: J_ad,i^T = [l; a x l] / m.
    Vec6<T> jad;
    jad << gi.l / gi.m, axl / gi.m;

    // Wrench: COM c_w = rho_w w about B_i, rotation theta about s (eq. 19). s is its principal
    // z axis, so I w1 = Iz theta_dot s, w1 x I w1 = 0 and s . n = Iz theta_ddot.
    const Vec3<T> fw = xi(wrench_index(i, 0)) * (rho_w * w_ddot - g);
    T joint = (rho_w * sxw).dot(fw) + xi(wrench_index(i, 3)) * theta_ddot;

    // Link: COM c_l = B_i + w + rho_l l. w2 and w2_dot are perpendicular to l, where the
    // axisymmetric tensor acts as (Ix + Iy)/2 (docs/model.md): n = I_perp w2_dot.
    const Vec3<T> fl = xi(link_index(i, 0)) * (w_ddot + rho_l * u_dot - g);
    const Vec3<T> nl = C(0.5) * (xi(link_index(i, 1)) + xi(link_index(i, 2))) * omega2_dot;
    const Vec3<T> p = (rho_l * gi.l.cross(fl) + nl).cross(gi.l) / L2;
    tau_g.template head<3>() += p;
    tau_g.template tail<3>() += gi.a.cross(p);
    joint += sxw.dot(fl - p);

    // Joint friction (eq. 24).
    joint += xi(coulomb_index(i)) * detail::smooth_sign<T>(theta_dot, model.friction_epsilon) +
             xi(viscous_index(i)) * theta_dot;
    if (tau_a) joint -= (*tau_a)(i);  // residual form: tau_g - J_ad^T tau_a
    tau_g += jad * joint;
  }
  return true;
}

}  // namespace vcloe::sim
