#include "vcloe/vision/camera.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/core/report.hpp"  // fixed
#include "vcloe/core/yaml_reader.hpp"

namespace vcloe::vision {

Vec2d Camera::distort_normalized(const Vec2d& xn) const {
  const double x = xn.x(), y = xn.y();
  const double k1 = distortion[0], k2 = distortion[1], p1 = distortion[2], p2 = distortion[3],
               k3 = distortion[4];
  const double r2 = x * x + y * y;
  const double radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3));
  const double xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x);
  const double yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y;
  return {fx * xd + cx, fy * yd + cy};
}

Vec2d Camera::undistort_to_normalized(const Vec2d& pixel) const {
  const Vec2d target((pixel.x() - cx) / fx, (pixel.y() - cy) / fy);
  Vec2d x = target;
  // Newton on distort(x) = target with a numerically exact 2x2 Jacobian.
  for (int it = 0; it < 30; ++it) {
    const Vec2d d = distort_normalized(x);
    const Vec2d r((d.x() - cx) / fx - target.x(), (d.y() - cy) / fy - target.y());
    if (r.norm() < 1e-15) break;
    Eigen::Matrix2d J;
    const double h = 1e-7;
    for (int k = 0; k < 2; ++k) {
      Vec2d xp = x, xm = x;
      xp(k) += h;
      xm(k) -= h;
      const Vec2d dp = distort_normalized(xp), dm = distort_normalized(xm);
      J(0, k) = (dp.x() - dm.x()) / (2 * h * fx);
      J(1, k) = (dp.y() - dm.y()) / (2 * h * fy);
    }
    x -= J.lu().solve(r);
  }
  return x;
}

bool Camera::in_image(const Vec2d& p, double margin) const {
  return p.x() >= -0.5 + margin && p.y() >= -0.5 + margin && p.x() <= width - 0.5 - margin &&
         p.y() <= height - 0.5 - margin;
}

Mat3d rotation_from_vector(const Vec3d& v) {
  const double angle = v.norm();
  if (angle == 0) return Mat3d::Identity();
  return Eigen::AngleAxisd(angle, v / angle).toRotationMatrix();
}

Vec3d rotation_vector(const Mat3d& R) {
  const Eigen::AngleAxisd aa(R);
  return aa.axis() * aa.angle();
}

Transform transform_from_pose(const Vec6d& chi) {
  Transform T = Transform::Identity();
  T.linear() = rotation_of<double>(chi);
  T.translation() = chi.head<3>();
  return T;
}

Vec6d pose_from_transform(const Transform& T) {
  Vec6d chi;
  chi.head<3>() = T.translation();
  chi.tail<3>() = euler_xyz(T.linear());
  return chi;
}

double rotation_angle_between(const Transform& a, const Transform& b) {
  return Eigen::AngleAxisd(a.linear().transpose() * b.linear()).angle();
}

double translation_between(const Transform& a, const Transform& b) {
  return (a.translation() - b.translation()).norm();
}

namespace {

// The normalized radius of the farthest image corner (distorted; pixel edges at -0.5).
double image_corner_radius(const Camera& c) {
  double corner = 0;
  for (const double u : {-0.5, c.width - 0.5})
    for (const double v : {-0.5, c.height - 0.5}) corner = std::max(corner, std::hypot((u - c.cx) / c.fx, (v - c.cy) / c.fy));
  return corner;
}

// The normalized radius at which the radial distortion r (1 + k1 r^2 + k2 r^4 + k3 r^6) stops
// increasing before it reaches the image's corners, or 0 when it maps the whole image one to one.
// A lens model that folds back has two points for one pixel, or none for the corners: undistortion
// and every pose from it would be wrong (k1 = -80 on a 1000 px focal length folds at r = 0.065).
double radial_fold_inside_image(const Camera& c) {
  const double k1 = c.distortion[0], k2 = c.distortion[1], k3 = c.distortion[4];
  const double corner = image_corner_radius(c);
  const double step = corner / 4000;
  for (double r = step; r <= 100 * corner; r += step) {
    const double r2 = r * r;
    if (1 + r2 * (3 * k1 + r2 * (5 * k2 + r2 * 7 * k3)) <= 0) return r;
    if (r * (1 + r2 * (k1 + r2 * (k2 + r2 * k3))) >= corner) return 0;
  }
  return 100 * corner;  // increasing but too slowly to reach the corners: the image is not covered
}

Camera read_camera(const YamlNode& n) {
  n.reject_unknown_keys({"image_size", "focal_px", "principal_point_px", "distortion"});
  Camera c;
  const Eigen::VectorXd size = n.get_vector("image_size", 2);
  const Eigen::VectorXd f = n.get_vector("focal_px", 2);
  const Eigen::VectorXd pp = n.get_vector("principal_point_px", 2);
  const Eigen::VectorXd d = n.get_vector("distortion", 5);
  if (!(size(0) >= kMinImageSide && size(0) <= kMaxImageSide && size(1) >= kMinImageSide &&
        size(1) <= kMaxImageSide) ||
      size(0) != std::floor(size(0)) || size(1) != std::floor(size(1)) || size(0) * size(1) > kMaxImagePixels)
    n.at("image_size").fail("expected [width, height] in whole pixels, " + std::to_string(kMinImageSide) + " to " +
                            std::to_string(kMaxImageSide) + " each and at most 100 Mpx, got [" +
                            exact_number(size(0)) + ", " + exact_number(size(1)) + "]");
  if (!(f(0) >= kMinFocalPx && f(0) <= kMaxFocalPx && f(1) >= kMinFocalPx && f(1) <= kMaxFocalPx))
    n.at("focal_px").fail("expected two focal lengths [fx, fy] in [" + exact_number(kMinFocalPx) + ", " +
                          exact_number(kMaxFocalPx) + "] px, got [" + exact_number(f(0)) + ", " + exact_number(f(1)) + "]");
  c.width = static_cast<int>(size(0));
  c.height = static_cast<int>(size(1));
  c.fx = f(0), c.fy = f(1), c.cx = pp(0), c.cy = pp(1);
  if (c.cx < 0 || c.cy < 0 || c.cx > c.width || c.cy > c.height)
    n.at("principal_point_px").fail("expected a principal point inside the image");
  for (int i = 0; i < 5; ++i) {
    if (!std::isfinite(d(i))) n.at("distortion").fail("expected five finite numbers [k1, k2, p1, p2, k3]");
    c.distortion[static_cast<std::size_t>(i)] = d(i);
  }
  if (const double fold = radial_fold_inside_image(c); fold > 0)
    n.at("distortion").fail("the radial distortion [k1, k2, k3] = [" + exact_number(d(0)) + ", " + exact_number(d(1)) + ", " +
                            exact_number(d(4)) + "] stops increasing at normalized radius " + vcloe::fixed(fold, 3) +
                            ", before it reaches the image's corners (" +
                            vcloe::fixed(image_corner_radius(c), 3) + "): expected a lens model that maps the image one to one (OpenCV's "
                            "calibration of this camera)");
  return c;
}

constexpr double kMaxRigTranslation = 100.0;  // m: a rig's baseline, the camera from the robot's base

Transform read_transform(const YamlNode& n) {
  n.reject_unknown_keys({"rotation_vector", "translation"});
  const Eigen::VectorXd rv = n.get_vector("rotation_vector", 3);
  const Eigen::VectorXd t = n.get_vector("translation", 3);
  if (!rv.allFinite() || rv.norm() > 4 * M_PI) n.at("rotation_vector").fail("expected axis * angle in rad");
  if (!t.allFinite()) n.at("translation").fail("expected a finite translation in m");
  if (t.stableNorm() > kMaxRigTranslation)  // 1e300 m was read, then blamed on what cannot see the markers
    n.at("translation").fail("expected a translation of at most " + exact_number(kMaxRigTranslation) +
                             " m (a camera in the robot's room), got " + exact_number(t.stableNorm()) + " m");
  Transform T = Transform::Identity();
  T.linear() = rotation_from_vector(rv);
  T.translation() = t;
  return T;
}

StereoRig read_rig(const YamlNode& root) {
  root.reject_unknown_keys({"format", "left", "right", "right_from_left", "camera_from_base"});
  if (root.has("format") && root.at("format").as_string() != "vcloe-rig-1")
    root.at("format").fail("expected 'vcloe-rig-1'");
  StereoRig rig;
  rig.left = read_camera(root.at("left"));
  rig.right = read_camera(root.at("right"));
  rig.T_R_C = read_transform(root.at("right_from_left"));
  if (rig.T_R_C.translation().norm() < 1e-3)
    root.at("right_from_left").fail("expected a stereo baseline of at least 1 mm");
  if (auto n = root.find("camera_from_base")) rig.T_C_O = read_transform(*n);
  return rig;
}

std::string num(double x) { return exact_number(x); }

std::string vec(std::initializer_list<double> v) {
  std::string s = "[";
  bool first = true;
  for (double x : v) {
    s += (first ? "" : ", ") + num(x);
    first = false;
  }
  return s + "]";
}

std::string camera_yaml(const std::string& name, const Camera& c) {
  std::ostringstream o;
  o << name << ":\n"
    << "  image_size: [" << c.width << ", " << c.height << "]\n"
    << "  focal_px: " << vec({c.fx, c.fy}) << "\n"
    << "  principal_point_px: " << vec({c.cx, c.cy}) << "\n"
    << "  distortion: "
    << vec({c.distortion[0], c.distortion[1], c.distortion[2], c.distortion[3], c.distortion[4]})
    << "  # k1, k2, p1, p2, k3 (OpenCV)\n";
  return o.str();
}

std::string transform_yaml(const std::string& name, const Transform& T, const std::string& comment) {
  const Vec3d rv = rotation_vector(T.linear());
  const Vec3d t = T.translation();
  return name + ":  # " + comment + "\n  rotation_vector: " + vec({rv.x(), rv.y(), rv.z()}) +
         "  # rad, axis * angle\n  translation: " + vec({t.x(), t.y(), t.z()}) + "  # m\n";
}

}  // namespace

StereoRig load_rig(const std::string& path) { return read_rig(YamlDoc::load(path).root()); }

StereoRig parse_rig(const std::string& text, const std::string& name) {
  return read_rig(YamlDoc::parse(text, name).root());
}

std::string rig_to_yaml(const StereoRig& rig, const std::string& header_comment) {
  std::ostringstream o;
  std::istringstream lines(header_comment);
  for (std::string line; std::getline(lines, line);) o << "# " << line << "\n";
  o << "format: vcloe-rig-1\n";
  o << camera_yaml("left", rig.left) << camera_yaml("right", rig.right);
  o << transform_yaml("right_from_left", rig.T_R_C, "T_R_C: p_right = R p_left + t");
  if (rig.T_C_O) o << transform_yaml("camera_from_base", *rig.T_C_O, "T_C_O: p_left = R p_base + t");
  return o.str();
}

}  // namespace vcloe::vision
