// Specification of the camera and rig model, marker layouts, labelling and rigid registration
// (docs/design.md §7): projection and undistortion agree with OpenCV, triangulation recovers points,
// file errors name the file, line and key, and Umeyama never returns a reflection.
#include <gtest/gtest.h>

#include "../test_support.hpp"

#include <functional>
#include <opencv2/calib3d.hpp>
#include <random>

#include "vcloe/core/error.hpp"
#include "vcloe/vision/pose.hpp"
#include "vision_fixtures.hpp"

using namespace vcloe;
using namespace vcloe::vision;
using namespace vcloe::vision::fixtures;

namespace {

using vcloe::test::error_of;

cv::Mat K_of(const Camera& c) { return (cv::Mat_<double>(3, 3) << c.fx, 0, c.cx, 0, c.fy, c.cy, 0, 0, 1); }
cv::Mat D_of(const Camera& c) {
  return (cv::Mat_<double>(1, 5) << c.distortion[0], c.distortion[1], c.distortion[2], c.distortion[3],
          c.distortion[4]);
}

std::string rig_text() {
  return "format: vcloe-rig-1\n"
         "left:\n  image_size: [640, 480]\n  focal_px: [800, 801]\n  principal_point_px: [320, 240]\n"
         "  distortion: [-0.1, 0.05, 0.001, -0.001, 0.01]\n"
         "right:\n  image_size: [640, 480]\n  focal_px: [800, 801]\n  principal_point_px: [320, 240]\n"
         "  distortion: [0, 0, 0, 0, 0]\n"
         "right_from_left:\n  rotation_vector: [0, 0.1, 0]\n  translation: [-0.2, 0, 0]\n";
}

}  // namespace

TEST(Camera, ProjectionAgreesWithOpenCVsProjectPoints) {
  const StereoRig rig = default_rig();
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-0.4, 0.4), z(0.6, 1.6);
  for (const Camera* cam : {&rig.left, &rig.right}) {
    std::vector<cv::Point3d> pts;
    for (int i = 0; i < 200; ++i) pts.emplace_back(u(rng), u(rng), z(rng));
    std::vector<cv::Point2d> ref;
    cv::projectPoints(pts, cv::Vec3d(0, 0, 0), cv::Vec3d(0, 0, 0), K_of(*cam), D_of(*cam), ref);
    double worst = 0;
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const Vec2d p = cam->project(Vec3d(pts[i].x, pts[i].y, pts[i].z));
      worst = std::max(worst, std::hypot(p.x() - ref[i].x, p.y() - ref[i].y));
    }
    EXPECT_LT(worst, 1e-9);
  }
}

TEST(Camera, UndistortionInvertsTheDistortionAndAgreesWithOpenCV) {
  const Camera cam = default_rig().left;
  std::vector<cv::Point2d> px;
  for (int y = 0; y < cam.height; y += 150)
    for (int x = 0; x < cam.width; x += 150) px.emplace_back(x, y);
  std::vector<cv::Point2d> ref;
  cv::undistortPoints(px, ref, K_of(cam), D_of(cam), cv::noArray(), cv::noArray(),
                      cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 100, 1e-15));
  double round_trip = 0, vs_opencv = 0;
  for (std::size_t i = 0; i < px.size(); ++i) {
    const Vec2d n = cam.undistort_to_normalized(Vec2d(px[i].x, px[i].y));
    round_trip = std::max(round_trip, (cam.distort_normalized(n) - Vec2d(px[i].x, px[i].y)).norm());
    vs_opencv = std::max(vs_opencv, cam.fx * std::hypot(n.x() - ref[i].x, n.y() - ref[i].y));
  }
  EXPECT_LT(round_trip, 1e-8);  // px
  EXPECT_LT(vs_opencv, 1e-6);   // px (OpenCV's fixed-point iteration converges more loosely)
}

TEST(Camera, TriangulationRecoversPointsAndAgreesWithOpenCV) {
  const StereoRig rig = default_rig();
  const Transform T_C_O = *rig.T_C_O;
  std::vector<Vec2d> l, r;
  std::vector<Vec3d> truth;
  for (const Vec3d& p_O : {Vec3d(0, 0, 0.2), Vec3d(0.1, -0.05, 0.25), Vec3d(-0.12, 0.08, 0.15)}) {
    truth.push_back(T_C_O * p_O);
    l.push_back(rig.left.project(truth.back()));
    r.push_back(rig.project_right(truth.back()));
  }
  const std::vector<StereoPoint> pts = triangulate_matches(rig, l, r, 1.0);
  ASSERT_EQ(pts.size(), 3u);  // the true matches only: the others are far from the epipolar line
  // OpenCV's linear triangulation on the undistorted normalized points.
  cv::Mat P1 = cv::Mat::eye(3, 4, CV_64F), P2(3, 4, CV_64F);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) P2.at<double>(i, j) = rig.T_R_C.linear()(i, j);
    P2.at<double>(i, 3) = rig.T_R_C.translation()(i);
  }
  for (const StereoPoint& p : pts) {
    ASSERT_EQ(p.left, p.right);
    EXPECT_LT((p.p_C - truth[static_cast<std::size_t>(p.left)]).norm(), 1e-10);
    EXPECT_LT(p.reprojection_px, 1e-6);
    const Vec2d a = rig.left.undistort_to_normalized(l[static_cast<std::size_t>(p.left)]);
    const Vec2d b = rig.right.undistort_to_normalized(r[static_cast<std::size_t>(p.right)]);
    cv::Mat X;
    cv::triangulatePoints(P1, P2, cv::Mat(cv::Point2d(a.x(), a.y())), cv::Mat(cv::Point2d(b.x(), b.y())), X);
    const Vec3d x(X.at<double>(0) / X.at<double>(3), X.at<double>(1) / X.at<double>(3),
                  X.at<double>(2) / X.at<double>(3));
    EXPECT_LT((x - p.p_C).norm(), 1e-9);
  }
}

TEST(RigFile, RoundTripsAndErrorsNameFileLineAndKey) {
  const StereoRig rig = parse_rig(rig_text(), "rig.yaml");
  EXPECT_EQ(rig.left.width, 640);
  EXPECT_DOUBLE_EQ(rig.left.distortion[4], 0.01);
  EXPECT_FALSE(rig.T_C_O.has_value());
  const StereoRig back = parse_rig(rig_to_yaml(rig, "round trip"), "again.yaml");
  EXPECT_LT((back.T_R_C.matrix() - rig.T_R_C.matrix()).norm(), 1e-15);  // via the rotation vector
  EXPECT_EQ(back.right.fy, rig.right.fy);

  std::string text = rig_text();
  text.replace(text.find("focal_px: [800, 801]"), 20, "focal_px: [800]");
  EXPECT_EQ(error_of([&] { parse_rig(text, "rig.yaml"); }),
            "rig.yaml:4: key 'left.focal_px': expected a list of 2 numbers, got 1");
  text = rig_text();
  text.replace(text.find("distortion: [0, 0, 0, 0, 0]"), 27, "distortion: [0, 0, 0, 0]");
  EXPECT_NE(error_of([&] { parse_rig(text, "rig.yaml"); }).find("key 'right.distortion'"), std::string::npos);
  EXPECT_NE(error_of([&] { parse_rig(rig_text() + "baseline: 3\n", "rig.yaml"); }).find("unknown key"),
            std::string::npos);
  text = rig_text();
  text.replace(text.find("translation: [-0.2, 0, 0]"), 25, "translation: [0, 0, 0]");
  EXPECT_NE(error_of([&] { parse_rig(text, "rig.yaml"); }).find("baseline"), std::string::npos);
  EXPECT_NE(error_of([] { load_rig("/nonexistent/rig.yaml"); }).find("/nonexistent/rig.yaml"), std::string::npos);
}

TEST(RigFile, ImageSizesAreBoundedBeforeAnyImageIsAllocated) {
  // 60000 x 60000 px made `vcloe render` ask OpenCV for 14 GB (exit 3); 1e12 px overflowed int.
  for (const std::string size : {"[60000, 60000]", "[1e12, 16]", "[15000, 15000]", "[15, 480]", "[640.5, 480]"}) {
    std::string text = rig_text();
    text.replace(text.find("[640, 480]"), 10, size);
    EXPECT_NE(error_of([&] { parse_rig(text, "rig.yaml"); })
                  .find("rig.yaml:3: key 'left.image_size': expected [width, height] in whole pixels, 16 to 20000 "
                        "each and at most 100 Mpx"),
              std::string::npos)
        << size;
  }
  // Session 23: focal lengths within 1 to 1e6 px (1e300 drew every marker off the image, unsaid).
  for (const std::string focal : {"[1e300, 801]", "[800, 1.5e6]", "[0.5, 801]", "[-800, 801]"}) {
    std::string text = rig_text();
    text.replace(text.find("[800, 801]"), 10, focal);
    EXPECT_NE(error_of([&] { parse_rig(text, "rig.yaml"); })
                  .find("rig.yaml:4: key 'left.focal_px': expected two focal lengths [fx, fy] in [1, 1e+06] px, got ["),
              std::string::npos)
        << focal;
  }
  std::string ends = rig_text();
  ends.replace(ends.find("[800, 801]"), 10, "[1, 1e6]");
  EXPECT_EQ(parse_rig(ends, "rig.yaml").left.fy, 1e6);
  std::string largest = rig_text();
  largest.replace(largest.find("[640, 480]"), 10, "[10000, 10000]");
  EXPECT_EQ(parse_rig(largest, "rig.yaml").left.width, 10000);
}

TEST(MarkerFile, DefaultLayoutsAreLabellableAndBadLayoutsAreClearErrors) {
  const MarkerSet m = default_markers();
  EXPECT_EQ(m.platform.size(), 7u);
  EXPECT_EQ(m.base.size(), 6u);
  EXPECT_EQ(layout_problem(m.platform, m.min_distance_gap), "");
  const std::string head = "format: vcloe-markers-1\ndiameter: 0.008\nbase:\n"
                           "  - {name: B1, position: [0, 0, 0]}\n  - {name: B2, position: [0.1, 0, 0]}\n"
                           "  - {name: B3, position: [0, 0.13, 0]}\n  - {name: B4, position: [0.02, 0.03, 0.17]}\n";
  // Coplanar platform markers.
  const std::string coplanar = head + "platform:\n  - {name: P1, position: [0, 0, 0]}\n"
                                      "  - {name: P2, position: [0.1, 0, 0]}\n  - {name: P3, position: [0, 0.13, 0]}\n"
                                      "  - {name: P4, position: [0.05, 0.07, 0]}\n";
  const std::string e1 = error_of([&] { parse_markers(coplanar, "markers.yaml"); });
  EXPECT_NE(e1.find("markers.yaml"), std::string::npos) << e1;
  EXPECT_NE(e1.find("key 'platform'"), std::string::npos) << e1;
  EXPECT_NE(e1.find("coplanar"), std::string::npos) << e1;
  // Two equal pairwise distances (a square's sides) cannot be labelled.
  const std::string square = head + "platform:\n  - {name: P1, position: [0, 0, 0]}\n"
                                    "  - {name: P2, position: [0.1, 0, 0]}\n  - {name: P3, position: [0.1, 0.1, 0]}\n"
                                    "  - {name: P4, position: [0, 0.1, 0.05]}\n";
  EXPECT_NE(error_of([&] { parse_markers(square, "markers.yaml"); }).find("not unique enough"), std::string::npos);
  const std::string dup = head + "platform:\n  - {name: B1, position: [0, 0, 0]}\n  - {name: B1, position: [1, 0, 0]}\n";
  EXPECT_NE(error_of([&] { parse_markers(dup, "markers.yaml"); }).find("unique"), std::string::npos);
}

TEST(Labelling, FindsTheLayoutAmongShuffledAndExtraPoints) {
  const MarkerLayout& L = default_markers().platform;
  const Transform T = transform_from_pose((Vec6d() << 0.1, -0.2, 1.0, 0.3, -0.2, 1.1).finished());
  std::vector<Vec3d> pts;
  std::vector<int> truth_index;
  for (std::size_t i = 0; i < L.size(); ++i) pts.push_back(T * L.positions[i]);
  pts.push_back(T * Vec3d(0.03, 0.02, 0.01));   // a stray reflection near the platform
  pts.push_back(T * Vec3d(-0.05, 0.09, 0.06));
  std::vector<int> order(pts.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::shuffle(order.begin(), order.end(), std::mt19937(9));
  std::vector<Vec3d> shuffled;
  for (int k : order) shuffled.push_back(pts[static_cast<std::size_t>(k)]);
  const Labelling lab = label_by_distances(L, shuffled, 0.0015, 3);
  ASSERT_EQ(lab.labelled, 7);
  for (std::size_t i = 0; i < L.size(); ++i) EXPECT_EQ(order[static_cast<std::size_t>(lab.point_of_marker[i])], static_cast<int>(i));
  EXPECT_LT(lab.max_distance_error, 1e-12);
}

TEST(RigFile, ALensModelThatFoldsBackInsideTheImageIsRefusedAtItsKey) {
  // Session 31 (probe 31, CB09): k1 = -80 was read, then `calibrate base` found "no frame with a
  // valid base-marker measurement". r (1 + k1 r^2 + k2 r^4 + k3 r^6) must increase up to the image
  // corners (normalized radius 0.5 here), or two points share one pixel.
  for (const std::string d : {"[-80, 0, 0, 0, 0]", "[-1.2, 0, 0, 0, 0]", "[0, -3, 0, 0, 0]", "[0.2, 0, 0, 0, -40]"}) {
    std::string text = rig_text();
    text.replace(text.find("[-0.1, 0.05, 0.001, -0.001, 0.01]"), 33, d);
    EXPECT_NE(error_of([&] { parse_rig(text, "rig.yaml"); })
                  .find("rig.yaml:6: key 'left.distortion': the radial distortion [k1, k2, k3] = ["),
              std::string::npos)
        << d;
  }
  // Strong but one-to-one lenses are read: barrel that still increases at the corners, pincushion,
  // a k1 that a k2 bends back up before the corners.
  for (const std::string d : {"[-0.5, 0, 0, 0, 0]", "[-0.5, 0.2, 0, 0, 0.05]", "[3, 0, 0, 0, 0]", "[-2, 3, 0, 0, 0]"}) {
    std::string text = rig_text();
    text.replace(text.find("[-0.1, 0.05, 0.001, -0.001, 0.01]"), 33, d);
    EXPECT_NO_THROW(parse_rig(text, "rig.yaml")) << d;
  }
}

TEST(RigidFit, UmeyamaWithoutScaleNeverReturnsAReflection) {
  const MarkerLayout& L = default_markers().platform;
  const Transform T = transform_from_pose((Vec6d() << 0.1, -0.2, 1.0, 0.3, -0.2, 1.1).finished());
  std::vector<Vec3d> measured, mirrored;
  for (const Vec3d& p : L.positions) {
    measured.push_back(T * p);
    mirrored.push_back(T * Vec3d(p.x(), p.y(), -p.z()));
  }
  const RigidFit fit = fit_rigid(L.positions, measured);
  EXPECT_LT((fit.T.matrix() - T.matrix()).norm(), 1e-12);
  EXPECT_LT(fit.fre_rms, 1e-12);
  const RigidFit bad = fit_rigid(L.positions, mirrored);
  EXPECT_NEAR(bad.T.linear().determinant(), 1.0, 1e-12);
  EXPECT_GT(bad.fre_rms, 0.005);  // a mirror image is not explained away: a large FRE, an invalid pose
  EXPECT_THROW(fit_rigid({L.positions[0], L.positions[1]}, {measured[0], measured[1]}), Error);
}
