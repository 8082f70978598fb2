#include "vcloe/vision/render.hpp"

#include <opencv2/imgproc.hpp>
#include <algorithm>
#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/core/seed_range.hpp"
#include "vcloe/core/yaml_reader.hpp"

namespace vcloe::vision {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Projected radius of a sphere of radius rho centred at p (camera coordinates), including the
// local magnification of the distortion model: mean pixel distance of two rim points.
double projected_radius(const Camera& cam, const Vec3d& p, double rho) {
  const Vec3d ray = p.normalized();
  Vec3d a = ray.cross(Vec3d::UnitY());
  if (a.norm() < 1e-6) a = ray.cross(Vec3d::UnitX());
  a.normalize();
  const Vec3d b = ray.cross(a).normalized();
  const double d = p.norm();
  const double s = rho * d / std::sqrt(std::max(d * d - rho * rho, 1e-12));  // tangent-cone rim
  const Vec2d c = cam.project(p);
  return 0.5 * ((cam.project(p + s * a) - c).norm() + (cam.project(p + s * b) - c).norm());
}

// Adds a blob whose edge is blurred by an erfc profile: `outside(x, y)` is the signed distance
// (px) of pixel (x, y) outside the edge; pixels within `reach` of c are visited.
template <typename Outside>
void add_blurred_blob(cv::Mat& img, const Vec2d& c, double reach, double peak, double blur, Outside outside) {
  const int x0 = std::max(0, static_cast<int>(std::floor(c.x() - reach)));
  const int x1 = std::min(img.cols - 1, static_cast<int>(std::ceil(c.x() + reach)));
  const int y0 = std::max(0, static_cast<int>(std::floor(c.y() - reach)));
  const int y1 = std::min(img.rows - 1, static_cast<int>(std::ceil(c.y() + reach)));
  const double k = 1.0 / (std::sqrt(2.0) * blur);
  for (int y = y0; y <= y1; ++y) {
    float* row = img.ptr<float>(y);
    for (int x = x0; x <= x1; ++x) row[x] += static_cast<float>(peak * 0.5 * std::erfc(outside(x, y) * k));
  }
}

void draw_disc(cv::Mat& img, const Vec2d& c, double r, double peak, double blur) {
  add_blurred_blob(img, c, r + 4 * blur + 1, peak, blur,
                   [&](int x, int y) { return std::hypot(x - c.x(), y - c.y()) - r; });
}

// The exact silhouette of a sphere of radius rho centred at p (camera coordinates): the pixels
// whose undistorted viewing ray is within the tangent cone (half-angle asin(rho / |p|)) around
// the ray to the centre — an ellipse off the optical axis, whose centroid is not the projection
// of the centre. The edge is blurred by an erfc profile in the local pixel distance.
void draw_sphere(cv::Mat& img, const Camera& cam, const Vec3d& p, double rho, double r_px, double peak, double blur) {
  const Vec2d c = cam.project(p);
  const Vec3d axis = p.normalized();
  const double alpha = std::asin(std::min(rho / p.norm(), 1.0));
  const double px_per_rad = r_px / alpha;
  add_blurred_blob(img, c, 1.3 * r_px + 4 * blur + 2, peak, blur, [&](int x, int y) {
    const Vec3d ray = cam.undistort_to_normalized(Vec2d(x, y)).homogeneous().normalized();
    const double theta = std::atan2(ray.cross(axis).norm(), ray.dot(axis));
    return (theta - alpha) * px_per_rad;
  });
}

cv::Mat finish(cv::Mat& f, double noise_sigma, std::uint64_t seed, double max_value, int type) {
  cv::Mat noise(f.size(), CV_32F);
  cv::RNG rng(seed);
  rng.fill(noise, cv::RNG::NORMAL, 0.0, noise_sigma);
  f += noise;
  cv::Mat out;
  cv::min(f, max_value, f);
  f.convertTo(out, type);  // rounds and saturates at 0
  return out;
}

}  // namespace

MarkerView view_markers(const StereoRig& rig, const MarkerSet& markers, const Transform& T_O_E, bool left) {
  if (!rig.T_C_O) throw Error("render: the rig has no camera_from_base (T_C_O); the virtual rig needs it");
  const Camera& cam = left ? rig.left : rig.right;
  const Transform T_cam_C = left ? Transform::Identity() : rig.T_R_C;
  const Transform T_cam_O = T_cam_C * *rig.T_C_O;
  MarkerView v;
  auto add = [&](const MarkerLayout& L, const Transform& T_cam_body) {
    for (std::size_t i = 0; i < L.size(); ++i) {
      const Vec3d p = T_cam_body * L.positions[i];
      if (p.z() < 0.05) continue;
      const Vec2d px = cam.project(p);
      const double r = projected_radius(cam, p, markers.diameter / 2);
      if (!cam.in_image(px, r + 3)) continue;
      v.names.push_back(L.names[i]);
      v.pixels.push_back(px);
      v.radii_px.push_back(r);
      v.points_camera.push_back(p);
    }
  };
  add(markers.platform, T_cam_O * T_O_E);
  add(markers.base, T_cam_O);
  return v;
}

std::optional<SettingProblem> RenderSettings::problem() const {
  auto within = [](const char* name, double x, double lo, bool lo_open, double hi) -> std::optional<SettingProblem> {
    if (std::isfinite(x) && (lo_open ? x > lo : x >= lo) && x <= hi) return std::nullopt;
    return SettingProblem{name, std::string(name) + ": expected " + (lo_open ? "(" : "[") + exact_number(lo) + ", " +
                                    exact_number(hi) + "], got " + exact_number(x)};
  };
  std::optional<SettingProblem> p = within("background_dn", background_dn, 0, false, kMaxDn);
  if (!p) p = within("marker_peak_dn", marker_peak_dn, 0, false, kMaxDn);
  if (!p) p = within("blur_sigma_px", blur_sigma_px, kMinBlurPx, true, kMaxBlurPx);
  if (!p) p = within("noise_sigma_dn", noise_sigma_dn, 0, false, kMaxDn);
  if (!p) p = seed_range_problem("seed", seed, 1, kMaxRenderSeed);  // 2 seed + 1 in 64 bits
  for (const SpuriousBlob& b : spurious)
    if (!p) p = within("spurious radius_px", b.radius_px, 0, true, 1000);
  return p;
}

void RenderSettings::validate(const std::string& where) const { throw_if(problem(), where); }

StereoImages render_markers(const StereoRig& rig, const MarkerSet& markers, const Transform& T_O_E,
                            const RenderSettings& s) {
  s.validate();
  StereoImages out;
  for (int side = 0; side < 2; ++side) {
    const bool left = side == 0;
    const Camera& cam = left ? rig.left : rig.right;
    cv::Mat f(cam.height, cam.width, CV_32F, cv::Scalar(s.background_dn));
    const MarkerView v = view_markers(rig, markers, T_O_E, left);
    for (std::size_t i = 0; i < v.names.size(); ++i) {
      if (contains(s.occluded, v.names[i]) || (left && contains(s.occluded_left, v.names[i]))) continue;
      draw_sphere(f, cam, v.points_camera[i], markers.diameter / 2, v.radii_px[i], s.marker_peak_dn, s.blur_sigma_px);
    }
    for (const SpuriousBlob& b : s.spurious)
      if (b.in_left == left) draw_disc(f, b.pixel, b.radius_px, s.marker_peak_dn, s.blur_sigma_px);
    (left ? out.left : out.right) = finish(f, s.noise_sigma_dn, s.seed * 2 + static_cast<std::uint64_t>(side), 4095, CV_16U);
  }
  return out;
}

std::vector<cv::Mat> render_chessboards(const Camera& cam, const ChessboardSpec& board,
                                        const std::vector<Transform>& T_cam_B, std::uint64_t seed) {
  if (board.cols < 3 || board.rows < 3 || !(board.square > 0))
    throw Error("render: chessboard needs >= 3x3 inner corners and a positive square size");
  // Undistorted normalized coordinates of every pixel centre (fixed-point inversion, as OpenCV
  // does, run to convergence), then bilinear interpolation for the 3x3 sub-samples.
  const int W = cam.width, H = cam.height;
  std::vector<Vec2d> map(static_cast<std::size_t>(W) * static_cast<std::size_t>(H));
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) map[static_cast<std::size_t>(y) * W + x] = cam.undistort_to_normalized(Vec2d(x, y));
  auto normalized_at = [&](double x, double y) {
    const int xi = std::clamp(static_cast<int>(std::floor(x)), 0, W - 2);
    const int yi = std::clamp(static_cast<int>(std::floor(y)), 0, H - 2);
    const double fx = x - xi, fy = y - yi;
    const auto at = [&](int a, int b) { return map[static_cast<std::size_t>(b) * W + a]; };
    return Vec2d((1 - fy) * ((1 - fx) * at(xi, yi) + fx * at(xi + 1, yi)) +
                 fy * ((1 - fx) * at(xi, yi + 1) + fx * at(xi + 1, yi + 1)));
  };
  const double s = board.square;
  std::vector<cv::Mat> images;
  std::uint64_t view = 0;
  for (const Transform& T : T_cam_B) {
    const Transform T_B_cam = T.inverse();
    const Vec3d o = T_B_cam.translation();
    const Mat3d R = T_B_cam.linear();
    cv::Mat f(H, W, CV_32F);
    for (int y = 0; y < H; ++y) {
      float* row = f.ptr<float>(y);
      for (int x = 0; x < W; ++x) {
        double acc = 0;
        for (int sy = -1; sy <= 1; ++sy)
          for (int sx = -1; sx <= 1; ++sx) {
            const Vec2d n = normalized_at(x + sx / 3.0, y + sy / 3.0);
            const Vec3d d = R * Vec3d(n.x(), n.y(), 1.0);
            double v = 90;  // background
            if (std::abs(d.z()) > 1e-12) {
              const double lambda = -o.z() / d.z();
              if (lambda > 0) {
                const double u = (o.x() + lambda * d.x()) / s, w = (o.y() + lambda * d.y()) / s;
                if (u >= -2 && u < board.cols + 1 && w >= -2 && w < board.rows + 1) {
                  v = 230;  // white margin
                  if (u >= -1 && u < board.cols && w >= -1 && w < board.rows) {
                    const long a = static_cast<long>(std::floor(u)), b = static_cast<long>(std::floor(w));
                    v = ((a + b) % 2 == 0) ? 25 : 230;
                  }
                }
              }
            }
            acc += v;
          }
        row[x] = static_cast<float>(acc / 9);
      }
    }
    cv::GaussianBlur(f, f, cv::Size(0, 0), 0.5);
    images.push_back(finish(f, 2.0, seed * 1000 + view++, 255, CV_8U));
  }
  return images;
}

}  // namespace vcloe::vision
