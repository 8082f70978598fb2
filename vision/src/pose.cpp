#include "vcloe/vision/pose.hpp"

#include <opencv2/imgproc.hpp>
#include <algorithm>
#include <cmath>
#include <sstream>

#include "vcloe/core/error.hpp"

namespace vcloe::vision {

// ---------------------------------------------------------------- detection

namespace {

// Connected components above T inside `roi`, with intensity-weighted centroids (weights: value
// above T). Components touching the image border (cut markers) or the roi's inner edges
// (incomplete) are dropped.
void blobs_in(const cv::Mat& image, const cv::Rect& roi, double T, double bg, const DetectionSettings& s,
              std::vector<BlobDetection>& out) {
  const cv::Mat view = image(roi);
  cv::Mat mask, labels, stats, centroids;
  cv::compare(view, T, mask, cv::CMP_GT);
  const int n = cv::connectedComponentsWithStats(mask, labels, stats, centroids, 8, CV_32S);
  const bool wide = image.depth() == CV_16U;
  for (int i = 1; i < n; ++i) {
    const int x0 = stats.at<int>(i, cv::CC_STAT_LEFT), y0 = stats.at<int>(i, cv::CC_STAT_TOP);
    const int w = stats.at<int>(i, cv::CC_STAT_WIDTH), h = stats.at<int>(i, cv::CC_STAT_HEIGHT);
    const int area = stats.at<int>(i, cv::CC_STAT_AREA);
    if (area < s.min_area_px || area > s.max_area_px) continue;
    const int gx0 = roi.x + x0, gy0 = roi.y + y0;
    if (gx0 < s.border_px || gy0 < s.border_px || gx0 + w > image.cols - s.border_px ||
        gy0 + h > image.rows - s.border_px)
      continue;
    if ((x0 == 0 && roi.x > 0) || (y0 == 0 && roi.y > 0) || (x0 + w == roi.width && roi.x + roi.width < image.cols) ||
        (y0 + h == roi.height && roi.y + roi.height < image.rows))
      continue;
    double sw = 0, sx = 0, sy = 0, peak = 0;
    for (int y = y0; y < y0 + h; ++y) {
      const int* lab = labels.ptr<int>(y);
      for (int x = x0; x < x0 + w; ++x) {
        if (lab[x] != i) continue;
        const double v = wide ? view.ptr<std::uint16_t>(y)[x] : view.ptr<std::uint8_t>(y)[x];
        const double wgt = v - T;
        sw += wgt, sx += wgt * (x + roi.x), sy += wgt * (y + roi.y);
        peak = std::max(peak, v - bg);
      }
    }
    if (sw > 0) out.push_back({Vec2d(sx / sw, sy / sw), area, peak});
  }
}

}  // namespace

std::vector<BlobDetection> detect_blobs(const cv::Mat& image, const DetectionSettings& s) {
  if (image.empty() || image.channels() != 1 || (image.depth() != CV_8U && image.depth() != CV_16U))
    throw Error("detect_blobs: expected a single-channel 8-bit or 16-bit image");
  // Background level and noise from a sparse sample: median and MAD.
  std::vector<float> sample;
  const bool wide = image.depth() == CV_16U;
  auto value = [&](int y, int x) {
    return wide ? static_cast<float>(image.ptr<std::uint16_t>(y)[x]) : static_cast<float>(image.ptr<std::uint8_t>(y)[x]);
  };
  for (int y = 0; y < image.rows; y += 7)
    for (int x = (y / 7) % 7; x < image.cols; x += 7) sample.push_back(value(y, x));
  auto median = [](std::vector<float> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return static_cast<double>(v[v.size() / 2]);
  };
  const double bg = median(sample);
  for (float& v : sample) v = static_cast<float>(std::abs(v - bg));
  const double sigma = 1.4826 * median(sample);
  const double T = bg + std::max(s.threshold_sigmas * sigma, s.min_threshold_dn);

  std::vector<BlobDetection> out;
  const cv::Rect frame(0, 0, image.cols, image.rows);
  if (s.coarse_step_px <= 1) {
    blobs_in(image, frame, T, bg, s, out);
    return out;
  }
  // Coarse search: every coarse_step_px-th pixel in each direction against T, grown by one
  // coarse cell so neighbouring samples of one blob join; each coarse component is searched at
  // full resolution in its bounding box plus a margin.
  const int step = s.coarse_step_px;
  cv::Mat coarse((image.rows + step - 1) / step, (image.cols + step - 1) / step, CV_8U);
  for (int cy = 0; cy < coarse.rows; ++cy) {
    std::uint8_t* row = coarse.ptr<std::uint8_t>(cy);
    for (int cx = 0; cx < coarse.cols; ++cx) row[cx] = value(cy * step, cx * step) > T ? 255 : 0;
  }
  cv::dilate(coarse, coarse, cv::Mat());
  cv::Mat labels, stats, centroids;
  const int n = cv::connectedComponentsWithStats(coarse, labels, stats, centroids, 8, CV_32S);
  for (int i = 1; i < n; ++i) {
    const int pad = 2 * step + 2;
    const cv::Rect roi = cv::Rect(stats.at<int>(i, cv::CC_STAT_LEFT) * step - pad, stats.at<int>(i, cv::CC_STAT_TOP) * step - pad,
                                  stats.at<int>(i, cv::CC_STAT_WIDTH) * step + 2 * pad,
                                  stats.at<int>(i, cv::CC_STAT_HEIGHT) * step + 2 * pad) &
                         frame;
    std::vector<BlobDetection> found;
    blobs_in(image, roi, T, bg, s, found);
    for (const BlobDetection& b : found) {  // overlapping boxes: keep one copy of a blob
      const bool seen = std::any_of(out.begin(), out.end(), [&](const BlobDetection& o) {
        return o.area_px == b.area_px && (o.pixel - b.pixel).norm() < 1e-9;
      });
      if (!seen) out.push_back(b);
    }
  }
  return out;
}

// ---------------------------------------------------------------- stereo

namespace {

struct Normalized {
  std::vector<Vec3d> rays;  // (x, y, 1), undistorted
};

Vec2d project_n(const Vec3d& p) { return p.head<2>() / p.z(); }

// Gauss-Newton on the undistorted reprojection error in both cameras (scaled to pixels).
Vec3d refine_point(const StereoRig& rig, Vec3d p, const Vec3d& xl, const Vec3d& xr, double& rms_px) {
  const Mat3d R = rig.T_R_C.linear();
  const Vec3d t = rig.T_R_C.translation();
  const double fl = 0.5 * (rig.left.fx + rig.left.fy), fr = 0.5 * (rig.right.fx + rig.right.fy);
  for (int it = 0; it < 5; ++it) {
    Eigen::Matrix<double, 4, 1> r;
    Eigen::Matrix<double, 4, 3> J;
    const Vec3d q = R * p + t;
    r.head<2>() = fl * (project_n(p) - xl.head<2>());
    r.tail<2>() = fr * (project_n(q) - xr.head<2>());
    Eigen::Matrix<double, 2, 3> Pl, Pr;
    Pl << 1 / p.z(), 0, -p.x() / (p.z() * p.z()), 0, 1 / p.z(), -p.y() / (p.z() * p.z());
    Pr << 1 / q.z(), 0, -q.x() / (q.z() * q.z()), 0, 1 / q.z(), -q.y() / (q.z() * q.z());
    J.topRows<2>() = fl * Pl;
    J.bottomRows<2>() = fr * Pr * R;
    const Vec3d dp = (J.transpose() * J).ldlt().solve(-J.transpose() * r);
    p += dp;
    if (dp.norm() < 1e-13) break;
  }
  const Vec3d q = R * p + t;
  rms_px = std::sqrt(0.5 * ((fl * (project_n(p) - xl.head<2>())).squaredNorm() +
                            (fr * (project_n(q) - xr.head<2>())).squaredNorm()));
  return p;
}

}  // namespace

std::vector<StereoPoint> triangulate_matches(const StereoRig& rig, const std::vector<Vec2d>& left_px,
                                             const std::vector<Vec2d>& right_px, double max_epipolar_px) {
  std::vector<Vec3d> xl, xr;
  for (const Vec2d& p : left_px) xl.push_back(rig.left.undistort_to_normalized(p).homogeneous());
  for (const Vec2d& p : right_px) xr.push_back(rig.right.undistort_to_normalized(p).homogeneous());
  const Mat3d R = rig.T_R_C.linear();
  const Vec3d t = rig.T_R_C.translation();
  const Mat3d E = skew<double>(t) * R;  // x_R^T E x_L = 0
  const double fl = 0.5 * (rig.left.fx + rig.left.fy), fr = 0.5 * (rig.right.fx + rig.right.fy);
  const Vec3d c_R = -R.transpose() * t;  // right camera centre in C
  std::vector<StereoPoint> out;
  for (std::size_t i = 0; i < xl.size(); ++i) {
    const Vec3d lr = E * xl[i];
    for (std::size_t j = 0; j < xr.size(); ++j) {
      const Vec3d ll = E.transpose() * xr[j];
      const double alg = xr[j].dot(lr);
      const double d_right = std::abs(alg) / lr.head<2>().norm() * fr;
      const double d_left = std::abs(alg) / ll.head<2>().norm() * fl;
      const double epi = 0.5 * (d_left + d_right);
      if (epi > max_epipolar_px) continue;
      // Midpoint of the two rays: lambda * dl = c_R + mu * dr.
      const Vec3d dl = xl[i], dr = R.transpose() * xr[j];
      Eigen::Matrix<double, 3, 2> A;
      A.col(0) = dl;
      A.col(1) = -dr;
      const Eigen::Vector2d lm = A.colPivHouseholderQr().solve(c_R);
      if (!(lm(0) > 0.05) || !(lm(1) > 0.05)) continue;  // behind a camera or parallel rays
      const Vec3d p0 = 0.5 * (lm(0) * dl + c_R + lm(1) * dr);
      StereoPoint sp;
      sp.p_C = refine_point(rig, p0, xl[i], xr[j], sp.reprojection_px);
      if (!(sp.p_C.z() > 0.05) || !sp.p_C.allFinite()) continue;
      sp.left = static_cast<int>(i);
      sp.right = static_cast<int>(j);
      sp.epipolar_px = epi;
      out.push_back(sp);
    }
  }
  return out;
}

// ---------------------------------------------------------------- pipeline

PosePipeline::PosePipeline(StereoRig rig, MarkerSet markers, PipelineSettings settings)
    : rig_(std::move(rig)), markers_(std::move(markers)), settings_(settings) {
  if (!settings_.base_per_frame && !rig_.T_C_O)
    throw Error("pose pipeline: the rig file has no camera_from_base; run `vcloe calibrate base` or "
                "measure the base markers in every frame (base_per_frame)");
  if (settings_.min_markers < 3) throw Error("pose pipeline: min_markers must be >= 3");
  if (!(settings_.label_tolerance_m > 0) || settings_.label_tolerance_m >= markers_.min_distance_gap / 2)
    throw Error("pose pipeline: label tolerance must be in (0, min_distance_gap / 2) = (0, " +
                std::to_string(markers_.min_distance_gap / 2) + ") m");
}

BodyMeasurement PosePipeline::measure_body(const MarkerLayout& layout, const std::vector<StereoPoint>& all,
                                           std::vector<char>& used) const {
  // Points whose detections are still free.
  std::vector<int> index;
  std::vector<Vec3d> pts;
  std::vector<std::vector<int>> exclusive(2);
  std::vector<int> used_left, used_right;
  for (std::size_t k = 0; k < all.size(); ++k)
    if (used[k]) used_left.push_back(all[k].left), used_right.push_back(all[k].right);
  for (std::size_t k = 0; k < all.size(); ++k) {
    if (used[k] || std::count(used_left.begin(), used_left.end(), all[k].left) ||
        std::count(used_right.begin(), used_right.end(), all[k].right))
      continue;
    index.push_back(static_cast<int>(k));
    pts.push_back(all[k].p_C);
    exclusive[0].push_back(all[k].left);
    exclusive[1].push_back(all[k].right);
  }
  BodyMeasurement b;
  const Labelling lab = label_by_distances(layout, pts, settings_.label_tolerance_m, settings_.min_markers, exclusive);
  if (lab.labelled < settings_.min_markers) {
    b.reason = "fewer than " + std::to_string(settings_.min_markers) + " " + layout.body +
               " markers could be labelled among " + std::to_string(pts.size()) + " stereo points";
    return b;
  }
  std::vector<Vec3d> model;
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const int j = lab.point_of_marker[i];
    if (j < 0) continue;
    model.push_back(layout.positions[i]);
    b.points_C.push_back(pts[static_cast<std::size_t>(j)]);
    b.markers_used.push_back(layout.names[i]);
    used[static_cast<std::size_t>(index[static_cast<std::size_t>(j)])] = 1;
  }
  const RigidFit fit = fit_rigid(model, b.points_C);
  b.T_C_B = fit.T;
  b.fre_m = fit.fre_rms;
  if (fit.fre_rms > settings_.max_fre_m) {
    std::ostringstream o;
    o << layout.body << " registration error " << fit.fre_rms * 1000 << " mm exceeds " << settings_.max_fre_m * 1000
      << " mm";
    b.reason = o.str();
    return b;
  }
  b.valid = true;
  return b;
}

PoseMeasurement PosePipeline::measure_centroids(const std::vector<Vec2d>& left_px,
                                                const std::vector<Vec2d>& right_px) const {
  PoseMeasurement m;
  m.left_blobs = static_cast<int>(left_px.size());
  m.right_blobs = static_cast<int>(right_px.size());
  std::vector<StereoPoint> pts = triangulate_matches(rig_, left_px, right_px, settings_.max_epipolar_px);
  std::erase_if(pts, [&](const StereoPoint& p) { return p.reprojection_px > settings_.max_reprojection_px; });
  m.stereo_points = static_cast<int>(pts.size());
  std::vector<char> used(pts.size(), 0);
  m.platform = measure_body(markers_.platform, pts, used);
  m.base = measure_body(markers_.base, pts, used);
  m.fre_m = m.platform.fre_m;
  m.markers_used = m.platform.markers_used;
  if (!m.platform.valid) {
    m.reason = m.platform.reason;
    return m;
  }
  Transform T_C_O;
  if (settings_.base_per_frame) {
    if (!m.base.valid) {
      m.reason = "base: " + m.base.reason;
      return m;
    }
    T_C_O = m.base.T_C_B;
  } else {
    T_C_O = *rig_.T_C_O;
  }
  m.T_O_E = T_C_O.inverse() * m.platform.T_C_B;  // eq. (28)
  m.chi = pose_from_transform(m.T_O_E);
  m.valid = true;
  return m;
}

PoseMeasurement PosePipeline::measure_images(const cv::Mat& left, const cv::Mat& right) const {
  const std::vector<BlobDetection> bl = detect_blobs(left, settings_.detection);
  const std::vector<BlobDetection> br = detect_blobs(right, settings_.detection);
  std::vector<Vec2d> l, r;
  for (const auto& b : bl) l.push_back(b.pixel);
  for (const auto& b : br) r.push_back(b.pixel);
  return measure_centroids(l, r);
}

// ---------------------------------------------------------------- centroid-noise model

CentroidNoiseModel::CentroidNoiseModel(const StereoRig& truth_rig, const PosePipeline& pipeline, double sigma_px,
                                       std::uint64_t seed)
    : truth_(truth_rig), pipeline_(pipeline), sigma_(sigma_px), rng_(seed) {
  if (!(sigma_px >= 0)) throw Error("centroid noise: sigma must be >= 0 px");
}

PoseMeasurement CentroidNoiseModel::measure(const Transform& T_O_E_true, const std::vector<std::string>& occluded) {
  std::normal_distribution<double> noise(0.0, sigma_);
  std::vector<Vec2d> px[2];
  for (int side = 0; side < 2; ++side) {
    const MarkerView v = view_markers(truth_, pipeline_.markers(), T_O_E_true, side == 0);
    for (std::size_t i = 0; i < v.names.size(); ++i) {
      if (std::find(occluded.begin(), occluded.end(), v.names[i]) != occluded.end()) continue;
      px[side].push_back(v.pixels[i] + Vec2d(noise(rng_), noise(rng_)));
    }
    std::shuffle(px[side].begin(), px[side].end(), rng_);  // labelling must not rely on order
  }
  return pipeline_.measure_centroids(px[0], px[1]);
}

StereoCamera::StereoCamera(const StereoRig& truth_rig, const MarkerSet& markers, double sigma_px, std::uint64_t seed,
                           PipelineSettings settings)
    : pipeline_(truth_rig, markers, settings), model_(truth_rig, pipeline_, sigma_px, seed) {}

Vec6d StereoCamera::measure_pose(const Vec6d& chi_true) {
  ++frames_;
  const PoseMeasurement m = model_.measure(transform_from_pose(chi_true));
  if (m.valid) {
    last_ = m.chi;
    has_last_ = true;
    return m.chi;
  }
  ++invalid_;
  last_reason_ = m.reason;
  if (!has_last_) throw Error("stereo camera: the first frame has no valid pose: " + m.reason);
  return last_;
}

Vec6d pose_error(const Transform& measured, const Transform& truth) {
  Vec6d e;
  e.head<3>() = measured.translation() - truth.translation();
  e.tail<3>() = rotation_vector(measured.linear() * truth.linear().transpose());
  return e;
}

Mat6d predicted_pose_covariance(const StereoRig& truth_rig, const PosePipeline& pipeline, const Transform& T_O_E,
                                double sigma_px) {
  std::vector<Vec2d> l = view_markers(truth_rig, pipeline.markers(), T_O_E, true).pixels;
  std::vector<Vec2d> r = view_markers(truth_rig, pipeline.markers(), T_O_E, false).pixels;
  const std::size_t n = 2 * (l.size() + r.size());
  Eigen::MatrixXd J(6, static_cast<int>(n));
  const double h = 1e-3;
  std::size_t col = 0;
  for (auto* side : {&l, &r})
    for (std::size_t i = 0; i < side->size(); ++i)
      for (int k = 0; k < 2; ++k) {
        const double keep = (*side)[i](k);
        (*side)[i](k) = keep + h;
        const PoseMeasurement plus = pipeline.measure_centroids(l, r);
        (*side)[i](k) = keep - h;
        const PoseMeasurement minus = pipeline.measure_centroids(l, r);
        (*side)[i](k) = keep;
        if (!plus.valid || !minus.valid) throw Error("predicted_pose_covariance: pose invalid at the nominal pixels");
        J.col(static_cast<int>(col++)) = (pose_error(plus.T_O_E, T_O_E) - pose_error(minus.T_O_E, T_O_E)) / (2 * h);
      }
  return sigma_px * sigma_px * J * J.transpose();
}

}  // namespace vcloe::vision
