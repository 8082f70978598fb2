#pragma once
// vcloe/vision/camera.hpp — the stereo camera rig: pinhole cameras with OpenCV's distortion
// model, the right camera's pose relative to the left, and the rig's pose relative to the robot
// base (docs/vision.md, "Rig file").
//
// Frames (docs/design.md §3): O robot base, E platform, C sensor = the LEFT camera's frame (OpenCV
// axes: z along the optical axis, x to the image right, y down), R the right camera.
// T_a_b maps coordinates in b to a: p_a = T_a_b * p_b.
#include <Eigen/Geometry>
#include <array>
#include <optional>
#include <string>

#include "vcloe/core/rotation.hpp"

namespace vcloe::vision {

using Vec2d = Eigen::Vector2d;
using Transform = Eigen::Isometry3d;

// One camera: pinhole (fx, fy, cx, cy in px) and distortion [k1, k2, p1, p2, k3] with OpenCV's
// conventions (cv::projectPoints), image of width x height px, pixel centres at integers.
// Image sizes a rig file may give, checked where it is read (before `render` allocates frames):
// 16 to 20000 px a side and at most 100 Mpx (the largest machine-vision sensors; a float frame
// of that size is 400 MB).
inline constexpr int kMinImageSide = 16, kMaxImageSide = 20000;
inline constexpr double kMaxImagePixels = 100e6;
// Focal lengths a rig file may give: 1 px (a field of view of about 180 degrees on the smallest
// image) to 1e6 px (a 3.45 m lens on 3.45 um pixels); 1e300 drew every marker off the image and
// `render` said only that no frame showed 3 markers.
inline constexpr double kMinFocalPx = 1, kMaxFocalPx = 1e6;

struct Camera {
  int width = 0, height = 0;
  double fx = 0, fy = 0, cx = 0, cy = 0;
  std::array<double, 5> distortion{0, 0, 0, 0, 0};

  // Normalized image coordinates (x/z, y/z) -> distorted pixel.
  Vec2d distort_normalized(const Vec2d& xn) const;
  // Point in camera coordinates -> pixel (no visibility check; z must be > 0).
  Vec2d project(const Vec3d& p_camera) const { return distort_normalized(p_camera.head<2>() / p_camera.z()); }
  // Pixel -> undistorted normalized coordinates (iterative inversion to 1e-14).
  Vec2d undistort_to_normalized(const Vec2d& pixel) const;
  bool in_image(const Vec2d& pixel, double margin = 0) const;
};

struct StereoRig {
  Camera left, right;
  Transform T_R_C = Transform::Identity();        // right camera from left (OpenCV R, T)
  std::optional<Transform> T_C_O;                 // sensor from robot base, once calibrated

  // Pixel of a point given in sensor (left camera) coordinates, in the right camera.
  Vec2d project_right(const Vec3d& p_C) const { return right.project(T_R_C * p_C); }
};

// Rig file (YAML; docs/vision.md). Errors name file, line and key.
StereoRig load_rig(const std::string& path);
StereoRig parse_rig(const std::string& yaml_text, const std::string& name);
std::string rig_to_yaml(const StereoRig& rig, const std::string& header_comment);

// Rotation vector (axis * angle, rad; cv::Rodrigues) <-> rotation matrix.
Mat3d rotation_from_vector(const Vec3d& rotation_vector);
Vec3d rotation_vector(const Mat3d& R);
// Pose vector chi = [x, y, z, alpha, beta, gamma] (R = Rx Ry Rz) <-> transform.
Transform transform_from_pose(const Vec6d& chi);
Vec6d pose_from_transform(const Transform& T);
// Angle of the rotation between two transforms (rad) and the distance of their origins (m).
double rotation_angle_between(const Transform& a, const Transform& b);
double translation_between(const Transform& a, const Transform& b);

}  // namespace vcloe::vision
