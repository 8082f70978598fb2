#include "vcloe/calib/stereo_calibration.hpp"

#include <opencv2/calib3d.hpp>
#include <opencv2/core/eigen.hpp>
#include <opencv2/imgproc.hpp>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/vision/image_file.hpp"

namespace vcloe::calib {

namespace fs = std::filesystem;
using vision::Transform;

namespace {

const char* const kIdenticalImages = "left and right images are identical (the same camera twice?)";
constexpr double kMinBaseline = 1e-3;  // m, as a rig file requires (vision/camera.hpp)

}  // namespace

vision::ChessboardSpec parse_board(const std::string& s, double square_m) {
  // COLSxROWS, each 1-3 digits (3..100 is checked below; more digits could overflow an int).
  const auto x = s.find_first_of("xX");
  const auto digits = [&](std::size_t from, std::size_t to) {
    return to > from && to - from <= 3 &&
           std::all_of(s.begin() + from, s.begin() + to, [](unsigned char c) { return std::isdigit(c) != 0; });
  };
  if (x == std::string::npos || !digits(0, x) || !digits(x + 1, s.size()))
    throw Error("--board: expected COLSxROWS inner corners (e.g. 9x6), got '" + s + "'");
  vision::ChessboardSpec b;
  b.cols = std::stoi(s.substr(0, x));
  b.rows = std::stoi(s.substr(x + 1));
  b.square = square_m;
  if (b.cols < 3 || b.rows < 3 || b.cols > 100 || b.rows > 100)
    throw Error("--board: expected 3..100 inner corners each way, got '" + s + "'");
  if (!(square_m > 0) || square_m > 1) throw Error("--square: expected the square size in m (0, 1], got " + std::to_string(square_m));
  return b;
}

namespace {

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

struct CameraFit {
  cv::Mat K, D;
  double rms = 0;
  std::array<double, 9> sigma{};           // fx fy cx cy k1 k2 p1 p2 k3
  std::vector<double> view_rms;            // per calibrated view
  std::vector<Transform> T_cam_board;      // per calibrated view
};

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

}  // namespace

std::optional<SettingProblem> StereoCalibrationSettings::problem() const {
  auto check = [](const char* name, double x, double lo, double hi) -> std::optional<SettingProblem> {
    if (std::isfinite(x) && x > lo && x <= hi) return std::nullopt;
    return SettingProblem{name, std::string(name) + ": expected a value in (" + exact_number(lo) + ", " +
                                    exact_number(hi) + "], got " + exact_number(x)};
  };
  std::optional<SettingProblem> p = check("max_view_rms_px (--max-view-rms)", max_view_rms_px, 0, 100);
  if (!p) p = check("outlier_factor", outlier_factor, 1, 1e6);
  if (!p) p = check("consistency_px", consistency_px, 0, 1e6);
  if (!p && min_pairs < 3) p = SettingProblem{"min_pairs", "min_pairs must be at least 3"};
  return p;
}

void StereoCalibrationSettings::validate(const std::string& where) const { throw_if(problem(), where); }

StereoCalibration calibrate_stereo(const std::vector<cv::Mat>& left, const std::vector<cv::Mat>& right,
                                   const std::vector<std::string>& names, const vision::ChessboardSpec& board,
                                   const StereoCalibrationSettings& s) {
  if (left.size() != right.size() || left.size() != names.size())
    throw Error("stereo calibration: one right image and one name per left image expected");
  if (left.empty()) throw Error("stereo calibration: no image pairs");
  s.validate();
  const cv::Size size = left[0].size();
  std::vector<cv::Point3f> object;
  for (int r = 0; r < board.rows; ++r)
    for (int c = 0; c < board.cols; ++c)
      object.emplace_back(static_cast<float>(c * board.square), static_cast<float>(r * board.square), 0.f);
  const int flags = s.fix_k3 ? cv::CALIB_FIX_K3 : 0;

  // 1. Corners in every image.
  StereoCalibration out;
  std::vector<std::vector<cv::Point2f>> corners_l(left.size()), corners_r(left.size());
  for (std::size_t i = 0; i < left.size(); ++i) {
    ViewReport v;
    v.name = names[i];
    if (left[i].size() != size || right[i].size() != size) {
      v.rejected = "image size differs from the first pair's";
    } else if (left[i].type() == right[i].type() && cv::norm(left[i], right[i], cv::NORM_INF) == 0) {
      v.rejected = kIdenticalImages;
    } else {
      v.corners_left = find_corners(left[i], board, corners_l[i]);
      v.corners_right = find_corners(right[i], board, corners_r[i]);
      if (!v.corners_left || !v.corners_right)
        v.rejected = std::string("chessboard not found in the ") +
                     (!v.corners_left && !v.corners_right ? "left and right images"
                      : !v.corners_left                   ? "left image"
                                                          : "right image");
    }
    out.views.push_back(v);
  }
  auto candidates = [&] {
    std::vector<std::size_t> c;
    for (std::size_t i = 0; i < out.views.size(); ++i)
      if (out.views[i].rejected.empty()) c.push_back(i);
    return c;
  };
  auto require = [&](const std::vector<std::size_t>& keep, const std::string& stage) {
    if (static_cast<int>(keep.size()) >= s.min_pairs) return;
    const auto first = std::find_if(out.views.begin(), out.views.end(), [](const ViewReport& v) { return !v.rejected.empty(); });
    throw Error("stereo calibration: only " + std::to_string(keep.size()) + " of " + std::to_string(left.size()) +
                " pairs left after " + stage + "; at least " + std::to_string(s.min_pairs) + " are needed" +
                (first == out.views.end() ? std::string()
                                          : " (" + std::to_string(left.size() - keep.size()) + " rejected, e.g. " +
                                                first->name + ": " + first->rejected + ")"));
  };
  if (std::all_of(out.views.begin(), out.views.end(), [](const ViewReport& v) { return v.rejected == kIdenticalImages; }))
    throw Error("stereo calibration: the left and right images of every pair are identical (" + names[0] +
                " ...): the same images given twice? A stereo rig needs two cameras");
  std::vector<std::size_t> keep = candidates();
  require(keep, "chessboard detection");

  // 2. Per-camera intrinsics; views far worse than the others in either camera are dropped.
  CameraFit fl, fr;
  for (int round = 0; round < 3; ++round) {
    std::vector<std::vector<cv::Point2f>> l, r;
    for (std::size_t i : keep) l.push_back(corners_l[i]), r.push_back(corners_r[i]);
    fl = calibrate_one(object, l, size, flags);
    fr = calibrate_one(object, r, size, flags);
    const double limit_l = std::min(s.max_view_rms_px, s.outlier_factor * std::max(median_of(fl.view_rms), 0.02));
    const double limit_r = std::min(s.max_view_rms_px, s.outlier_factor * std::max(median_of(fr.view_rms), 0.02));
    bool dropped = false;
    for (std::size_t k = 0; k < keep.size(); ++k) {
      if (fl.view_rms[k] > limit_l || fr.view_rms[k] > limit_r) {
        const bool is_left = fl.view_rms[k] > limit_l;
        out.views[keep[k]].rejected = std::string(is_left ? "left" : "right") + " camera per-view RMS " +
                                      px(is_left ? fl.view_rms[k] : fr.view_rms[k]) + " above the limit " +
                                      px(is_left ? limit_l : limit_r);
        dropped = true;
      }
    }
    keep = candidates();
    require(keep, "per-camera calibration");
    if (!dropped) break;
  }
  out.left_rms_px = fl.rms;
  out.right_rms_px = fr.rms;
  out.left_sigma = fl.sigma;
  out.right_sigma = fr.sigma;

  // 3. Stereo consistency: every pair implies a right-from-left transform; the one agreeing with
  // most pairs (within max_view_rms_px after carrying the left board pose into the right image)
  // is the consensus, and pairs disagreeing with it (unsynchronised, mismatched, or corners
  // ordered differently in the two images) are dropped before the joint refinement.
  {
    std::vector<Transform> implied;
    for (std::size_t k = 0; k < keep.size(); ++k) implied.push_back(fr.T_cam_board[k] * fl.T_cam_board[k].inverse());
    std::size_t best = 0;
    int best_count = -1;
    double best_median = 0;
    std::vector<double> best_err;
    for (std::size_t a = 0; a < keep.size(); ++a) {
      std::vector<double> err;
      for (std::size_t k = 0; k < keep.size(); ++k)
        err.push_back(stereo_consistency_px(implied[a], fl.T_cam_board[k], object, corners_r[keep[k]], fr.K, fr.D));
      const int count = static_cast<int>(std::count_if(err.begin(), err.end(), [&](double e) { return e <= s.consistency_px; }));
      const double med = median_of(err);
      if (count > best_count || (count == best_count && med < best_median)) best = a, best_count = count, best_median = med, best_err = err;
    }
    (void)best;
    for (std::size_t k = 0; k < keep.size(); ++k)
      if (best_err[k] > s.consistency_px)
        out.views[keep[k]].rejected = "inconsistent with the other pairs' stereo geometry: the left board pose seen "
                                      "from the right camera is " + px(best_err[k]) + " RMS off the right corners";
    keep = candidates();
    require(keep, "the stereo consistency check");
  }

  // 4. Joint refinement (intrinsics as the initial guess), dropping views whose stereo per-view
  // RMS is above the absolute limit or far above the median, until none is.
  cv::Mat K1, D1, K2, D2, R, T, E, F, per_view;
  for (int round = 0; round < 5; ++round) {
    std::vector<std::vector<cv::Point3f>> obj(keep.size(), object);
    std::vector<std::vector<cv::Point2f>> l, r;
    for (std::size_t i : keep) l.push_back(corners_l[i]), r.push_back(corners_r[i]);
    K1 = fl.K.clone(), D1 = fl.D.clone(), K2 = fr.K.clone(), D2 = fr.D.clone();
    out.rms_px = cv::stereoCalibrate(obj, l, r, K1, D1, K2, D2, size, R, T, E, F, per_view,
                                     cv::CALIB_USE_INTRINSIC_GUESS | flags,
                                     cv::TermCriteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 100, 1e-10));
    std::vector<double> view_rms;
    for (int k = 0; k < per_view.rows; ++k)
      view_rms.push_back(std::max(per_view.at<double>(k, 0), per_view.at<double>(k, 1)));
    const double limit = std::min(s.max_view_rms_px, s.outlier_factor * std::max(median_of(view_rms), 0.02));
    bool dropped = false;
    for (std::size_t k = 0; k < keep.size(); ++k)
      if (view_rms[k] > limit) {
        out.views[keep[k]].rejected = "per-view stereo RMS " + px(view_rms[k]) + " above the limit " + px(limit);
        dropped = true;
      }
    if (!dropped) break;
    keep = candidates();
    require(keep, "the per-view stereo error check");
  }
  for (std::size_t j = 0; j < keep.size(); ++j) {
    ViewReport& v = out.views[keep[j]];
    v.used = true;
    v.rms_left_px = per_view.at<double>(static_cast<int>(j), 0);
    v.rms_right_px = per_view.at<double>(static_cast<int>(j), 1);
  }
  out.pairs_used = static_cast<int>(keep.size());

  // Average epipolar error exactly as in OpenCV's samples/cpp/stereo_calib.cpp.
  double err = 0;
  std::size_t npoints = 0;
  for (std::size_t k : keep) {
    std::vector<cv::Point2f> ul, ur;
    std::vector<cv::Vec3f> ll, lr;
    cv::undistortPoints(corners_l[k], ul, K1, D1, cv::noArray(), K1);
    cv::undistortPoints(corners_r[k], ur, K2, D2, cv::noArray(), K2);
    cv::computeCorrespondEpilines(ul, 1, F, ll);
    cv::computeCorrespondEpilines(ur, 2, F, lr);
    for (std::size_t j = 0; j < ul.size(); ++j)
      err += std::abs(ul[j].x * lr[j][0] + ul[j].y * lr[j][1] + lr[j][2]) +
             std::abs(ur[j].x * ll[j][0] + ur[j].y * ll[j][1] + ll[j][2]);
    npoints += ul.size();
  }
  out.epipolar_px = err / static_cast<double>(npoints);

  out.rig.left = to_camera(K1, D1, size);
  out.rig.right = to_camera(K2, D2, size);
  Mat3d Rm;
  Vec3d tv;
  for (int i = 0; i < 3; ++i) {
    tv(i) = T.at<double>(i);
    for (int j = 0; j < 3; ++j) Rm(i, j) = R.at<double>(i, j);
  }
  out.rig.T_R_C.linear() = Rm;
  out.rig.T_R_C.translation() = tv;
  if (tv.norm() < kMinBaseline)
    throw Error("stereo calibration: the baseline came out " + std::to_string(tv.norm() * 1e3) +
                " mm (at least 1 mm expected): the two cameras are one, or the images are of one camera");
  // Standard error of the baseline from the scatter of the baselines each used pair implies on
  // its own (board pose in each camera by solvePnP with the final intrinsics).
  std::vector<double> baselines, angles;
  for (std::size_t k : keep) {
    cv::Mat rl, tl, rr, tr;
    cv::solvePnP(object, corners_l[k], K1, D1, rl, tl, false, cv::SOLVEPNP_ITERATIVE);
    cv::solvePnP(object, corners_r[k], K2, D2, rr, tr, false, cv::SOLVEPNP_ITERATIVE);
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
  for (const auto& [sig, K] : {std::pair{out.left_sigma, K1}, std::pair{out.right_sigma, K2}})
    pp += std::pow(sig[2] / K.at<double>(0, 0), 2) + std::pow(sig[3] / K.at<double>(1, 1), 2);
  out.rotation_sigma_rad = std::sqrt(ss / static_cast<double>(angles.size()) + pp);
  return out;
}

StereoCalibration calibrate_stereo(const std::vector<ImagePair>& pairs, const vision::ChessboardSpec& board,
                                   const StereoCalibrationSettings& s) {
  s.validate();  // before any image is read (the in-memory overload checks again)
  std::vector<cv::Mat> l, r;
  std::vector<std::string> names;
  for (const auto& p : pairs) {
    l.push_back(vision::read_image(p.left, vision::ImageDepth::EightBit));
    r.push_back(vision::read_image(p.right, vision::ImageDepth::EightBit));
    names.push_back(fs::path(p.left).filename().string());
  }
  return calibrate_stereo(l, r, names, board, s);
}

}  // namespace vcloe::calib
