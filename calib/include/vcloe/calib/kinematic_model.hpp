#pragma once
// vcloe/calib/kinematic_model.hpp — the geometric model a kinematic calibration fits (Li et al.
// 2018: static poses of a 6-RSS measured by the optical CMM at commanded joint angles, the
// sensor's external parameters estimated together with the kinematic errors; docs/calibration.md).
//
// Parameters (72, `KinematicParameters` ↔ a flat vector, order below, SI units):
//   per leg i (10): base joint centre B_i (3, frame O), crank length r_i, crank angle φ_i (the
//   drawn crank direction turned about the joint axis), encoder offset o_i (the encoder reads
//   the true angle + o_i), link length l_i, platform joint centre a_i (3, frame E);
//   then the marker frame χ_M (6: pose of the measured marker frame M in E) and the camera-to-base
//   residual χ_C (6: pose of the true base O in the base frame O' the camera reports poses in).
// The joint axes s_i and the drawn crank directions ŵ_i come from the robot file and are not fitted.
// Measurement model of one static pose held at encoder angles θ (the drives hold the encoder at
// the command, docs/calibration.md "Static measurement"):
//     χ_measured = pose( T(χ_C) · T(FK(θ − o; geometry)) · T(χ_M) ) + noise
// FK is Newton's method on the six loop closures |A_i − T_i|² = l_i²; its derivative with respect
// to the parameters is the implicit-function step (one Newton step taken in ceres::Jet), so every
// function here is templated on the scalar.
#include <array>
#include <string>
#include <vector>

#include <ceres/jet.h>

#include "vcloe/core/rotation.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::calib {

inline constexpr int kLegParameters = 10;
inline constexpr int kMarkerOffset = sim::kLegs * kLegParameters;  // 60
inline constexpr int kCameraOffset = kMarkerOffset + 6;             // 66
inline constexpr int kKinematicParameters = kCameraOffset + 6;     // 72
// Offsets inside a leg's block.
enum LegSlot : int { kBaseX = 0, kCrankLength = 3, kCrankAngle = 4, kEncoderOffset = 5, kLinkLength = 6, kPlatformX = 7 };
inline int leg_index(int leg, int slot) { return leg * kLegParameters + slot; }

using KinematicVector = Eigen::Matrix<double, kKinematicParameters, 1>;

struct KinematicLeg {
  Vec3d base_joint = Vec3d::Zero();      // B_i in O (m)
  double crank_length = 0;               // r_i = |B_i T_i| (m)
  double crank_angle = 0;                // φ_i: drawn crank direction turned about s_i (rad)
  double encoder_offset = 0;             // o_i: encoder = true angle + o_i (rad)
  double link_length = 0;                // l_i (m)
  Vec3d platform_joint = Vec3d::Zero();  // a_i in E (m)
};

struct KinematicParameters {
  std::array<KinematicLeg, sim::kLegs> legs;
  Vec6d marker_frame = Vec6d::Zero();    // χ_M: M in E
  Vec6d camera_to_base = Vec6d::Zero();  // χ_C: O in O'

  KinematicVector vector() const;
  static KinematicParameters from_vector(const KinematicVector& p);
};

// The robot file's geometry as parameters (its encoder offsets and marker frame; crank angles
// and the camera residual zero).
KinematicParameters nominal_parameters(const sim::RobotModel& model);

// The robot with the fitted geometry in O (crank directions turned by φ_i, lengths r_i, encoder
// offsets, marker frame); the camera residual is not applied.
sim::RobotModel apply_geometry(const sim::RobotModel& nominal, const KinematicParameters& p);

// The calibrated robot as the camera sees it: apply_geometry, then everything fixed to the base
// (joint centres, axes, cranks, gravity) expressed in the frame O' the camera reports poses in,
// so that the twin of this file predicts the measured poses without a separate residual.
sim::RobotModel calibrated_model(const sim::RobotModel& nominal, const KinematicParameters& p);

// "leg 3 base_joint.y", "marker_frame.alpha", ... and the unit ("m" or "rad") of each entry.
std::string parameter_name(int index);
bool is_angle(int index);

// The fixed structure the parameters act on: joint axes and drawn unit crank directions.
struct LegFrames {
  std::array<Vec3d, sim::kLegs> axis, crank_direction, crank_normal;  // s_i, ŵ_i, s_i × ŵ_i
  explicit LegFrames(const sim::RobotModel& model);
};

// Homogeneous pose helpers on χ = [x, y, z, α, β, γ] (R = Rx Ry Rz, eq. 1): core/rotation.hpp.
using vcloe::Rigid;

inline double value_of(double x) { return x; }
template <int N>
double value_of(const ceres::Jet<double, N>& x) { return x.a; }

// The six closures f_i = |A_i − T_i|² − l_i² at platform pose chi, encoder angles theta.
template <typename T, typename P>
Vec6<T> loop_closures(const LegFrames& frames, const P* p, const Vec6d& theta, const Vec6<T>& chi) {
  using std::cos;
  using std::sin;
  const Mat3<T> R = rotation_of<T>(chi);
  Vec6<T> f;
  for (int i = 0; i < sim::kLegs; ++i) {
    const P* q = p + i * kLegParameters;
    const P angle = P(theta(i)) - q[kEncoderOffset] + q[kCrankAngle];
    const Vec3<P> crank = q[kCrankLength] * (cos(angle) * frames.crank_direction[i].cast<P>() +
                                             sin(angle) * frames.crank_normal[i].cast<P>());
    const Vec3<P> T_i = Vec3<P>(q[kBaseX], q[kBaseX + 1], q[kBaseX + 2]) + crank;
    const Vec3<P> a(q[kPlatformX], q[kPlatformX + 1], q[kPlatformX + 2]);
    const Vec3<T> A_i = chi.template head<3>() + R * a.template cast<T>();
    const Vec3<T> l = A_i - T_i.template cast<T>();
    f(i) = l.squaredNorm() - T(q[kLinkLength] * q[kLinkLength]);
  }
  return f;
}

// FK of the parameter values (double): Newton on the closures from `guess`; false if it does not
// converge to 1e-13 m² in 30 iterations.
bool platform_pose(const LegFrames& frames, const double* p, const Vec6d& theta, Vec6d& chi);

// The platform pose E in O at encoder angles theta, differentiable in the parameters: FK in double,
// then one Newton step in the scalar T (the implicit function theorem: exact first derivatives).
template <typename T>
bool platform_pose_t(const LegFrames& frames, const T* p, const Vec6d& theta, Vec6d& guess, Vec6<T>& chi) {
  std::array<double, kKinematicParameters> v;
  for (int k = 0; k < kKinematicParameters; ++k) v[k] = value_of(p[k]);
  if (!platform_pose(frames, v.data(), theta, guess)) return false;
  using Jet6 = ceres::Jet<double, 6>;
  Vec6<Jet6> x;
  for (int c = 0; c < 6; ++c) x(c) = Jet6(guess(c), c);
  const Vec6<Jet6> fx = loop_closures<Jet6, double>(frames, v.data(), theta, x);
  Mat6d Jx;
  for (int r = 0; r < 6; ++r) Jx.row(r) = fx(r).v.transpose();
  const Vec6<T> f = loop_closures<T, T>(frames, p, theta, Vec6<T>(guess.cast<T>()));
  const Mat6d Jinv = Jx.inverse();
  chi = guess.cast<T>() - Jinv.cast<T>() * f;
  return true;
}

// The measured pose the model predicts (the measurement model above).
template <typename T>
bool predicted_measurement(const LegFrames& frames, const T* p, const Vec6d& theta, Vec6d& guess, Vec6<T>& chi_m) {
  Vec6<T> chi_e;
  if (!platform_pose_t<T>(frames, p, theta, guess, chi_e)) return false;
  Vec6<T> marker, camera;
  for (int c = 0; c < 6; ++c) marker(c) = p[kMarkerOffset + c], camera(c) = p[kCameraOffset + c];
  chi_m = (Rigid<T>::of(camera) * Rigid<T>::of(chi_e) * Rigid<T>::of(marker)).pose();
  return true;
}

// The static pose of parameters x at encoder angles `joints`, reached from the home pose by
// continuation (the working assembly mode): the platform pose E in O and the measurement the
// camera would report. False if the robot cannot close on the way.
bool static_pose(const sim::RobotModel& nominal, const KinematicVector& x, const Vec6d& joints, Vec6d& platform,
                 Vec6d& measured);

}  // namespace vcloe::calib
