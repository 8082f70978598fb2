// Specification of the camera-to-base calibration (Li et al. 2019 eq. 28, docs/design.md §7, issue 6):
// directly from the base markers, cross-checked by robot-world/hand-eye calibration over
// commanded platform poses measured by the pipeline, on the virtual rig at 0.05 px.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "../vision/vision_fixtures.hpp"
#include "vcloe/calib/camera_to_base.hpp"
#include "vcloe/core/error.hpp"

using namespace vcloe;
using namespace vcloe::vision;
using namespace vcloe::calib;
using namespace vcloe::vision::fixtures;

namespace {

struct VirtualRig {
  StereoRig truth = default_rig();
  StereoRig uncalibrated = [this] {
    StereoRig r = truth;
    r.T_C_O.reset();
    return r;
  }();
  PipelineSettings settings = [] {
    PipelineSettings s;
    s.base_per_frame = true;
    return s;
  }();
  PosePipeline pipeline{uncalibrated, default_markers(), settings};
};

// Commanded poses for the cross-check: rotations about all three axes (hand-eye needs them).
std::vector<Transform> commanded_poses(int n) {
  std::vector<Transform> poses;
  for (int i = 0; i < n; ++i) {
    const double a = 2 * M_PI * i / n;
    Vec6d chi;
    chi << 0.02 * std::cos(a), 0.02 * std::sin(2 * a), 0.18 + 0.015 * std::sin(a), 0.12 * std::sin(a),
        0.12 * std::cos(a), 0.15 * std::sin(3 * a + 0.3);
    poses.push_back(transform_from_pose(chi));
  }
  return poses;
}

}  // namespace

TEST(CameraToBase, FromBaseMarkersAndHandEyeCrossCheckAgreeWithTruth) {
  VirtualRig v;
  CentroidNoiseModel model(v.truth, v.pipeline, 0.05, 42);
  const Transform home = transform_from_pose(trajectory_pose(0));
  std::vector<BodyMeasurement> base;
  for (int k = 0; k < 50; ++k) {
    const PoseMeasurement m = model.measure(home);
    ASSERT_TRUE(m.base.valid) << m.base.reason;
    ASSERT_EQ(m.base.markers_used.size(), 6u);
    base.push_back(m.base);
  }
  const TransformEstimate direct = camera_to_base_from_markers(base);
  const TransformDifference e_direct = difference(direct.T, *v.truth.T_C_O);

  std::vector<Transform> measured, commanded = commanded_poses(30);
  for (const Transform& T_O_E : commanded) {
    const PoseMeasurement m = model.measure(T_O_E);
    ASSERT_TRUE(m.platform.valid) << m.platform.reason;
    measured.push_back(m.platform.T_C_B);
  }
  const HandEyeEstimate he = camera_to_base_hand_eye(measured, commanded);
  const TransformDifference e_he = difference(he.camera_to_base.T, *v.truth.T_C_O);
  const TransformDifference between = difference(direct.T, he.camera_to_base.T);
  std::cout << "[ measured ] camera-to-base from base markers (50 frames): " << e_direct.position_m * 1e3
            << " mm, " << e_direct.rotation_rad * 1e3 << " mrad from truth (standard error "
            << direct.sigma_position_m * 1e3 << " mm, " << direct.sigma_rotation_rad * 1e3 << " mrad)\n"
            << "[ measured ] hand-eye (30 poses): " << e_he.position_m * 1e3 << " mm, " << e_he.rotation_rad * 1e3
            << " mrad from truth (standard error " << he.camera_to_base.sigma_position_m * 1e3 << " mm, "
            << he.camera_to_base.sigma_rotation_rad * 1e3 << " mrad); disagreement " << between.position_m * 1e3
            << " mm, " << between.rotation_rad * 1e3 << " mrad; |T_M_E - I| "
            << difference(he.T_M_E, Transform::Identity()).position_m * 1e3 << " mm\n"
            << "[ measured ] OpenCV closed form (Shah) alone: "
            << difference(he.closed_form_T_C_O, *v.truth.T_C_O).position_m * 1e3 << " mm, "
            << difference(he.closed_form_T_C_O, *v.truth.T_C_O).rotation_rad * 1e3 << " mrad from truth\n";
  // Acceptance: <= 0.1 mm and <= 0.1 mrad from truth.
  EXPECT_LE(e_direct.position_m, 0.1e-3);
  EXPECT_LE(e_direct.rotation_rad, 0.1e-3);
  // Each estimate is as far from truth as its own sigma says (3 sigma; sigma is the expected
  // length of the error vector), and the cross-check agrees within the combined sigma.
  EXPECT_LE(e_direct.position_m, 3 * direct.sigma_position_m);
  EXPECT_LE(e_direct.rotation_rad, 3 * direct.sigma_rotation_rad);
  EXPECT_LE(e_he.position_m, 3 * he.camera_to_base.sigma_position_m);
  EXPECT_LE(e_he.rotation_rad, 3 * he.camera_to_base.sigma_rotation_rad);
  const double sp = std::hypot(direct.sigma_position_m, he.camera_to_base.sigma_position_m);
  const double sr = std::hypot(direct.sigma_rotation_rad, he.camera_to_base.sigma_rotation_rad);
  EXPECT_LE(between.position_m, 3 * sp);
  EXPECT_LE(between.rotation_rad, 3 * sr);
  EXPECT_GT(sp, 0.0);
  // The refinement does not make OpenCV's closed form worse.
  EXPECT_LE(e_he.rotation_rad, difference(he.closed_form_T_C_O, *v.truth.T_C_O).rotation_rad + 1e-6);
  // The platform marker frame is the platform frame (the layout file is exact).
  EXPECT_LT(difference(he.T_M_E, Transform::Identity()).position_m, 0.2e-3);
  EXPECT_LT(difference(he.T_M_E, Transform::Identity()).rotation_rad, 0.5e-3);
}

TEST(CameraToBase, HandEyeRecoversAnOffsetMarkerFrame) {
  // Noise-free: a marker frame M offset from E by a known transform is recovered exactly.
  VirtualRig v;
  CentroidNoiseModel model(v.truth, v.pipeline, 0.0, 1);
  Transform T_E_M = transform_from_pose((Vec6d() << 0.01, -0.02, 0.005, 0.02, -0.03, 0.1).finished());
  std::vector<Transform> measured, commanded = commanded_poses(12);
  for (const Transform& T_O_E : commanded) {
    const PoseMeasurement m = model.measure(T_O_E);
    ASSERT_TRUE(m.platform.valid);
    measured.push_back(m.platform.T_C_B * T_E_M);  // T_C_M
  }
  const HandEyeEstimate he = camera_to_base_hand_eye(measured, commanded);
  EXPECT_LT(difference(he.camera_to_base.T, *v.truth.T_C_O).position_m, 1e-6);
  EXPECT_LT(difference(he.T_M_E, T_E_M.inverse()).rotation_rad, 1e-6);
  EXPECT_THROW(camera_to_base_hand_eye({measured[0]}, {commanded[0]}), Error);
  // Rotations about one axis only leave the problem undetermined: a clear error, not garbage.
  std::vector<Transform> one_axis, seen;
  for (int i = 0; i < 5; ++i) {
    one_axis.push_back(transform_from_pose((Vec6d() << 0.01 * i, 0, 0.18, 0, 0, 0.05 * i).finished()));
    seen.push_back(*v.truth.T_C_O * one_axis.back());
  }
  EXPECT_THROW(camera_to_base_hand_eye(seen, one_axis), Error);
}

// Probe 23, class E: `calibrate base --poses 3` said "sigma 0.0000 mm" for a hand-eye 0.43 mm from
// the truth and judged the cross-check against it. With 3 n <= 12 the fit's unknowns match either
// kind of residual exactly: its sigma is not measured (NaN), as a mean of one frame's is not.
TEST(CameraToBase, ASigmaWithNoDegreeOfFreedomLeftIsNotMeasuredNotZero) {
  VirtualRig v;
  CentroidNoiseModel model(v.truth, v.pipeline, 0.05, 7);
  for (const int n : {3, 4, 5, 8}) {
    std::vector<Transform> measured, commanded = commanded_poses(n);
    for (const Transform& T_O_E : commanded) measured.push_back(model.measure(T_O_E).platform.T_C_B);
    const TransformEstimate e = camera_to_base_hand_eye(measured, commanded).camera_to_base;
    EXPECT_EQ(e.sigma_measured(), n >= kHandEyePosesForSigma) << n << " poses";
    if (n >= kHandEyePosesForSigma) EXPECT_GT(e.sigma_position_m, 1e-7) << n;
    else EXPECT_TRUE(std::isnan(e.sigma_position_m) && std::isnan(e.sigma_rotation_rad)) << n;
  }
  const Transform home = transform_from_pose(trajectory_pose(0));
  const TransformEstimate one = mean_transform({home}), two = mean_transform({home, home * transform_from_pose(
                                                                                          (Vec6d() << 1e-5, 0, 0, 0, 0, 0).finished())});
  EXPECT_FALSE(one.sigma_measured()) << "one frame: no scatter measured, not a scatter of 0";
  EXPECT_TRUE(two.sigma_measured());
  EXPECT_GT(two.sigma_position_m, 0.0);
  EXPECT_TRUE(std::isnan(residual_variance(1.0, 0))) << "the one rule: no degree of freedom, no sigma";
  EXPECT_EQ(residual_variance(6.0, 3), 2.0);
}

