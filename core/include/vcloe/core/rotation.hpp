#pragma once
// vcloe/core/rotation.hpp — pose vocabulary shared by every module.
//
// Pose vector chi = [x, y, z, alpha, beta, gamma] (m, rad) with R = Rx(alpha) Ry(beta) Rz(gamma)
// (Li et al. 2019 eq. 1). Twist v = [h_dot; omega] with omega in the base frame, omega = J_e phi_dot
// (eq. 2). All functions are templated on the scalar so that ceres::Jet flows through.
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

namespace vcloe {

template <typename T> using Vec3 = Eigen::Matrix<T, 3, 1>;
template <typename T> using Vec6 = Eigen::Matrix<T, 6, 1>;
template <typename T> using Mat3 = Eigen::Matrix<T, 3, 3>;
template <typename T> using Mat6 = Eigen::Matrix<T, 6, 6>;
template <typename T> using Mat36 = Eigen::Matrix<T, 3, 6>;
template <typename T> using Row6 = Eigen::Matrix<T, 1, 6>;

using Vec3d = Vec3<double>;
using Vec6d = Vec6<double>;
using Mat3d = Mat3<double>;
using Mat6d = Mat6<double>;

// [v]x, the cross-product matrix: skew(a) * b = a x b.
template <typename T>
Mat3<T> skew(const Vec3<T>& v) {
  Mat3<T> S;
  S << T(0), -v.z(), v.y(), v.z(), T(0), -v.x(), -v.y(), v.x(), T(0);
  return S;
}

// R = Rx(alpha) Ry(beta) Rz(gamma) — eq. (1).
template <typename T>
Mat3<T> rotation_xyz(const T& alpha, const T& beta, const T& gamma) {
  using std::cos;
  using std::sin;
  const T ca = cos(alpha), sa = sin(alpha), cb = cos(beta), sb = sin(beta), cg = cos(gamma),
          sg = sin(gamma);
  Mat3<T> R;
  R << cb * cg, -cb * sg, sb,                       //
      ca * sg + cg * sb * sa, -sb * sa * sg + ca * cg, -cb * sa,  //
      sa * sg - ca * cg * sb, ca * sb * sg + cg * sa, cb * ca;
  return R;
}

template <typename T>
Mat3<T> rotation_of(const Vec6<T>& chi) {
  return rotation_xyz<T>(chi(3), chi(4), chi(5));
}

// Euler angles (alpha, beta, gamma) of R = Rx Ry Rz, beta in [-pi/2, pi/2].
inline Vec3d euler_xyz(const Mat3d& R) {
  const double beta = std::asin(std::clamp(R(0, 2), -1.0, 1.0));
  const double alpha = std::atan2(-R(1, 2), R(2, 2));
  const double gamma = std::atan2(-R(0, 1), R(0, 0));
  return {alpha, beta, gamma};
}

// A rigid transform x -> R x + p (a pose as a 4x4 transform), for any scalar: composed in the
// order of the frames' chain (T_OM = T_OE * T_EM), and read back as a pose vector chi (the
// Euler angles as euler_xyz, unclamped so that ceres::Jet flows through).
template <typename T>
struct Rigid {
  Mat3<T> R = Mat3<T>::Identity();
  Vec3<T> p = Vec3<T>::Zero();
  static Rigid of(const Vec6<T>& chi) { return {rotation_of<T>(chi), chi.template head<3>()}; }
  Rigid operator*(const Rigid& o) const { return {R * o.R, R * o.p + p}; }
  Rigid inverse() const { return {R.transpose(), -(R.transpose() * p)}; }
  Vec6<T> pose() const {
    using std::asin;
    using std::atan2;
    Vec6<T> chi;
    chi << p, atan2(-R(1, 2), R(2, 2)), asin(R(0, 2)), atan2(-R(0, 1), R(0, 0));
    return chi;
  }
};

// The pose of a frame M fixed to a body whose frame E stands at chi, M standing at `offset` in E:
// T_OM = T_OE T_EM. The camera sees the platform's marker frame so (sim::RobotModel::
// marker_frame): the virtual robot's camera and the twin's compose it here. offset 0: chi itself.
template <typename T>
Vec6<T> pose_of_attached(const Vec6<T>& chi, const Vec6<double>& offset) {
  if (offset == Vec6<double>::Zero()) return chi;
  return (Rigid<T>::of(chi) * Rigid<T>::of(offset.template cast<T>())).pose();
}

// J_e: omega = J_e(phi) * phi_dot — eq. (2).
template <typename T>
Mat3<T> euler_rate_jacobian(const T& alpha, const T& beta) {
  using std::cos;
  using std::sin;
  const T ca = cos(alpha), sa = sin(alpha), cb = cos(beta), sb = sin(beta);
  Mat3<T> Je;
  Je << T(1), T(0), sb,  //
      T(0), ca, -cb * sa,  //
      T(0), sa, cb * ca;
  return Je;
}

// d/dt J_e along (alpha_dot, beta_dot).
template <typename T>
Mat3<T> euler_rate_jacobian_dot(const T& alpha, const T& beta, const T& alpha_dot,
                                const T& beta_dot) {
  using std::cos;
  using std::sin;
  const T ca = cos(alpha), sa = sin(alpha), cb = cos(beta), sb = sin(beta);
  Mat3<T> Jd;
  Jd << T(0), T(0), cb * beta_dot,  //
      T(0), -sa * alpha_dot, sb * sa * beta_dot - cb * ca * alpha_dot,  //
      T(0), ca * alpha_dot, -sb * ca * beta_dot - cb * sa * alpha_dot;
  return Jd;
}

// Twist from pose rate: v = blkdiag(I, J_e) chi_dot (eqs. 2, 29).
template <typename T>
Vec6<T> twist_from_pose_rate(const Vec6<T>& chi, const Vec6<T>& chi_dot) {
  Vec6<T> v;
  v.template head<3>() = chi_dot.template head<3>();
  v.template tail<3>() = euler_rate_jacobian<T>(chi(3), chi(4)) * chi_dot.template tail<3>();
  return v;
}

// Twist rate from pose rate and acceleration: omega_dot = J_e phi_ddot + J_e_dot phi_dot (eq. 38).
template <typename T>
Vec6<T> twist_rate_from_pose(const Vec6<T>& chi, const Vec6<T>& chi_dot, const Vec6<T>& chi_ddot) {
  Vec6<T> a;
  a.template head<3>() = chi_ddot.template head<3>();
  a.template tail<3>() = euler_rate_jacobian<T>(chi(3), chi(4)) * chi_ddot.template tail<3>() +
                         euler_rate_jacobian_dot<T>(chi(3), chi(4), chi_dot(3), chi_dot(4)) *
                             chi_dot.template tail<3>();
  return a;
}

}  // namespace vcloe
