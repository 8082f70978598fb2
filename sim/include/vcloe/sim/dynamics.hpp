#pragma once
// vcloe/sim/dynamics.hpp — virtual-work dynamics of the 6-RSS robot (Li et al. 2019 §2.2).
//
//   tau_g = M(chi) v_dot + C(chi, v) v + G(chi) + tau_f        (eq. 17)
//   M = M_p + sum_i J_a^T M_w J_a + J_b^T M_l J_b               (eq. 23)
//   C v, G likewise; tau_g = J_ad^T tau_a                       (eq. 23)
//   tau_f = J_ad^T (fc tanh(theta_dot / eps) + fv theta_dot)    (eq. 24, smooth sign)
//   v_dot = M^-1 (J_ad^T tau_a - C v - G - tau_f)               (eq. 40)
//   tau_g = Gamma(chi, v, v_dot) Xi                             (eq. 25)
//
// The platform is taken about E, its reference point, with first moment h = m c (c its centre of
// mass in E; Xi's mx_p, my_p, mz_p) and moments I_E about E: the spatial inertia of a body about a
// point other than its centre of mass (Featherstone 2008 §2.13), with h_O = R h and twist [h_dot; w],
//   M_p = [m 1, -[h_O]x; [h_O]x, I_E],
//   f = m (h_ddot - g) + w_dot x h_O + w x (w x h_O),
//   n = I_E w_dot + w x I_E w + h_O x (h_ddot - g)          (Newton-Euler about E),
// linear in [m, I_E, h] — the standard parameters of Mata et al. 2008 §2. With h = 0 (E the centre of
// mass) it is the symmetric platform of Li et al. 2019, bit for bit (the h terms add zeros).
// Body frames: platform axes = columns of R (Ix, Iy, Iz about them). Wrench: z = s_i, x along
// the crank, so only Iz (with m) enters when axes are fixed. Link: z along the link; the model
// assumes links do not spin about their axis (Li et al. 2019, assumption 2), which is consistent
// only for an axisymmetric link, so the transverse inertia is (Ix + Iy) / 2 and the spin
// inertia Iz never enters (docs/model.md). Xi, state and result share the scalar T.
#include <Eigen/Cholesky>

#include "vcloe/sim/kinematics.hpp"

namespace vcloe::sim {

template <typename T> using Regressor = Eigen::Matrix<T, 6, kNumXi>;

template <typename T>
struct DynamicsTerms {
  Mat6<T> M;      // mass matrix (eq. 23)
  Vec6<T> Cv;     // Coriolis/centrifugal generalized force C(chi, v) v
  Vec6<T> G;      // gravity generalized force
  Vec6<T> tau_f;  // friction generalized force (eq. 24)
};

namespace detail {

// World-frame inertia tensors for the three body kinds from [Ix, Iy, Iz].
template <typename T>
Mat3<T> platform_inertia(const Mat3<T>& R, const T& Ix, const T& Iy, const T& Iz) {
  return R * Vec3<T>(Ix, Iy, Iz).asDiagonal() * R.transpose();
}
template <typename T>
Mat3<T> wrench_inertia(const LegGeometry<T>& g, const T& Ix, const T& Iy, const T& Iz) {
  using std::sqrt;
  const Vec3<T> x = g.w / sqrt(g.w.squaredNorm());
  const Vec3<T> y = g.s.cross(x);
  return Ix * x * x.transpose() + Iy * y * y.transpose() + Iz * g.s * g.s.transpose();
}
template <typename T>
Mat3<T> link_inertia(const LegGeometry<T>& g, const T& Ix, const T& Iy, const T& Iz) {
  using std::sqrt;
  const Vec3<T> z = g.l / sqrt(g.l.squaredNorm());
  const Mat3<T> P = z * z.transpose();
  return T(0.5) * (Ix + Iy) * (Mat3<T>::Identity() - P) + Iz * P;
}

// Smooth sign: tanh(x / eps) (docs/design.md §4).
template <typename T>
T smooth_sign(const T& x, double eps) {
  using std::tanh;
  return tanh(x / T(eps));
}

// Adds body b's contribution J^T [m I, 0; 0, I] J, J^T (M J_dot v + [0; w x I w]) and
// J^T [-m g; 0] to the terms.
template <typename T>
void add_body(const Mat6<T>& J, const Mat6<T>& J_dot, const T& mass, const Mat3<T>& I,
              const Vec6<T>& v, const Vec3<T>& gravity, DynamicsTerms<T>& d) {
  Mat6<T> Mb = Mat6<T>::Zero();
  Mb.template topLeftCorner<3, 3>() = mass * Mat3<T>::Identity();
  Mb.template bottomRightCorner<3, 3>() = I;
  const Vec6<T> twist = J * v;
  const Vec3<T> omega = twist.template tail<3>();
  Vec6<T> bias = Mb * (J_dot * v);
  bias.template tail<3>() += omega.cross(I * omega);
  Vec6<T> weight = Vec6<T>::Zero();
  weight.template head<3>() = -mass * gravity;
  d.M.noalias() += J.transpose() * Mb * J;
  d.Cv.noalias() += J.transpose() * bias;
  d.G.noalias() += J.transpose() * weight;
}

// The platform's first moment h (in E) about E, added to the body taken as if its centre of mass
// were at E: the off-diagonal blocks of M_p, w x (w x h_O) and the moment of its weight.
template <typename T>
Vec3<T> platform_first_moment(const Mat3<T>& R, const XiVector<T>& xi) {
  return R * Vec3<T>(xi(first_moment_index(0)), xi(first_moment_index(1)), xi(first_moment_index(2)));
}
template <typename T>
void add_first_moment(const Vec3<T>& h, const Vec6<T>& v, const Vec3<T>& gravity, DynamicsTerms<T>& d) {
  const Mat3<T> hx = skew<T>(h);
  const Vec3<T> omega = v.template tail<3>();
  d.M.template topRightCorner<3, 3>() -= hx;
  d.M.template bottomLeftCorner<3, 3>() += hx;
  d.Cv.template head<3>() += omega.cross(omega.cross(h));
  d.G.template tail<3>() -= h.cross(gravity);
}

}  // namespace detail

// M, C v, G and tau_f at a state whose kinematics (geometry and Jacobians) are computed.
template <typename T>
void compute_dynamics_terms(const RobotModel& model, const Kinematics<T>& k, const Vec6<T>& v,
                            const XiVector<T>& xi, DynamicsTerms<T>& d) {
  d.M.setZero();
  d.Cv.setZero();
  d.G.setZero();
  d.tau_f.setZero();
  const Vec3<T> g = model.gravity.cast<T>();
  // Platform: twist [h_dot; omega] of E, so J = I; moments about E, then its first moment.
  detail::add_body<T>(Mat6<T>::Identity(), Mat6<T>::Zero(), xi(platform_index(0)),
                      detail::platform_inertia<T>(k.R, xi(1), xi(2), xi(3)), v, g, d);
  detail::add_first_moment<T>(detail::platform_first_moment<T>(k.R, xi), v, g, d);
  for (int i = 0; i < kLegs; ++i) {
    const auto& gi = k.geometry[i];
    const auto& ji = k.jacobians[i];
    detail::add_body<T>(ji.J_a, ji.J_a_dot, xi(wrench_index(i, 0)),
                        detail::wrench_inertia<T>(gi, xi(wrench_index(i, 1)), xi(wrench_index(i, 2)),
                                                  xi(wrench_index(i, 3))),
                        v, g, d);
    detail::add_body<T>(ji.J_b, ji.J_b_dot, xi(link_index(i, 0)),
                        detail::link_inertia<T>(gi, xi(link_index(i, 1)), xi(link_index(i, 2)),
                                                xi(link_index(i, 3))),
                        v, g, d);
    // eq. (24): joint friction mapped by J_ad^T.
    const T qd = ji.theta_dot;
    const T tau_joint = xi(coulomb_index(i)) * detail::smooth_sign<T>(qd, model.friction_epsilon) +
                        xi(viscous_index(i)) * qd;
    d.tau_f += ji.J_ad.transpose() * tau_joint;
  }
}

// Inverse dynamics (eq. 17): the generalized platform force tau_g for (chi, v, v_dot).
// Returns false if chi is unreachable.
template <typename T>
bool inverse_dynamics(const RobotModel& model, const Vec6<T>& chi, const Vec6<T>& v,
                      const Vec6<T>& v_dot, const XiVector<T>& xi, Vec6<T>& tau_g) {
  Kinematics<T> k;
  if (!compute_kinematics<T>(model, chi, v, k)) return false;
  DynamicsTerms<T> d;
  compute_dynamics_terms<T>(model, k, v, xi, d);
  tau_g = d.M * v_dot + d.Cv + d.G + d.tau_f;
  return true;
}

// Actuator torques from the generalized force: tau_g = J_ad^T tau_a (eq. 23).
template <typename T>
Vec6<T> actuator_torques(const Kinematics<T>& k, const Vec6<T>& tau_g) {
  return k.J_ad().transpose().partialPivLu().solve(tau_g);
}

// Actuator torques that hold the platform at rest at chi: tau_a = J_ad^-T G(chi) (eq. 23 with
// v = v_dot = 0; friction vanishes at rest). What a drive's integrator holds when the robot
// has been standing at chi. Returns false if chi is unreachable.
template <typename T>
bool holding_torques(const RobotModel& model, const Vec6<T>& chi, const XiVector<T>& xi, Vec6<T>& tau_a) {
  Kinematics<T> k;
  if (!compute_kinematics<T>(model, chi, Vec6<T>::Zero(), k)) return false;
  DynamicsTerms<T> d;
  compute_dynamics_terms<T>(model, k, Vec6<T>::Zero(), xi, d);
  tau_a = actuator_torques<T>(k, Vec6<T>(d.G + d.tau_f));
  return true;
}

// Forward dynamics (eq. 40) with the kinematics already computed: v_dot for joint torques tau_a.
template <typename T>
Vec6<T> forward_dynamics(const RobotModel& model, const Kinematics<T>& k, const Vec6<T>& v,
                         const Vec6<T>& tau_a, const XiVector<T>& xi) {
  DynamicsTerms<T> d;
  compute_dynamics_terms<T>(model, k, v, xi, d);
  const Vec6<T> rhs = k.J_ad().transpose() * tau_a - d.Cv - d.G - d.tau_f;
  return d.M.ldlt().solve(rhs);
}

template <typename T>
bool forward_dynamics(const RobotModel& model, const Vec6<T>& chi, const Vec6<T>& v,
                      const Vec6<T>& tau_a, const XiVector<T>& xi, Vec6<T>& v_dot) {
  Kinematics<T> k;
  if (!compute_kinematics<T>(model, chi, v, k)) return false;
  v_dot = forward_dynamics<T>(model, k, v, tau_a, xi);
  return true;
}

// The regressor Gamma (6 x 67, eq. 25): tau_g = Gamma Xi. Column k is the inverse dynamics
// with Xi = e_k, assembled per body from the same kinematics (it never calls the M, C, G path,
// so Gamma Xi = inverse_dynamics is a real check).
template <typename T>
void compute_regressor(const RobotModel& model, const Kinematics<T>& k, const Vec6<T>& v,
                       const Vec6<T>& v_dot, Regressor<T>& Gamma) {
  Gamma.setZero();
  const Vec3<T> g = model.gravity.cast<T>();
  // Columns of one body: [m, Ix, Iy, Iz] given its twist J v, acceleration J v_dot + J_dot v,
  // and unit-inertia tensors U_x, U_y, U_z (I = sum_k I_k U_k).
  auto body_columns = [&](const Mat6<T>& J, const Mat6<T>& J_dot, const Mat3<T> (&U)[3], int first) {
    const Vec6<T> twist = J * v;
    const Vec6<T> accel = J * v_dot + J_dot * v;
    const Vec3<T> omega = twist.template tail<3>();
    const Vec3<T> alpha = accel.template tail<3>();
    Vec6<T> f = Vec6<T>::Zero();
    f.template head<3>() = accel.template head<3>() - g;  // m (c_ddot - g)
    Gamma.col(first) += J.transpose() * f;
    for (int a = 0; a < 3; ++a) {
      Vec6<T> n = Vec6<T>::Zero();
      n.template tail<3>() = U[a] * alpha + omega.cross(U[a] * omega);  // I w_dot + w x I w
      Gamma.col(first + 1 + a) += J.transpose() * n;
    }
  };
  {
    Mat3<T> U[3];
    for (int a = 0; a < 3; ++a) U[a] = k.R.col(a) * k.R.col(a).transpose();
    body_columns(Mat6<T>::Identity(), Mat6<T>::Zero(), U, platform_index(0));
    // First moments: h_O = R e_a in the header's f and n (J = I).
    const Vec3<T> omega = v.template tail<3>(), alpha = v_dot.template tail<3>();
    const Vec3<T> a_g = v_dot.template head<3>() - g;
    for (int a = 0; a < 3; ++a) {
      const Vec3<T> e = k.R.col(a);
      Gamma.col(first_moment_index(a)) << alpha.cross(e) + omega.cross(omega.cross(e)), e.cross(a_g);
    }
  }
  for (int i = 0; i < kLegs; ++i) {
    const auto& gi = k.geometry[i];
    const auto& ji = k.jacobians[i];
    Mat3<T> Uw[3], Ul[3];
    for (int a = 0; a < 3; ++a) {
      Uw[a] = detail::wrench_inertia<T>(gi, T(a == 0), T(a == 1), T(a == 2));
      Ul[a] = detail::link_inertia<T>(gi, T(a == 0), T(a == 1), T(a == 2));
    }
    body_columns(ji.J_a, ji.J_a_dot, Uw, wrench_index(i, 0));
    body_columns(ji.J_b, ji.J_b_dot, Ul, link_index(i, 0));
    const T qd = ji.theta_dot;
    Gamma.col(coulomb_index(i)) = ji.J_ad.transpose() * detail::smooth_sign<T>(qd, model.friction_epsilon);
    Gamma.col(viscous_index(i)) = ji.J_ad.transpose() * qd;
  }
}

template <typename T>
bool regressor(const RobotModel& model, const Vec6<T>& chi, const Vec6<T>& v, const Vec6<T>& v_dot,
               Regressor<T>& Gamma) {
  Kinematics<T> k;
  if (!compute_kinematics<T>(model, chi, v, k)) return false;
  compute_regressor<T>(model, k, v, v_dot, Gamma);
  return true;
}

// ---- Energy (for the power-balance check and diagnostics) --------------------------------

// Kinetic energy 1/2 v^T M v.
template <typename T>
T kinetic_energy(const DynamicsTerms<T>& d, const Vec6<T>& v) {
  return T(0.5) * v.dot(d.M * v);
}

// Potential energy -sum_b m_b g . c_b with c_b the body COM in O (the platform's: E + R h / m).
template <typename T>
T potential_energy(const RobotModel& model, const Vec6<T>& chi, const Kinematics<T>& k,
                   const XiVector<T>& xi) {
  const Vec3<T> g = model.gravity.cast<T>();
  T V = -xi(platform_index(0)) * g.dot(chi.template head<3>()) - g.dot(detail::platform_first_moment<T>(k.R, xi));
  for (int i = 0; i < kLegs; ++i) {
    const auto& gi = k.geometry[i];
    const Vec3<T> B = model.legs[i].base_joint.cast<T>();
    const Vec3<T> c_w = B + T(model.wrench_com) * gi.w;
    const Vec3<T> c_l = B + gi.w + T(model.link_com) * gi.l;
    V -= xi(wrench_index(i, 0)) * g.dot(c_w) + xi(link_index(i, 0)) * g.dot(c_l);
  }
  return V;
}

}  // namespace vcloe::sim
