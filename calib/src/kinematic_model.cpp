#include "vcloe/calib/kinematic_model.hpp"

#include <cmath>

#include "vcloe/sim/kinematics.hpp"

namespace vcloe::calib {

KinematicVector KinematicParameters::vector() const {
  KinematicVector v;
  for (int i = 0; i < sim::kLegs; ++i) {
    const KinematicLeg& l = legs[i];
    v.segment<3>(leg_index(i, kBaseX)) = l.base_joint;
    v(leg_index(i, kCrankLength)) = l.crank_length;
    v(leg_index(i, kCrankAngle)) = l.crank_angle;
    v(leg_index(i, kEncoderOffset)) = l.encoder_offset;
    v(leg_index(i, kLinkLength)) = l.link_length;
    v.segment<3>(leg_index(i, kPlatformX)) = l.platform_joint;
  }
  v.segment<6>(kMarkerOffset) = marker_frame;
  v.segment<6>(kCameraOffset) = camera_to_base;
  return v;
}

KinematicParameters KinematicParameters::from_vector(const KinematicVector& v) {
  KinematicParameters p;
  for (int i = 0; i < sim::kLegs; ++i) {
    KinematicLeg& l = p.legs[i];
    l.base_joint = v.segment<3>(leg_index(i, kBaseX));
    l.crank_length = v(leg_index(i, kCrankLength));
    l.crank_angle = v(leg_index(i, kCrankAngle));
    l.encoder_offset = v(leg_index(i, kEncoderOffset));
    l.link_length = v(leg_index(i, kLinkLength));
    l.platform_joint = v.segment<3>(leg_index(i, kPlatformX));
  }
  p.marker_frame = v.segment<6>(kMarkerOffset);
  p.camera_to_base = v.segment<6>(kCameraOffset);
  return p;
}

KinematicParameters nominal_parameters(const sim::RobotModel& model) {
  KinematicParameters p;
  for (int i = 0; i < sim::kLegs; ++i) {
    const sim::Leg& leg = model.legs[i];
    p.legs[i].base_joint = leg.base_joint;
    p.legs[i].crank_length = leg.wrench.norm();
    p.legs[i].link_length = leg.link_length;
    p.legs[i].platform_joint = leg.platform_joint;
    p.legs[i].encoder_offset = leg.encoder_offset;
  }
  p.marker_frame = model.marker_frame;
  return p;
}

LegFrames::LegFrames(const sim::RobotModel& model) {
  for (int i = 0; i < sim::kLegs; ++i) {
    axis[i] = model.legs[i].axis.normalized();
    // The drawn crank direction, made exactly perpendicular to the axis.
    const Vec3d w = model.legs[i].wrench - axis[i].dot(model.legs[i].wrench) * axis[i];
    crank_direction[i] = w.normalized();
    crank_normal[i] = axis[i].cross(crank_direction[i]);
  }
}

sim::RobotModel apply_geometry(const sim::RobotModel& nominal, const KinematicParameters& p) {
  const LegFrames f(nominal);
  sim::RobotModel m = nominal;
  for (int i = 0; i < sim::kLegs; ++i) {
    const KinematicLeg& l = p.legs[i];
    m.legs[i].base_joint = l.base_joint;
    m.legs[i].wrench = l.crank_length * (std::cos(l.crank_angle) * f.crank_direction[i] +
                                         std::sin(l.crank_angle) * f.crank_normal[i]);
    m.legs[i].link_length = l.link_length;
    m.legs[i].platform_joint = l.platform_joint;
    m.legs[i].encoder_offset = l.encoder_offset;
  }
  m.marker_frame = p.marker_frame;
  return m;
}

sim::RobotModel calibrated_model(const sim::RobotModel& nominal, const KinematicParameters& p) {
  sim::RobotModel m = apply_geometry(nominal, p);
  const Rigid<double> C = Rigid<double>::of(p.camera_to_base);
  for (sim::Leg& leg : m.legs) {
    leg.base_joint = C.R * leg.base_joint + C.p;
    leg.axis = C.R * leg.axis;
    leg.wrench = C.R * leg.wrench;
  }
  m.gravity = C.R * m.gravity;
  return m;
}

std::string parameter_name(int index) {
  static const char* axes[] = {"x", "y", "z", "alpha", "beta", "gamma"};
  if (index >= kCameraOffset) return std::string("camera_to_base.") + axes[index - kCameraOffset];
  if (index >= kMarkerOffset) return std::string("marker_frame.") + axes[index - kMarkerOffset];
  const int leg = index / kLegParameters, slot = index % kLegParameters;
  const std::string prefix = "leg " + std::to_string(leg + 1) + " ";
  if (slot < kCrankLength) return prefix + "base_joint." + axes[slot];
  if (slot >= kPlatformX) return prefix + "platform_joint." + axes[slot - kPlatformX];
  static const char* names[] = {"crank_length", "crank_angle", "encoder_offset", "link_length"};
  return prefix + names[slot - kCrankLength];
}

bool is_angle(int index) {
  if (index >= kMarkerOffset) return (index - kMarkerOffset) % 6 >= 3;
  const int slot = index % kLegParameters;
  return slot == kCrankAngle || slot == kEncoderOffset;
}

bool platform_pose(const LegFrames& frames, const double* p, const Vec6d& theta, Vec6d& chi) {
  using Jet6 = ceres::Jet<double, 6>;
  for (int iteration = 0; iteration < 30; ++iteration) {
    Vec6<Jet6> x;
    for (int c = 0; c < 6; ++c) x(c) = Jet6(chi(c), c);
    const Vec6<Jet6> f = loop_closures<Jet6, double>(frames, p, theta, x);
    Mat6d J;
    Vec6d r;
    for (int k = 0; k < 6; ++k) J.row(k) = f(k).v.transpose(), r(k) = f(k).a;
    if (!r.allFinite()) return false;
    if (r.cwiseAbs().maxCoeff() < 1e-17) return true;
    const Vec6d step = J.partialPivLu().solve(r);
    if (!step.allFinite()) return false;
    chi -= step;
    if (step.cwiseAbs().maxCoeff() < 1e-13) return true;
  }
  return false;
}

bool static_pose(const sim::RobotModel& nominal, const KinematicVector& x, const Vec6d& joints, Vec6d& platform,
                 Vec6d& measured) {
  Vec6d theta_home;
  if (!sim::inverse_kinematics<double>(apply_geometry(nominal, KinematicParameters::from_vector(x)), nominal.home,
                                       theta_home))
    return false;
  Vec6d offsets;
  for (int i = 0; i < sim::kLegs; ++i) offsets(i) = x(leg_index(i, kEncoderOffset));
  const LegFrames frames(nominal);
  // Continuation along the straight joint path from home: each Newton start a small step away;
  // a path that passes close to a singularity is retried in finer steps.
  bool closed = false;
  for (int steps : {8, 64}) {
    platform = nominal.home;
    closed = true;
    for (int s = 1; s <= steps && closed; ++s) {
      const Vec6d theta = theta_home + offsets + (joints - theta_home - offsets) * (double(s) / steps);
      closed = platform_pose(frames, x.data(), theta, platform);
    }
    if (closed) break;
  }
  if (!closed) return false;
  // The working assembly mode: the IK branches of the robot file give the joints back.
  Vec6d theta;
  if (!sim::inverse_kinematics<double>(apply_geometry(nominal, KinematicParameters::from_vector(x)), platform, theta) ||
      (theta + offsets - joints).cwiseAbs().maxCoeff() > 1e-9)
    return false;
  Vec6d guess = platform;
  return predicted_measurement<double>(frames, x.data(), joints, guess, measured);
}

}  // namespace vcloe::calib
