// Specification of trace comparison (core/trace_compare.hpp): per-axis RMS and max in mm and
// mrad, B interpolated onto A's times, and the tracking error against the reference's motion.
#include <gtest/gtest.h>

#include "../test_support.hpp"
#include "trace_fixtures.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include <sys/stat.h>

#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/core/rotation_difference.hpp"
#include "vcloe/core/trace_compare.hpp"

using namespace vcloe;
using namespace vcloe::test::trace;
namespace fs = std::filesystem;

TEST(TraceCompare, RmsAndMaxPerAxisInMillimetresAndMilliradians) {
  PoseTrace a, b;
  for (int i = 0; i < 4; ++i) {
    a.time.push_back(i);
    b.time.push_back(i);
    Vec6d p = Vec6d::Zero();
    a.measured.push_back(p);
    p(0) = (i % 2 ? 1e-3 : -1e-3);  // +-1 mm in x
    p(4) = i == 3 ? 2e-3 : 0.0;     // one 2 mrad sample in beta
    b.measured.push_back(p);
  }
  const TraceDifference d = compare_traces(a, b, TraceColumns::Measured, TraceColumns::Measured);
  EXPECT_NEAR(d.rms_mm[0], 1.0, 1e-12);
  EXPECT_NEAR(d.max_mm[0], 1.0, 1e-12);
  EXPECT_NEAR(d.rms_mrad[1], std::sqrt(4.0 / 4.0), 1e-12);
  EXPECT_NEAR(d.max_mrad[1], 2.0, 1e-12);
  EXPECT_EQ(d.samples, 4u);
  EXPECT_FALSE(d.interpolated);
}

// Probe 28, I: at gimbal lock one orientation has a continuum of Euler triples; the per-angle
// columns then say 300 mrad where the rotation row says 0, and the difference is flagged.
TEST(TraceCompare, TheRotationRowIsTheAngleBetweenOrientationsWhateverTheirEulerTriples) {
  auto one_sample = [](const Vec3d& angles) {
    PoseTrace t;
    t.time = {0.0, 1.0};
    Vec6d p = Vec6d::Zero();
    p.tail<3>() = angles;
    t.measured = {p, p};
    return t;
  };
  auto differ = [&](const Vec3d& a, const Vec3d& b) {
    return compare_traces(one_sample(a), one_sample(b), TraceColumns::Measured, TraceColumns::Measured);
  };
  const TraceDifference lock = differ({0.3, M_PI / 2, 0.0}, {0.0, M_PI / 2, 0.3});
  EXPECT_NEAR(lock.max_mrad[0], 300, 1e-6);
  EXPECT_LT(lock.max_rotation_mrad, 1e-4);
  EXPECT_TRUE(lock.per_angle_overstated());
  EXPECT_NEAR(lock.overstatement.per_angle_mrad, 300 * std::sqrt(2.0), 1e-6);
  // Away from it the rotation is the per-angle norm for a turn about one axis: 20 mrad about x.
  const TraceDifference level = differ({0.02, 0.1, -0.2}, {0.0, 0.1, -0.2});
  EXPECT_NEAR(level.max_rotation_mrad, 20, 1e-6);
  EXPECT_NEAR(level.rms_rotation_mrad, 20, 1e-6);
  EXPECT_FALSE(level.per_angle_overstated());
  // Equal orientations: nothing, and nothing flagged.
  const TraceDifference same = differ({0.1, -0.4, 3.0}, {0.1, -0.4, 3.0});
  EXPECT_EQ(same.max_rotation_mrad, 0);
  EXPECT_FALSE(same.per_angle_overstated());
  // The other Euler branch of one rotation: no difference in either measure.
  const TraceDifference branch = differ({0.1, 0.4, 0.2}, {0.1 + M_PI, M_PI - 0.4, 0.2 + M_PI});
  EXPECT_LT(branch.max_rotation_mrad, 1e-4);
  EXPECT_LT(branch.max_mrad[1], 1e-9);
}

TEST(TraceCompare, RotationBetweenIsTheAngleOfTheRelativeRotation) {
  for (const Vec3d& b : {Vec3d(0, 0, 0), Vec3d(0.4, -0.3, 1.2), Vec3d(-2.5, 1.4, 0.7)}) {
    const Mat3d rb = rotation_xyz(b(0), b(1), b(2));
    const Mat3d ra = rb * Eigen::AngleAxisd(0.25, Vec3d(1, 2, -2).normalized()).toRotationMatrix();
    const Vec3d a = ra.eulerAngles(0, 1, 2);  // Eigen's x-y-z: R = Rx Ry Rz, as rotation_xyz
    EXPECT_NEAR(rotation_between(a, b), 0.25, 1e-12) << b.transpose();
    EXPECT_NEAR(rotation_between(b, a), 0.25, 1e-12) << b.transpose();
  }
}

TEST(TraceCompare, InterpolatesBOntoTheTimesOfA) {
  PoseTrace a, b;
  for (int i = 0; i <= 10; ++i) {  // B: a ramp sampled every 0.1 s
    b.time.push_back(0.1 * i);
    b.measured.push_back(Vec6d::Constant(0.1 * i));
  }
  for (int i = 0; i <= 4; ++i) {  // A: the same ramp at other times
    a.time.push_back(0.05 + 0.2 * i);
    a.measured.push_back(Vec6d::Constant(0.05 + 0.2 * i));
  }
  const TraceDifference d = compare_traces(a, b, TraceColumns::Measured, TraceColumns::Measured);
  EXPECT_TRUE(d.interpolated);
  EXPECT_LT(d.max_mm[0], 1e-9);
  a.time.push_back(1.5);
  a.measured.push_back(Vec6d::Zero());
  EXPECT_THROW(compare_traces(a, b, TraceColumns::Measured, TraceColumns::Measured), vcloe::Error);
  EXPECT_THROW(compare_traces(a, b, TraceColumns::Truth, TraceColumns::Measured), vcloe::Error);
}

TEST(TraceCompare, TrackingErrorIsMeasuredAgainstTheReferencesOwnMotion) {
  PoseTrace t;
  for (int i = 0; i <= 10; ++i) {  // the reference moves 10 mm and 100 mrad; the robot lags
    t.time.push_back(0.1 * i);
    Vec6d ref = Vec6d::Zero(), meas = Vec6d::Zero();
    ref(0) = 1e-3 * i, ref(3) = 1e-2 * i;
    meas(0) = ref(0) - (i == 4 ? 3e-3 : 1e-3), meas(3) = ref(3) - 2e-3;
    t.reference.push_back(ref);
    t.measured.push_back(meas);
  }
  TrackingError e = tracking_error(t, "t.csv");
  EXPECT_NEAR(e.max_position_m, 3e-3, 1e-15);
  EXPECT_NEAR(e.time_position_s, 0.4, 1e-15);
  EXPECT_NEAR(e.share_position(), 0.3, 1e-12);
  EXPECT_NEAR(e.share_angle(), 0.02, 1e-12);
  EXPECT_TRUE(e.followed());
  t.measured[7](3) = t.reference[7](3) - 0.06;  // 60 mrad behind: more than half the motion
  e = tracking_error(t, "t.csv");
  EXPECT_NEAR(e.share_angle(), 0.6, 1e-12);
  EXPECT_FALSE(e.followed());
  t.reference.clear();
  EXPECT_EQ(error_of([&] { tracking_error(t, "t.csv"); }), "t.csv: has no ref_* columns");
}

// Probe 18, class W: a trace in mm was fitted for seconds and ended in "-inf is not a number JSON
// can hold" about a key of the report; poses far beyond any servo loop's lag are refused naming the
// trace, a robot that merely lags (or does not follow) is not.
TEST(TraceCompare, MeasuredPosesFarBeyondAnyServoLoopsLagAreRefusedNamingTheTrace) {
  PoseTrace t;
  for (int i = 0; i <= 10; ++i) {  // a reference of 10 mm and 100 mrad about a pose at z = 0.2 m
    t.time.push_back(0.1 * i);
    Vec6d ref = Vec6d::Zero();
    ref(0) = 1e-3 * i, ref(2) = 0.2, ref(3) = 1e-2 * i;
    t.reference.push_back(ref);
    t.measured.push_back(ref);
  }
  check_plausible_tracking(tracking_error(t, "run.csv"), "run.csv");  // on the reference
  PoseTrace lag = t;  // 60 mrad behind once: not followed (60 %), but a robot's poses
  lag.measured[7](3) -= 0.06;
  check_plausible_tracking(tracking_error(lag, "run.csv"), "run.csv");
  for (const auto& [first, factor] : {std::pair{0, 1e3}, {3, 180 / M_PI}}) {  // positions in mm; angles in degrees
    PoseTrace wrong = t;
    for (Vec6d& m : wrong.measured) m.segment<3>(first) *= factor;
    const std::string e = error_of([&] { check_plausible_tracking(tracking_error(wrong, "run.csv"), "run.csv"); });
    EXPECT_EQ(e.rfind("run.csv: the measured poses are ", 0), 0u) << e;
    EXPECT_NE(e.find("x the reference's motion away from the reference of the run"), std::string::npos) << e;
    EXPECT_NE(e.find("positions in mm rather than m, angles in degrees"), std::string::npos) << e;
  }
}

// Probe 31, A: B's unmeasured frames (its sidecar lists them: no row after the one reader) were
// bridged by interpolation — two traces of the same poses compared 0.51 mm apart, differently
// with A and B swapped, and a B missing its first frame was refused. The figures are now of the
// frames both measured, the same either way round; a B recording no frame left out still has to
// cover A.
TEST(TraceCompare, FramesOneTraceDidNotMeasureAreLeftOutNeverInterpolatedAcross) {
  PoseTrace full;
  full.metadata.camera_hz = 100;
  for (int i = 0; i < 50; ++i) {
    full.time.push_back(0.01 * i);
    Vec6d p = Vec6d::Zero();
    p(2) = 1e-3 * std::sin(0.7 * i) + (i >= 20 && i < 30 ? 5e-3 : 0.0);  // a step inside the gap below
    full.measured.push_back(p);
  }
  auto without = [&](const std::vector<int>& frames) {
    PoseTrace t = full;
    t.metadata.stream = StreamRecord{};
    t.time.clear(), t.measured.clear();
    for (int i = 0; i < 50; ++i)
      if (std::find(frames.begin(), frames.end(), i) == frames.end()) {
        t.time.push_back(full.time[static_cast<std::size_t>(i)]), t.measured.push_back(full.measured[static_cast<std::size_t>(i)]);
      } else {
        t.metadata.stream->invalid_frames.push_back(i);
      }
    return t;
  };
  std::vector<int> gap;
  for (int i = 18; i < 32; ++i) gap.push_back(i);
  gap.push_back(0), gap.push_back(49);  // its first and last frames too
  const PoseTrace holes = without(gap);
  for (const auto& [a, b] : {std::pair<const PoseTrace*, const PoseTrace*>{&full, &holes}, {&holes, &full}}) {
    const TraceDifference d = compare_traces(*a, *b, TraceColumns::Measured, TraceColumns::Measured);
    EXPECT_EQ(d.samples, 50u - gap.size());
    EXPECT_EQ(d.left_out, a == &full ? gap.size() : 0u);
    for (int c = 0; c < 3; ++c) EXPECT_EQ(d.max_mm[static_cast<std::size_t>(c)], 0.0) << c;
  }
  // B at another rate but whole (no frame left out) is still interpolated; a short one refused.
  PoseTrace half = full;
  half.metadata = TraceMetadata{};
  half.time.clear(), half.measured.clear();
  for (std::size_t i = 0; i < 50; i += 2) half.time.push_back(full.time[i]), half.measured.push_back(full.measured[i]);
  const TraceDifference h = compare_traces(half, full, TraceColumns::Measured, TraceColumns::Measured);
  EXPECT_EQ(h.samples, 25u);
  EXPECT_EQ(h.left_out, 0u);
  EXPECT_NE(error_of([&] { compare_traces(full, half, TraceColumns::Measured, TraceColumns::Measured, "A", "B"); }).find("B: covers 0 to 0.48 s, but A needs 0 to 0.49 s"),
            std::string::npos);
  // Every sample of A at a frame B did not measure: refused, naming B.
  std::vector<int> all;
  for (int i = 0; i < 50; ++i) all.push_back(i);
  PoseTrace none = without(all);
  none.time = {full.time[0]}, none.measured = {full.measured[0]};  // one row left, A's other times all unmeasured in B
  PoseTrace late = full;
  late.time = {0.3, 0.31}, late.measured = {full.measured[30], full.measured[31]};
  EXPECT_NE(error_of([&] { compare_traces(late, none, TraceColumns::Measured, TraceColumns::Measured, "A", "B"); }).find("B: has no measured pose at any of the 2 times of A"),
            std::string::npos);
}
