#include "vcloe/calib/stereo_calibration.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "stereo_steps.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/vision/image_file.hpp"

namespace vcloe::calib {

namespace fs = std::filesystem;
using namespace stereo_steps;

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
  if (!(square_m > 0) || square_m > 1) throw Error("--square: expected the square size in m (0, 1], got " + exact_number(square_m));
  return b;
}

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

  // 1. Corners in every image.
  Selection sel{{}, {}, s.min_pairs};
  const Detections d = detect(left, right, names, board, s.fix_k3, sel.views);
  if (std::all_of(sel.views.begin(), sel.views.end(), [](const ViewReport& v) { return v.rejected == kIdenticalImages; }))
    throw Error("stereo calibration: the left and right images of every pair are identical (" + names[0] +
                " ...): the same images given twice? A stereo rig needs two cameras");
  sel.refresh("chessboard detection");

  StereoCalibration out;
  const auto [fl, fr] = fit_cameras(d, s, sel);  // 2.
  out.left_rms_px = fl.rms;
  out.right_rms_px = fr.rms;
  out.left_sigma = fl.sigma;
  out.right_sigma = fr.sigma;
  drop_inconsistent(d, fl, fr, s.consistency_px, sel);  // 3.
  const StereoFit f = refine_jointly(d, fl, fr, s, sel);  // 4.
  out.rms_px = f.rms;
  for (std::size_t j = 0; j < sel.keep.size(); ++j) {
    ViewReport& v = sel.views[sel.keep[j]];
    v.used = true;
    v.rms_left_px = f.per_view.at<double>(static_cast<int>(j), 0);
    v.rms_right_px = f.per_view.at<double>(static_cast<int>(j), 1);
  }
  out.pairs_used = static_cast<int>(sel.keep.size());
  out.epipolar_px = epipolar_px(d, f, sel.keep);
  out.rig = rig_from(f, d.size);
  set_uncertainty(d, f, sel.keep, out);
  out.views = std::move(sel.views);
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
