#include "stereo_steps.hpp"

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>
#include <algorithm>
#include <cmath>
#include <sstream>

#include "vcloe/core/error.hpp"

namespace vcloe::calib::stereo_steps {

using vision::Transform;

namespace {

constexpr double kMinBaseline = 1e-3;  // m, as a rig file requires (vision/camera.hpp)

bool find_corners(const cv::Mat& gray, const vision::ChessboardSpec& board, std::vector<cv::Point2f>& corners) {
  const cv::Size size(board.cols, board.rows);
  if (!cv::findChessboardCorners(gray, size, corners, cv::CALIB_CB_ADAPTIVE_THRESH | cv::CALIB_CB_NORMALIZE_IMAGE))
    return false;
  cv::cornerSubPix(gray, corners, cv::Size(11, 11), cv::Size(-1, -1),
                   cv::TermCriteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 50, 1e-4));
  // findChessboardCorners may start at either end of the board (a 180 deg ambiguity). A pair
  // whose two images disagree is caught by the stereo consistency check in calibrate_stereo and
  // rejected with the reason. (Disambiguating by the colour of the outer squares was tried and
  // misfired on real photographs.)
  return true;
}

vision::Camera to_camera(const cv::Mat& K, const cv::Mat& D, cv::Size size) {
  vision::Camera c;
  c.width = size.width;
  c.height = size.height;
  c.fx = K.at<double>(0, 0);
  c.fy = K.at<double>(1, 1);
  c.cx = K.at<double>(0, 2);
  c.cy = K.at<double>(1, 2);
  for (int i = 0; i < 5; ++i) c.distortion[static_cast<std::size_t>(i)] = D.at<double>(i);
  return c;
}

Transform to_transform(const cv::Mat& rvec, const cv::Mat& tvec) {
  Vec3d r, t;
  for (int i = 0; i < 3; ++i) r(i) = rvec.at<double>(i), t(i) = tvec.at<double>(i);
  Transform T = Transform::Identity();
  T.linear() = vision::rotation_from_vector(r);
  T.translation() = t;
  return T;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

std::string px(double v) {
  std::ostringstream o;
  o.precision(3);
  o << v << " px";
  return o.str();
}

CameraFit calibrate_one(const std::vector<cv::Point3f>& object, const std::vector<std::vector<cv::Point2f>>& points,
                        cv::Size size, int flags) {
  CameraFit f;
  std::vector<std::vector<cv::Point3f>> obj(points.size(), object);
  std::vector<cv::Mat> rv, tv;
  cv::Mat sd_int, sd_ext, per_view;
  f.rms = cv::calibrateCamera(obj, points, size, f.K, f.D, rv, tv, sd_int, sd_ext, per_view, flags,
                              cv::TermCriteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 100, 1e-12));
  for (int i = 0; i < 9 && i < sd_int.rows; ++i) f.sigma[static_cast<std::size_t>(i)] = sd_int.at<double>(i);
  for (std::size_t k = 0; k < points.size(); ++k) {
    f.view_rms.push_back(per_view.at<double>(static_cast<int>(k)));
    f.T_cam_board.push_back(to_transform(rv[k], tv[k]));
  }
  return f;
}

// RMS distance (px) between the detected right corners of view j and the left board pose of
// view j carried into the right camera by the candidate T_R_L.
double stereo_consistency_px(const Transform& T_R_L, const Transform& T_L_B, const std::vector<cv::Point3f>& object,
                             const std::vector<cv::Point2f>& right, const cv::Mat& K2, const cv::Mat& D2) {
  const Transform T = T_R_L * T_L_B;
  const Vec3d r = vision::rotation_vector(T.linear());
  const Vec3d t = T.translation();
  const cv::Mat rvec = (cv::Mat_<double>(3, 1) << r.x(), r.y(), r.z());
  const cv::Mat tvec = (cv::Mat_<double>(3, 1) << t.x(), t.y(), t.z());
  std::vector<cv::Point2f> proj;
  cv::projectPoints(object, rvec, tvec, K2, D2, proj);
  double sum = 0;
  for (std::size_t i = 0; i < proj.size(); ++i) {
    const cv::Point2f d = proj[i] - right[i];
    sum += d.dot(d);
  }
  return std::sqrt(sum / static_cast<double>(proj.size()));
}

ViewReport detect_pair(const cv::Mat& left, const cv::Mat& right, const std::string& name,
                       const vision::ChessboardSpec& board, cv::Size size, std::vector<cv::Point2f>& corners_l,
                       std::vector<cv::Point2f>& corners_r) {
  ViewReport v;
  v.name = name;
  if (left.size() != size || right.size() != size) {
    v.rejected = "image size differs from the first pair's";
  } else if (left.type() == right.type() && cv::norm(left, right, cv::NORM_INF) == 0) {
    v.rejected = kIdenticalImages;
  } else {
    v.corners_left = find_corners(left, board, corners_l);
    v.corners_right = find_corners(right, board, corners_r);
    if (!v.corners_left || !v.corners_right)
      v.rejected = std::string("chessboard not found in the ") +
                   (!v.corners_left && !v.corners_right ? "left and right images"
                    : !v.corners_left                   ? "left image"
                                                        : "right image");
  }
  return v;
}

std::vector<std::vector<cv::Point2f>> pick(const std::vector<std::vector<cv::Point2f>>& all,
                                           const std::vector<std::size_t>& keep) {
  std::vector<std::vector<cv::Point2f>> out;
  for (std::size_t i : keep) out.push_back(all[i]);
  return out;
}

// A per-view RMS above this is an outlier: the absolute limit, or far above the median.
double outlier_limit(const StereoCalibrationSettings& s, const std::vector<double>& view_rms) {
  return std::min(s.max_view_rms_px, s.outlier_factor * std::max(median_of(view_rms), 0.02));
}

// 2. Per-camera intrinsics; views far worse than the others in either camera are dropped.
}  // namespace

void Selection::refresh(const std::string& stage) {
  keep.clear();
  for (std::size_t i = 0; i < views.size(); ++i)
    if (views[i].rejected.empty()) keep.push_back(i);
  if (static_cast<int>(keep.size()) >= min_pairs) return;
  const auto first = std::find_if(views.begin(), views.end(), [](const ViewReport& v) { return !v.rejected.empty(); });
  throw Error("stereo calibration: only " + std::to_string(keep.size()) + " of " + std::to_string(views.size()) +
              " pairs left after " + stage + "; at least " + std::to_string(min_pairs) + " are needed" +
              (first == views.end() ? std::string()
                                    : " (" + std::to_string(views.size() - keep.size()) + " rejected, e.g. " +
                                          first->name + ": " + first->rejected + ")"));
}

Detections detect(const std::vector<cv::Mat>& left, const std::vector<cv::Mat>& right,
                  const std::vector<std::string>& names, const vision::ChessboardSpec& board, bool fix_k3,
                  std::vector<ViewReport>& views) {
  Detections d;
  d.size = left[0].size();
  for (int r = 0; r < board.rows; ++r)
    for (int c = 0; c < board.cols; ++c)
      d.object.emplace_back(static_cast<float>(c * board.square), static_cast<float>(r * board.square), 0.f);
  d.flags = fix_k3 ? cv::CALIB_FIX_K3 : 0;
  d.left.resize(left.size());
  d.right.resize(left.size());
  for (std::size_t i = 0; i < left.size(); ++i)
    views.push_back(detect_pair(left[i], right[i], names[i], board, d.size, d.left[i], d.right[i]));
  return d;
}

std::pair<CameraFit, CameraFit> fit_cameras(const Detections& d, const StereoCalibrationSettings& s, Selection& sel) {
  CameraFit fl, fr;
  for (int round = 0; round < 3; ++round) {
    fl = calibrate_one(d.object, pick(d.left, sel.keep), d.size, d.flags);
    fr = calibrate_one(d.object, pick(d.right, sel.keep), d.size, d.flags);
    const double limit_l = outlier_limit(s, fl.view_rms);
    const double limit_r = outlier_limit(s, fr.view_rms);
    bool dropped = false;
    for (std::size_t k = 0; k < sel.keep.size(); ++k) {
      if (fl.view_rms[k] > limit_l || fr.view_rms[k] > limit_r) {
        const bool is_left = fl.view_rms[k] > limit_l;
        sel.views[sel.keep[k]].rejected = std::string(is_left ? "left" : "right") + " camera per-view RMS " +
                                          px(is_left ? fl.view_rms[k] : fr.view_rms[k]) + " above the limit " +
                                          px(is_left ? limit_l : limit_r);
        dropped = true;
      }
    }
    sel.refresh("per-camera calibration");
    if (!dropped) break;
  }
  return {fl, fr};
}

// 3. Stereo consistency: every pair implies a right-from-left transform; the one agreeing with
// most pairs (within max_view_rms_px after carrying the left board pose into the right image)
// is the consensus, and pairs disagreeing with it (unsynchronised, mismatched, or corners
// ordered differently in the two images) are dropped before the joint refinement.
void drop_inconsistent(const Detections& d, const CameraFit& fl, const CameraFit& fr, double consistency_px,
                       Selection& sel) {
  const std::vector<std::size_t>& keep = sel.keep;
  std::vector<Transform> implied;
  for (std::size_t k = 0; k < keep.size(); ++k) implied.push_back(fr.T_cam_board[k] * fl.T_cam_board[k].inverse());
  int best_count = -1;
  double best_median = 0;
  std::vector<double> best_err;
  for (std::size_t a = 0; a < keep.size(); ++a) {
    std::vector<double> err;
    for (std::size_t k = 0; k < keep.size(); ++k)
      err.push_back(stereo_consistency_px(implied[a], fl.T_cam_board[k], d.object, d.right[keep[k]], fr.K, fr.D));
    const int count = static_cast<int>(std::count_if(err.begin(), err.end(), [&](double e) { return e <= consistency_px; }));
    const double med = median_of(err);
    if (count > best_count || (count == best_count && med < best_median)) best_count = count, best_median = med, best_err = err;
  }
  for (std::size_t k = 0; k < keep.size(); ++k)
    if (best_err[k] > consistency_px)
      sel.views[keep[k]].rejected = "inconsistent with the other pairs' stereo geometry: the left board pose seen "
                                    "from the right camera is " + px(best_err[k]) + " RMS off the right corners";
  sel.refresh("the stereo consistency check");
}

// 4. Joint refinement (intrinsics as the initial guess), dropping views whose stereo per-view
// RMS is above the absolute limit or far above the median, until none is.
StereoFit refine_jointly(const Detections& d, const CameraFit& fl, const CameraFit& fr,
                         const StereoCalibrationSettings& s, Selection& sel) {
  StereoFit f;
  cv::Mat E;
  for (int round = 0; round < 5; ++round) {
    std::vector<std::vector<cv::Point3f>> obj(sel.keep.size(), d.object);
    f.K1 = fl.K.clone(), f.D1 = fl.D.clone(), f.K2 = fr.K.clone(), f.D2 = fr.D.clone();
    f.rms = cv::stereoCalibrate(obj, pick(d.left, sel.keep), pick(d.right, sel.keep), f.K1, f.D1, f.K2, f.D2, d.size,
                                f.R, f.T, E, f.F, f.per_view, cv::CALIB_USE_INTRINSIC_GUESS | d.flags,
                                cv::TermCriteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 100, 1e-10));
    std::vector<double> view_rms;
    for (int k = 0; k < f.per_view.rows; ++k)
      view_rms.push_back(std::max(f.per_view.at<double>(k, 0), f.per_view.at<double>(k, 1)));
    const double limit = outlier_limit(s, view_rms);
    bool dropped = false;
    for (std::size_t k = 0; k < sel.keep.size(); ++k)
      if (view_rms[k] > limit) {
        sel.views[sel.keep[k]].rejected = "per-view stereo RMS " + px(view_rms[k]) + " above the limit " + px(limit);
        dropped = true;
      }
    if (!dropped) break;
    sel.refresh("the per-view stereo error check");
  }
  return f;
}

// Average epipolar error exactly as in OpenCV's samples/cpp/stereo_calib.cpp.
double epipolar_px(const Detections& d, const StereoFit& f, const std::vector<std::size_t>& keep) {
  double err = 0;
  std::size_t npoints = 0;
  for (std::size_t k : keep) {
    std::vector<cv::Point2f> ul, ur;
    std::vector<cv::Vec3f> ll, lr;
    cv::undistortPoints(d.left[k], ul, f.K1, f.D1, cv::noArray(), f.K1);
    cv::undistortPoints(d.right[k], ur, f.K2, f.D2, cv::noArray(), f.K2);
    cv::computeCorrespondEpilines(ul, 1, f.F, ll);
    cv::computeCorrespondEpilines(ur, 2, f.F, lr);
    for (std::size_t j = 0; j < ul.size(); ++j)
      err += std::abs(ul[j].x * lr[j][0] + ul[j].y * lr[j][1] + lr[j][2]) +
             std::abs(ur[j].x * ll[j][0] + ur[j].y * ll[j][1] + ll[j][2]);
    npoints += ul.size();
  }
  return err / static_cast<double>(npoints);
}

vision::StereoRig rig_from(const StereoFit& f, cv::Size size) {
  vision::StereoRig rig;
  rig.left = to_camera(f.K1, f.D1, size);
  rig.right = to_camera(f.K2, f.D2, size);
  Mat3d Rm;
  Vec3d tv;
  for (int i = 0; i < 3; ++i) {
    tv(i) = f.T.at<double>(i);
    for (int j = 0; j < 3; ++j) Rm(i, j) = f.R.at<double>(i, j);
  }
  rig.T_R_C.linear() = Rm;
  rig.T_R_C.translation() = tv;
  if (tv.norm() < kMinBaseline)
    throw Error("stereo calibration: the baseline came out " + std::to_string(tv.norm() * 1e3) +
                " mm (at least 1 mm expected): the two cameras are one, or the images are of one camera");
  return rig;
}

// Standard error of the baseline from the scatter of the baselines each used pair implies on
// its own (board pose in each camera by solvePnP with the final intrinsics); of the rotation
// from that scatter and the principal points' sigmas.
void set_uncertainty(const Detections& d, const StereoFit& f, const std::vector<std::size_t>& keep,
                     StereoCalibration& out) {
  std::vector<double> baselines, angles;
  for (std::size_t k : keep) {
    cv::Mat rl, tl, rr, tr;
    cv::solvePnP(d.object, d.left[k], f.K1, f.D1, rl, tl, false, cv::SOLVEPNP_ITERATIVE);
    cv::solvePnP(d.object, d.right[k], f.K2, f.D2, rr, tr, false, cv::SOLVEPNP_ITERATIVE);
    const Transform implied = to_transform(rr, tr) * to_transform(rl, tl).inverse();
    baselines.push_back(implied.translation().norm());
    angles.push_back(vision::rotation_angle_between(implied, out.rig.T_R_C));
  }
  double mean = 0, var = 0;
  for (double b : baselines) mean += b / static_cast<double>(baselines.size());
  for (double b : baselines) var += (b - mean) * (b - mean) / static_cast<double>(baselines.size() - 1);
  out.baseline_sigma_m = std::sqrt(var / static_cast<double>(baselines.size()));
  double ss = 0;
  for (double a : angles) ss += a * a / static_cast<double>(angles.size() - 1);
  // The relative rotation is also as uncertain as the principal points (a shift of c_x by dc is a
  // rotation by dc / f about the camera's y axis), which the per-pair scatter does not see.
  double pp = 0;
  for (const auto& [sig, K] : {std::pair{out.left_sigma, f.K1}, std::pair{out.right_sigma, f.K2}})
    pp += std::pow(sig[2] / K.at<double>(0, 0), 2) + std::pow(sig[3] / K.at<double>(1, 1), 2);
  out.rotation_sigma_rad = std::sqrt(ss / static_cast<double>(angles.size()) + pp);
}


}  // namespace vcloe::calib::stereo_steps
