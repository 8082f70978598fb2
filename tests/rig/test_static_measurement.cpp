// Specification of the static measurement of a kinematic calibration (docs/calibration.md,
// "Static measurement"): on the virtual robot every pose is reached without a safety stop, the
// encoders are recorded near the command (the drives' integral still closing the last mrad), and
// the static-pose trace is read back as written.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "../calib/kinematic_fixtures.hpp"
#include "vcloe/calib/pose_selection.hpp"
#include "vcloe/rig/static_measurement.hpp"
#include "vcloe/sim/kinematics.hpp"

using namespace vcloe;

namespace {

sim::RobotFile static_truth() {
  sim::RobotFile t = sim::load_robot(std::string(VCLOE_SOURCE_DIR) + "/config/truth.yaml", true);
  const double offsets[] = {2e-3, -1.5e-3, 2.5e-3, -3e-3, 1e-3, -2e-3};
  for (int i = 0; i < sim::kLegs; ++i) t.model.legs[i].encoder_offset = offsets[i];
  t.model.marker_frame << 5e-4, -8e-4, 3e-4, 1e-3, -1.5e-3, 2e-3;
  return t;
}

}  // namespace

TEST(StaticMeasurement, JointsSettleAtTheCommandAndTheTraceReadsBack) {
  const sim::RobotFile truth = static_truth();
  const sim::RobotModel drawn = sim::load_robot(std::string(VCLOE_SOURCE_DIR) + "/config/robot.yaml").model;
  calib::PoseSelectionOptions so;
  so.poses = 10, so.candidates = 200;
  const calib::PoseSelection s = calib::select_poses(drawn, so);
  rig::StaticMeasurementOptions mo;
  const calib::StaticTrace t = rig::measure_static_poses(truth, drawn, {s.joints.begin(), s.joints.begin() + 4}, mo);
  ASSERT_EQ(t.poses.size(), 4u);
  double settled = 0;
  for (std::size_t k = 0; k < t.poses.size(); ++k) {
    std::printf("pose %zu: settled %.3f s, |encoder - command| %.2e rad\n", k + 1, t.settled_s[k],
                (t.poses[k].joints - t.command[k]).cwiseAbs().maxCoeff());
    settled = std::max(settled, std::isfinite(t.settled_s[k]) ? t.settled_s[k] : INFINITY);
    EXPECT_LT((t.poses[k].joints - t.command[k]).cwiseAbs().maxCoeff(), 5e-3);  // the integral still closing
    EXPECT_EQ(t.poses[k].frames, 50);
  }
  std::printf("static measurement: every joint slower than %.0e rad/s %.3f s after the move at most\n", mo.settled_rate,
              settled);
  // Measured, not asserted: the drives' integral against the smooth Coulomb law's steep slope at
  // rest creeps for seconds (docs/calibration.md, "Static measurement"); the fit takes the
  // encoders sampled with each frame, so the creep does not bias it.
  const std::string path = (std::filesystem::temp_directory_path() / "vcloe_static_trace_test.csv").string();
  calib::write_static_trace(path, t, true);
  const calib::StaticTrace back = calib::read_static_trace(path);
  ASSERT_EQ(back.poses.size(), t.poses.size());
  for (std::size_t k = 0; k < t.poses.size(); ++k) {
    EXPECT_EQ(back.poses[k].measured, t.poses[k].measured);
    EXPECT_EQ(back.poses[k].joints, t.poses[k].joints);
  }
}
