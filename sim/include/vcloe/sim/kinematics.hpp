#pragma once
// vcloe/sim/kinematics.hpp — inverse kinematics, Jacobians and their time derivatives of the
// 6-RSS robot (Li et al. 2019 §2.1, eqs. 2-16, 29; Appendix A eqs. A1-A6).
//
// Everything is expressed in the base frame O. With v_E = [h_dot; omega] the platform twist:
//   theta_dot        = J_ad v_E                      (eq. 8)
//   [c_w_dot; w1]    = J_a  v_E   per wrench COM     (eq. 10)
//   [c_l_dot; w2]    = J_b  v_E   per link COM       (eq. 16)
//   theta_dot        = J_theta chi_dot               (eq. 29)
// J_dot are the exact time derivatives along (chi, v_E); they are derived from the same
// closure vectors rather than transcribed from Appendix A (see docs/model.md for the
// correspondence). Templated on the scalar so that ceres::Jet flows through.
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

#include "vcloe/core/rotation.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::sim {

// Closure of one leg at a pose (positions only).
template <typename T>
struct LegGeometry {
  T theta{};     // actuated joint angle (rad)
  Vec3<T> s;     // joint axis
  Vec3<T> a;     // R a_i: E -> A_i in O
  Vec3<T> w;     // crank B_i -> T_i in O at theta
  Vec3<T> l;     // link T_i -> A_i in O
  T m{};         // (w x l) . s, the diagonal of J_a1 (eq. 7)
};

// Velocity level of one leg: Jacobians and their time derivatives.
template <typename T>
struct LegJacobians {
  T theta_dot{};
  Row6<T> J_ad, J_ad_dot;  // row i of J_ad (eq. 8) and its derivative (eq. A2)
  Mat6<T> J_a, J_a_dot;    // wrench COM twist (eq. 10, A1, A3)
  Mat6<T> J_b, J_b_dot;    // link COM twist (eq. 16, A4-A6)
};

template <typename T>
struct Kinematics {
  Mat3<T> R;
  std::array<LegGeometry<T>, kLegs> geometry;
  std::array<LegJacobians<T>, kLegs> jacobians;  // valid after compute_jacobians

  Mat6<T> J_ad() const {
    Mat6<T> J;
    for (int i = 0; i < kLegs; ++i) J.row(i) = jacobians[i].J_ad;
    return J;
  }
  Mat6<T> J_ad_dot() const {
    Mat6<T> J;
    for (int i = 0; i < kLegs; ++i) J.row(i) = jacobians[i].J_ad_dot;
    return J;
  }
  Vec6<T> theta() const {
    Vec6<T> q;
    for (int i = 0; i < kLegs; ++i) q(i) = geometry[i].theta;
    return q;
  }
  Vec6<T> theta_dot() const {
    Vec6<T> q;
    for (int i = 0; i < kLegs; ++i) q(i) = jacobians[i].theta_dot;
    return q;
  }
};

namespace detail {
// The value part of a scalar (a double, or a ceres::Jet's real part).
template <typename T>
double value_of(const T& x) {
  if constexpr (std::is_arithmetic_v<T>) {
    return static_cast<double>(x);
  } else {
    return x.a;
  }
}

// x in (-pi, pi], in constant time: the whole turns taken off at once, never in 2 pi steps one
// by one (a reading of 1e10 rad would take 1.6e9 of them, 1e308 for ever). Beyond 1e9 rad the
// turns are no longer counted exactly by a double's angle: NaN, which no comparison accepts.
template <typename T>
T wrap_angle(T x) {
  const double pi = 3.14159265358979323846;
  const double v = value_of(x);
  if (!(std::abs(v) <= 1e9)) return T(std::numeric_limits<double>::quiet_NaN());
  if (v > pi || v <= -pi) x -= T(2 * pi * std::round(v / (2 * pi)));
  if (value_of(x) > pi) x -= T(2 * pi);  // rounding at the edge: once at most
  if (value_of(x) <= -pi) x += T(2 * pi);
  return x;
}
}  // namespace detail

// Closed-form IK of one leg: with d = A_i - B_i, |d - w(theta)| = L reads
// a cos(theta) + b sin(theta) = c (docs/design.md §4). Returns false if unreachable.
template <typename T>
bool leg_angle(const Leg& leg, const Vec3<T>& d, int branch, T& theta) {
  using std::acos;
  using std::atan2;
  using std::sqrt;
  const Vec3<T> s = leg.axis.cast<T>();
  const Vec3<T> w0 = leg.wrench.cast<T>();
  const T a = d.dot(w0);
  const T b = d.dot(s.cross(w0));
  const T c = (d.squaredNorm() + w0.squaredNorm() - T(leg.link_length * leg.link_length)) / T(2);
  const T r = sqrt(a * a + b * b);
  if (!(r > T(1e-12))) return false;
  const T ratio = c / r;
  if (!(ratio <= T(1)) || !(ratio >= T(-1))) return false;
  theta = detail::wrap_angle<T>(atan2(b, a) + T(branch) * acos(ratio));
  return true;
}

// Positions: fills R and every leg's geometry. Returns false (and sets failing_leg) if a leg
// cannot close at chi.
template <typename T>
bool compute_geometry(const RobotModel& model, const Vec6<T>& chi, Kinematics<T>& k,
                      int* failing_leg = nullptr) {
  using std::cos;
  using std::sin;
  k.R = rotation_of<T>(chi);
  const Vec3<T> E = chi.template head<3>();
  for (int i = 0; i < kLegs; ++i) {
    const Leg& leg = model.legs[i];
    LegGeometry<T>& g = k.geometry[i];
    g.s = leg.axis.cast<T>();
    g.a = k.R * leg.platform_joint.cast<T>();
    const Vec3<T> d = E + g.a - leg.base_joint.cast<T>();
    if (!leg_angle<T>(leg, d, leg.branch, g.theta)) {
      if (failing_leg) *failing_leg = i;
      return false;
    }
    const Vec3<T> w0 = leg.wrench.cast<T>();
    g.w = cos(g.theta) * w0 + sin(g.theta) * g.s.cross(w0);  // Rodrigues, w0 perpendicular to s
    g.l = d - g.w;
    g.m = g.w.cross(g.l).dot(g.s);
  }
  return true;
}

// Velocities: Jacobians and their time derivatives along the twist v (requires geometry).
template <typename T>
void compute_jacobians(const RobotModel& model, const Vec6<T>& v, Kinematics<T>& k) {
  const Vec3<T> h_dot = v.template head<3>();
  const Vec3<T> omega = v.template tail<3>();
  const T rho_w = T(model.wrench_com), rho_l = T(model.link_com);
  for (int i = 0; i < kLegs; ++i) {
    const LegGeometry<T>& g = k.geometry[i];
    LegJacobians<T>& j = k.jacobians[i];
    const T L2 = T(model.legs[i].link_length * model.legs[i].link_length);
    const Mat3<T> Sl = skew<T>(g.l), Sw = skew<T>(g.w), Sa = skew<T>(g.a);

    // eq. (7)-(8): J_ad,i = [l^T, (a x l)^T] / m
    Row6<T> row;
    row << g.l.transpose(), g.a.cross(g.l).transpose();
    j.J_ad = row / g.m;
    j.theta_dot = j.J_ad.dot(v);

    // Rates of the closure vectors: a_dot = w x a, w_dot = theta_dot s x w, l_dot = A_dot - T_dot.
    const Vec3<T> a_dot = omega.cross(g.a);
    const Vec3<T> w_dot = j.theta_dot * g.s.cross(g.w);
    const Vec3<T> l_dot = h_dot + a_dot - w_dot;
    const T m_dot = g.s.dot(w_dot.cross(g.l) + g.w.cross(l_dot));
    Row6<T> row_dot;
    row_dot << l_dot.transpose(), (a_dot.cross(g.l) + g.a.cross(l_dot)).transpose();
    j.J_ad_dot = row_dot / g.m - (m_dot / (g.m * g.m)) * row;  // eq. (A2)

    // eq. (9)-(10): wrench COM c_w = rho_w w about the fixed B_i; omega_1 = s theta_dot.
    const Vec3<T> c_w = rho_w * g.w;
    const Vec3<T> c_w_dot = rho_w * w_dot;
    j.J_a.template topRows<3>() = g.s.cross(c_w) * j.J_ad;
    j.J_a.template bottomRows<3>() = g.s * j.J_ad;
    j.J_a_dot.template topRows<3>() = g.s.cross(c_w_dot) * j.J_ad + g.s.cross(c_w) * j.J_ad_dot;  // (A3)
    j.J_a_dot.template bottomRows<3>() = g.s * j.J_ad_dot;                                        // (A1)

    // eq. (12)-(13): |l|^2 omega_2 = [l]x h_dot - [l]x[a]x omega + [l]x[w]x s theta_dot.
    Mat36<T> J_bd;
    J_bd.template leftCols<3>() = Sl;
    J_bd.template rightCols<3>() = -Sl * Sa;
    J_bd += (Sl * Sw * g.s) * j.J_ad;
    J_bd /= L2;
    const Mat3<T> Sl_dot = skew<T>(l_dot), Sw_dot = skew<T>(w_dot), Sa_dot = skew<T>(a_dot);
    Mat36<T> J_bd_dot;  // eq. (A5)
    J_bd_dot.template leftCols<3>() = Sl_dot;
    J_bd_dot.template rightCols<3>() = -Sl_dot * Sa - Sl * Sa_dot;
    J_bd_dot += ((Sl_dot * Sw + Sl * Sw_dot) * g.s) * j.J_ad + (Sl * Sw * g.s) * j.J_ad_dot;
    J_bd_dot /= L2;

    // eq. (14)-(15): c_l = w + rho_l l, c_l_dot = -[w]x s theta_dot - rho_l [l]x omega_2.
    const Mat36<T> J_bu = -(Sw * g.s) * j.J_ad - rho_l * Sl * J_bd;
    const Mat36<T> J_bu_dot = -(Sw_dot * g.s) * j.J_ad - (Sw * g.s) * j.J_ad_dot -
                              rho_l * Sl_dot * J_bd - rho_l * Sl * J_bd_dot;  // eq. (A6)
    j.J_b.template topRows<3>() = J_bu;
    j.J_b.template bottomRows<3>() = J_bd;
    j.J_b_dot.template topRows<3>() = J_bu_dot;
    j.J_b_dot.template bottomRows<3>() = J_bd_dot;
  }
}

// Both levels at once. Returns false if chi is not reachable.
template <typename T>
bool compute_kinematics(const RobotModel& model, const Vec6<T>& chi, const Vec6<T>& v,
                        Kinematics<T>& k) {
  if (!compute_geometry<T>(model, chi, k)) return false;
  compute_jacobians<T>(model, v, k);
  return true;
}

// Joint angles theta = IK(chi). Returns false if some leg cannot close.
template <typename T>
bool inverse_kinematics(const RobotModel& model, const Vec6<T>& chi, Vec6<T>& theta,
                        int* failing_leg = nullptr) {
  Kinematics<T> k;
  if (!compute_geometry<T>(model, chi, k, failing_leg)) return false;
  theta = k.theta();
  return true;
}

// J_theta = J_ad blkdiag(I, J_e): theta_dot = J_theta chi_dot (eq. 29).
template <typename T>
Mat6<T> J_theta(const Kinematics<T>& k, const Vec6<T>& chi) {
  Mat6<T> B = Mat6<T>::Identity();
  B.template bottomRightCorner<3, 3>() = euler_rate_jacobian<T>(chi(3), chi(4));
  return k.J_ad() * B;
}

// d/dt J_theta along chi_dot (requires jacobians computed with v = blkdiag(I, J_e) chi_dot).
template <typename T>
Mat6<T> J_theta_dot(const Kinematics<T>& k, const Vec6<T>& chi, const Vec6<T>& chi_dot) {
  Mat6<T> B = Mat6<T>::Identity(), B_dot = Mat6<T>::Zero();
  B.template bottomRightCorner<3, 3>() = euler_rate_jacobian<T>(chi(3), chi(4));
  B_dot.template bottomRightCorner<3, 3>() =
      euler_rate_jacobian_dot<T>(chi(3), chi(4), chi_dot(3), chi_dot(4));
  return k.J_ad_dot() * B + k.J_ad() * B_dot;
}

// ---- Limits (double only: they are decisions, not differentiated) -------------------------

enum class PoseStatus { Ok, Unreachable, JointLimit, LegSingular, ParallelSingular, OtherAssemblyMode };

struct PoseCheck {
  PoseStatus status = PoseStatus::Ok;
  int leg = -1;                    // offending leg (0-based) where applicable
  Vec6d theta = Vec6d::Zero();     // joint angles if reachable
  double min_transmission = 0.0;   // min_i |(w x l).s| / (|w| |l|)
  double parallel_conditioning = 0.0;  // sigma_min / sigma_max of the normalised J_a2
  bool ok() const { return status == PoseStatus::Ok; }
  std::string describe() const;    // "joint 3 at 1.02 rad outside +-0.9948 rad", ...
};

// Reachability, joint range, the two singularity margins and the assembly mode (that of the
// robot file's home pose), documented in docs/model.md.
PoseCheck check_pose(const RobotModel& model, const Vec6d& chi);

// The assembly mode of the platform at chi: the sign of det J_a2 (eq. 7), +1 or -1; 0 where a leg
// cannot close or J_a2 is singular. Each leg's IK branch is fixed by `home`, but the six closures
// do not fix the platform's side of a parallel singularity: the mirror image of a pose through the
// base plane has the same joint angles (docs/model.md). A motion that stays clear of parallel
// singularities never changes this sign, so a pose whose sign differs from home's is one the robot
// cannot reach from home.
int assembly_mode(const RobotModel& model, const Vec6d& chi);

// Newton's method on the six closure equations: the pose whose IK equals theta, started
// from `guess`. Tools and tests only — the method never needs it at run time.
struct ForwardKinematicsResult {
  Vec6d chi = Vec6d::Zero();
  bool converged = false;
  int iterations = 0;
  double residual = 0.0;  // max |IK(chi) - theta| (rad)
};
ForwardKinematicsResult forward_kinematics(const RobotModel& model, const Vec6d& theta,
                                           const Vec6d& guess, double tolerance = 1e-12,
                                           int max_iterations = 50);

// Where a robot stands whose drives hold the joint command `encoders` (at rest, eq. 31's integral
// settles on the encoder reading, docs/calibration.md): the pose whose crank angles are
// encoders - encoder_offsets(model). `chi` is the guess and the answer; when its crank angles are
// those already (within 1e-12 rad) it is kept bit for bit, else FK from it. False if the guess
// is outside the workspace or FK does not converge.
bool pose_at_encoders(const RobotModel& model, const Vec6d& encoders, Vec6d& chi);

// The pose of E that puts the model's marker frame (RobotModel::marker_frame, the frame the camera
// measures and the loop servoes onto the reference) at `marker`: T_OE = T_OM T_EM^-1, the inverse
// of pose_of_attached. Without a marker frame, `marker` itself, bit for bit.
Vec6d platform_pose_of_marker(const RobotModel& model, const Vec6d& marker);

// The encoder readings with the model's marker frame at `marker`: the crank angles of IK at
// platform_pose_of_marker plus encoder_offsets — the joint command whose drives hold the marker
// frame there (the inverse of pose_at_encoders composed with the marker frame; the calibrated
// robot file's kinematics, docs/calibration.md). Without a marker frame and encoder zeros, IK of
// `marker` bit for bit. False if the pose is not reachable.
bool encoders_at_marker(const RobotModel& model, const Vec6d& marker, Vec6d& encoders);

// The encoder readings `encoders` checked as a place to be (kinematics --theta, robot serve
// --stand-at): `chi` set by pose_at_encoders (all NaN if FK does not converge), then the joint
// range on the angles AS READ less the offsets — FK is periodic, so 0.1 + 2 pi rad finds the pose
// of 0.1 rad, yet a drive at 6.38 rad is outside +-limits.joint — then check_pose's margins.
// Angles more than kFarTurns turns beyond +-limits.joint are refused at once (JointLimit, chi NaN):
// no FK is tried on them.
inline constexpr double kFarTurns = 2.0;
PoseCheck check_encoders(const RobotModel& model, const Vec6d& encoders, Vec6d& chi);

// The one refusal of joint angles outside the range, for every option that gives them
// (`kinematics --theta`, `robot serve`/`rig run --stand-at`): "" unless check_encoders' `c` is
// JointLimit, else "joint 2 at 1e+10 rad is outside the joint range +-0.9948 rad[ less its
// encoder_offset] (limits.joint of FILE)". Said before anything about forward kinematics: an
// angle out of range is the reason, whether or not a pose was found for it.
std::string joint_range_problem(const RobotModel& model, const Vec6d& encoders, const PoseCheck& c,
                                const std::string& limits_of);

}  // namespace vcloe::sim
