// Specification of the stereo calibration (docs/design.md §7, issue 6): on chessboards rendered
// through a known rig (the default rig's geometry at a quarter of its resolution), the
// intrinsics and the baseline are recovered, bad views are rejected, and the rig file written
// reads back.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <iostream>
#include <opencv2/imgcodecs.hpp>
#include <random>
#include <tuple>

#include "../vision/vision_fixtures.hpp"
#include "vcloe/calib/stereo_calibration.hpp"
#include "vcloe/core/error.hpp"

using namespace vcloe;
using namespace vcloe::vision;
using namespace vcloe::calib;
using namespace vcloe::vision::fixtures;

namespace {

Camera quarter(Camera c) {
  c.width /= 4, c.height /= 4;
  c.fx /= 4, c.fy /= 4, c.cx = (c.cx + 0.5) / 4 - 0.5, c.cy = (c.cy + 0.5) / 4 - 0.5;
  return c;
}

struct Rendered {
  StereoRig truth;
  std::vector<cv::Mat> left, right;
  std::vector<std::string> names;
};

// Board poses spread over the common field of view (so the distortion is constrained out to the
// image corners), facing between the two cameras, tilted up to +-0.45 rad.
Rendered render_views(int n, const ChessboardSpec& board, std::uint64_t seed) {
  Rendered r;
  const StereoRig full = default_rig();
  r.truth = full;
  r.truth.left = quarter(full.left);
  r.truth.right = quarter(full.right);
  const Vec3d aim = *full.T_C_O * Vec3d(0, 0, 0.10);
  const Vec3d mid = 0.5 * (full.T_R_C.inverse().translation());
  const Vec3d zb = (aim - mid).normalized();  // board normal, away from the cameras
  const Vec3d xb = Vec3d::UnitX().cross(zb).cross(zb).normalized() * -1;
  Mat3d R0;
  R0.col(0) = xb;
  R0.col(1) = zb.cross(xb);
  R0.col(2) = zb;
  std::mt19937 rng(static_cast<unsigned>(seed));
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Transform> T_L, T_R;
  const Vec3d centre_B(0.5 * (board.cols - 1) * board.square, 0.5 * (board.rows - 1) * board.square, 0);
  while (static_cast<int>(T_L.size()) < n) {
    Transform T = Transform::Identity();
    T.linear() = R0 * rotation_xyz(0.45 * u(rng), 0.45 * u(rng), 0.5 * u(rng));
    T.translation() = aim + R0 * Vec3d(0.25 * u(rng), 0.18 * u(rng), 0.12 * u(rng)) - T.linear() * centre_B;
    // Keep poses whose whole board (with its margin) is inside both images.
    bool inside = true;
    for (double x : {-1.0, double(board.cols)})
      for (double y : {-1.0, double(board.rows)}) {
        const Vec3d p = T * Vec3d(x * board.square, y * board.square, 0);
        inside = inside && r.truth.left.in_image(r.truth.left.project(p), 8) &&
                 r.truth.right.in_image(r.truth.right.project(full.T_R_C * p), 8);
      }
    if (!inside) continue;
    T_L.push_back(T);
    T_R.push_back(full.T_R_C * T);
    r.names.push_back("left_" + std::to_string(T_L.size() - 1) + ".png");
  }
  r.left = render_chessboards(r.truth.left, board, T_L, seed);
  r.right = render_chessboards(r.truth.right, board, T_R, seed + 1);
  return r;
}

}  // namespace

TEST(StereoCalibration, RecoversIntrinsicsAndBaselineFromRenderedChessboardsAndRejectsBadPairs) {
  const ChessboardSpec board{9, 6, 0.04};
  Rendered r = render_views(16, board, 5);
  // Two bad pairs: their right images show another pair's board pose (the board moved between
  // the exposures of unsynchronised cameras).
  std::swap(r.right[14], r.right[15]);
  const StereoCalibration c = calibrate_stereo(r.left, r.right, r.names, board);
  const Camera& L = c.rig.left;
  const Camera& T = r.truth.left;
  std::cout << "[ measured ] stereo calibration (rendered, true rig at 1/4 resolution): rms " << c.rms_px
            << " px, epipolar " << c.epipolar_px << " px, pairs used " << c.pairs_used << "\n  left fx " << L.fx
            << " (true " << T.fx << ", sigma " << c.left_sigma[0] << "), fy " << L.fy << " (" << T.fy << "), cx " << L.cx
            << " (" << T.cx << ", sigma " << c.left_sigma[2] << "), cy " << L.cy << " (" << T.cy << "), k1 "
            << L.distortion[0] << " (" << T.distortion[0] << ", sigma " << c.left_sigma[4] << ")\n  right fx "
            << c.rig.right.fx << " (" << r.truth.right.fx << "), cx " << c.rig.right.cx << " (" << r.truth.right.cx
            << ")\n  baseline " << c.rig.T_R_C.translation().norm() * 1e3 << " mm (true "
            << r.truth.T_R_C.translation().norm() * 1e3 << " mm, sigma " << c.baseline_sigma_m * 1e3
            << " mm), rotation error " << rotation_angle_between(c.rig.T_R_C, r.truth.T_R_C) * 1e3 << " mrad (sigma "
            << c.rotation_sigma_rad * 1e3 << " mrad)\n";
  for (const auto& v : c.views)
    if (!v.used) std::cout << "  rejected " << v.name << ": " << v.rejected << "\n";
  // Corner noise of the renders is ~0.05 px: anything far above means a wrong model or wrong pairs.
  EXPECT_LT(c.rms_px, 0.1);
  EXPECT_LT(c.epipolar_px, 0.15);
  EXPECT_EQ(c.pairs_used, 14);
  for (int k : {14, 15}) {
    EXPECT_FALSE(c.views[static_cast<std::size_t>(k)].used);
    EXPECT_NE(c.views[static_cast<std::size_t>(k)].rejected.find("inconsistent"), std::string::npos);
  }
  // Tolerances: 5 standard deviations of OpenCV's own per-camera estimate (the joint refinement
  // only tightens them), so a failure means a bias, not bad luck.
  for (const auto& [est, tru, sig] : {std::tuple{c.rig.left, r.truth.left, c.left_sigma},
                                      std::tuple{c.rig.right, r.truth.right, c.right_sigma}}) {
    EXPECT_NEAR(est.fx, tru.fx, 5 * sig[0]);
    EXPECT_NEAR(est.fy, tru.fy, 5 * sig[1]);
    EXPECT_NEAR(est.cx, tru.cx, 5 * sig[2]);
    EXPECT_NEAR(est.cy, tru.cy, 5 * sig[3]);
    EXPECT_NEAR(est.distortion[0], tru.distortion[0], 5 * sig[4]);
    EXPECT_LT(sig[0] / tru.fx, 0.002);  // and the estimate is informative (fx to 0.2 %)
  }
  EXPECT_NEAR(c.rig.T_R_C.translation().norm(), r.truth.T_R_C.translation().norm(), 5 * c.baseline_sigma_m);
  EXPECT_LT(c.baseline_sigma_m, 0.5e-3);
  EXPECT_LT(rotation_angle_between(c.rig.T_R_C, r.truth.T_R_C), 5 * c.rotation_sigma_rad);
  EXPECT_LT(rotation_angle_between(c.rig.T_R_C, r.truth.T_R_C), 1e-3);

  // The rig file it writes reads back.
  const StereoRig back = parse_rig(rig_to_yaml(c.rig, "test"), "written.yaml");
  EXPECT_EQ(back.left.fx, c.rig.left.fx);
  EXPECT_LT((back.T_R_C.matrix() - c.rig.T_R_C.matrix()).norm(), 1e-12);
  EXPECT_FALSE(back.T_C_O.has_value());
}

// Real photographs: OpenCV's stereo sample images (tests/data/stereo_opencv/README.md). OpenCV's
// own samples/cpp/stereo_calib.cpp reports RMS 0.634183 px and average epipolar error 0.445411 px
// on these 13 pairs (9x6 inner corners); we must do at least as well.
TEST(StereoCalibration, RealPhotographsAtLeastAsGoodAsOpenCVsSample) {
  const auto pairs = find_image_pairs(VCLOE_SOURCE_DIR "/tests/data/stereo_opencv");
  ASSERT_EQ(pairs.size(), 13u);
  const StereoCalibration c = calibrate_stereo(pairs, parse_board("9x6", 0.025));
  std::cout << "[ measured ] OpenCV sample photographs: rms " << c.rms_px << " px (sample 0.634), epipolar "
            << c.epipolar_px << " px (sample 0.445), pairs used " << c.pairs_used << ", baseline "
            << c.rig.T_R_C.translation().norm() * 1e3 << " mm\n";
  for (const auto& v : c.views)
    if (!v.used) std::cout << "  rejected " << v.name << ": " << v.rejected << "\n";
  EXPECT_LE(c.rms_px, 0.634183);
  EXPECT_LE(c.epipolar_px, 0.445411);
  EXPECT_GE(c.pairs_used, 10);
}

TEST(StereoCalibration, ImagePairsByNameOrListAndClearErrors) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("vcloe_pairs_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const cv::Mat img(8, 8, CV_8U, cv::Scalar(0));
  for (const char* f : {"left01.png", "right01.png", "left02.png", "right02.png"}) cv::imwrite((dir / f).string(), img);
  auto pairs = find_image_pairs(dir.string());
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(fs::path(pairs[0].left).filename(), "left01.png");
  EXPECT_EQ(fs::path(pairs[0].right).filename(), "right01.png");
  {
    std::ofstream list(dir / "pairs.txt");
    list << "# left right\nleft02.png right01.png\n";
  }
  pairs = find_image_pairs((dir / "pairs.txt").string());
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(fs::path(pairs[0].right).filename(), "right01.png");
  cv::imwrite((dir / "left03.png").string(), img);
  try {
    find_image_pairs(dir.string());
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("left03.png"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_board("9by6", 0.04), Error);
  for (const char* bad : {"9x99999999999", "x6", "9x", "9x6x", " 9x6", "+9x6", "9x 6"})
    EXPECT_THROW(parse_board(bad, 0.04), Error) << bad;
  EXPECT_THROW(parse_board("9x6", -1), Error);
  EXPECT_EQ(parse_board("9x6", 0.04).rows, 6);
  fs::remove_all(dir);
}

TEST(StereoCalibration, OneCameraSeenTwiceIsRefusedNotWrittenAsARigWithoutBaseline) {
  // The same photographs as left and right: identical images are rejected per view (and all of
  // them: an error saying so); re-encoded copies (1 DN apart) reach the solver and come out with
  // no baseline, which a rig file cannot hold: an error, not a 0 mm rig.
  const auto pairs = find_image_pairs(VCLOE_SOURCE_DIR "/tests/data/stereo_opencv");
  std::vector<cv::Mat> left, nudged;
  std::vector<std::string> names;
  for (const auto& p : pairs) {
    left.push_back(cv::imread(p.left, cv::IMREAD_GRAYSCALE));
    cv::Mat copy = left.back().clone();
    copy.at<unsigned char>(0, 0) ^= 1;
    nudged.push_back(copy);
    names.push_back(std::filesystem::path(p.left).filename().string());
  }
  const ChessboardSpec board = parse_board("9x6", 0.025);
  try {
    calibrate_stereo(left, left, names, board);
    FAIL() << "identical images accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the left and right images of every pair are identical"), std::string::npos)
        << e.what();
  }
  try {
    calibrate_stereo(left, nudged, names, board);
    FAIL() << "a 0 mm baseline accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the baseline came out"), std::string::npos) << e.what();
  }
}

TEST(StereoCalibration, ImagePairsAreInFrameOrderWhenTheirNamesAreNumbered) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("vcloe_frames_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const cv::Mat img(8, 8, CV_8U, cv::Scalar(0));
  for (const char* f : {"left_9.png", "right_9.png", "left_10.png", "right_10.png", "left_8.png", "right_8.png"})
    cv::imwrite((dir / f).string(), img);
  const auto pairs = find_image_pairs(dir.string());  // name order would put 10 before 8 and 9
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_EQ(pairs[0].frame, 8);
  EXPECT_EQ(pairs[1].frame, 9);
  EXPECT_EQ(pairs[2].frame, 10);
  EXPECT_EQ(fs::path(pairs[2].right).filename(), "right_10.png");
  fs::remove_all(dir);
}

TEST(StereoCalibration, SettingsAndImageSourcesAreCheckedBeforeAnyImageIsRead) {
  StereoCalibrationSettings s;
  s.max_view_rms_px = std::nan("");  // every view passed a NaN limit
  try {
    s.validate();
    FAIL() << "a NaN limit accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "stereo calibration: max_view_rms_px (--max-view-rms): expected a value in (0, 100], got nan");
  }
  // A device is neither a directory of images nor a list (it was a filesystem_error, exit 3).
  try {
    find_image_pairs("/dev/null");
    FAIL() << "/dev/null accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "/dev/null: expected a directory of images or a list file, got a device or pipe");
  }
  // Board sizes beyond an int were std::stoi's exception (exit 3).
  EXPECT_THROW(parse_board("99999999999x6", 0.025), Error);
}

TEST(StereoCalibration, APairListNamesPathsWithSpacesInDoubleQuotes) {
  // cals-list-file-spaces: a list could not name images whose path holds a space, quoted or not.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("vcloe_pairs_spaces_" + std::to_string(::getpid())) / "a b";
  fs::remove_all(dir.parent_path());
  fs::create_directories(dir);
  const cv::Mat img(8, 8, CV_8U, cv::Scalar(0));
  for (const char* f : {"l 0.png", "r 0.png", "left1.png", "right1.png"}) cv::imwrite((dir / f).string(), img);
  std::ofstream(dir.parent_path() / "list.txt") << "\"a b/l 0.png\" \"a b/r 0.png\"\r\n"
                                                   "  \"a b/left1.png\"\t\"a b/right1.png\"  # plain pairs too\n";
  const auto pairs = find_image_pairs((dir.parent_path() / "list.txt").string());
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(fs::path(pairs[0].left).filename(), "l 0.png");
  EXPECT_EQ(fs::path(pairs[0].right).filename(), "r 0.png");
  EXPECT_EQ(fs::path(pairs[1].right).filename(), "right1.png");
  for (const std::string& line : {std::string("a b/l 0.png a b/r 0.png\n"), std::string("\"a b/l 0.png\n")}) {
    std::ofstream(dir.parent_path() / "bad.txt", std::ios::trunc) << line;
    try {
      find_image_pairs((dir.parent_path() / "bad.txt").string());
      ADD_FAILURE() << line;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("bad.txt:1: "), std::string::npos) << e.what();
    }
  }
}
