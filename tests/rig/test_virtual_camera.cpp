// Specification of the virtual rig's camera path (rig/virtual_camera.hpp): the camera reports the
// marker frame, in the base frame `calibrate base` found, at the true exposure (the configured
// latency plus the truth's offset and jitter); in closed loop the controller then servoes the
// marker frame, not E, onto the reference; a late exposure shifts the measured trace in time. With
// no departure the path is the plain camera's, bit for bit.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cstdio>
#include <cmath>
#include <cstring>

#include "vcloe/excitation/fourier.hpp"
#include "vcloe/rig/setup.hpp"
#include "vcloe/rig/virtual_camera.hpp"
#include "vcloe/servo/loop.hpp"
#include "vcloe/servo/visual_servo.hpp"

using namespace vcloe;

namespace virtual_camera_test {

std::string config(const std::string& name) { return std::string(VCLOE_SOURCE_DIR) + "/config/" + name; }

rig::ExperimentSetup setup_of(double seconds) {
  excitation::FourierTrajectory trajectory = excitation::load_trajectory(config("reference.yaml"));
  trajectory.duration = seconds;
  return rig::make_setup(sim::load_robot(config("robot.yaml")), servo::load_experiment(config("experiment.yaml")),
                         trajectory, "reference");
}

sim::RobotFile truth() { return sim::load_robot(config("truth.yaml"), true); }

rig::VirtualRun noiseless() {
  rig::VirtualRun run;
  run.noise_sigma = Vec6d::Zero();
  return run;
}

Eigen::Isometry3d transform(const Vec6d& chi) {
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = rotation_of<double>(chi);
  T.translation() = chi.head<3>();
  return T;
}

}  // namespace virtual_camera_test

using namespace virtual_camera_test;

TEST(VirtualCamera, WithNoDepartureItIsThePlainCameraBitForBit) {
  const rig::ExperimentSetup s = setup_of(1.0);
  const sim::RobotFile t = truth();
  rig::VirtualRun run;
  run.seed = 5;
  const PoseTrace plain = rig::virtual_trace(s, t, run, "");
  // The late-readout path with nothing departing, through the same loop.
  hw::VirtualRobot robot(t.model, t.lambda, s.reference.start_pose, rig::virtual_robot_options(s, run.robot, {}));
  servo::VisualServo<double> outer(s.reference, s.experiment.outer);
  auto noise = std::make_shared<servo::GaussianPoseNoise>(run.noise_sigma, run.seed);
  rig::VirtualCamera camera(t.model, {}, s.reference.clock, robot.pose(),
                            [noise](const Vec6d& p) { return noise->measure(0, p); }, run.seed);
  const auto r = servo::run_loop<double>(robot, outer, camera);
  ASSERT_TRUE(r.ok) << r.failure;
  ASSERT_EQ(r.measured.size(), plain.measured.size());
  EXPECT_EQ(std::memcmp(r.measured.data(), plain.measured.data(), plain.measured.size() * sizeof(Vec6d)), 0);
  EXPECT_EQ(std::memcmp(r.command.data(), plain.command.data(), plain.command.size() * sizeof(Vec6d)), 0);
}

// The camera measures T_O'M = T_OO'^-1 T_OE T_EM, and the loop servoes that frame onto the
// reference: against the same run without the departures, the measured poses stay (the outer
// integrator removes the static offset), the true ones move by the offset.
TEST(VirtualCamera, ItMeasuresTheMarkerFrameInTheCalibratedBaseAndTheLoopServoesIt) {
  const rig::ExperimentSetup s = setup_of(4.0);
  sim::RobotFile t = truth();
  const PoseTrace before = rig::virtual_trace(s, t, noiseless(), "");
  t.model.marker_frame << 1e-3, -0.8e-3, 0.5e-3, 2e-3, -1.5e-3, 1e-3;
  rig::VirtualRun run = noiseless();
  run.departures.camera_from_base_error << 2e-6, -1e-6, 1.5e-6, 8e-6, -5e-6, 6e-6;
  const PoseTrace after = rig::virtual_trace(s, t, run, "");
  ASSERT_EQ(after.size(), before.size());
  const Eigen::Isometry3d B = transform(run.departures.camera_from_base_error), M = transform(t.model.marker_frame);
  double model_error = 0;
  for (std::size_t j = 0; j < after.size(); ++j) {
    const Eigen::Isometry3d seen = B.inverse() * transform(after.truth[j]) * M;
    model_error = std::max(model_error, (seen.translation() - after.measured[j].head<3>()).norm());
    model_error = std::max(model_error, (rotation_of<double>(after.measured[j]) - seen.linear()).norm());
  }
  EXPECT_LT(model_error, 1e-12);
  // Over the last second: the measured trace back where it was, the true one off by the marker offset.
  double measured_moved = 0, true_moved = 0;
  const std::size_t from = after.size() - 100;
  for (std::size_t j = from; j < after.size(); ++j) {
    measured_moved = std::max(measured_moved, (after.measured[j] - before.measured[j]).head<3>().norm());
    true_moved = std::max(true_moved, (after.truth[j] - before.truth[j]).head<3>().norm());
  }
  std::printf("marker frame 1.4 mm off E: over the last second the measured poses moved %.4f mm, the true %.4f mm\n",
              measured_moved * 1e3, true_moved * 1e3);
  EXPECT_GT(true_moved, 0.7e-3);
  EXPECT_LT(measured_moved, 0.25 * true_moved);
}

// A true latency off the configured one: frame j was exposed at t_j - delta, so its measured pose
// is the robot's true pose then (recorded here every tick through the loop's observer; between
// ticks, interpolated) — the measured trace is the true one shifted in time, exactly, while the
// controller still receives frame j at its configured arrival tick.
TEST(VirtualCamera, ALatencyOffTheConfiguredOneShiftsTheMeasuredTraceInTime) {
  const rig::ExperimentSetup s = setup_of(2.0);
  const sim::RobotFile t = truth();
  const double Tc = s.experiment.timing.controller_period();
  for (const double delta : {3e-3, -2e-3, 0.7e-3}) {
    hw::VirtualRig departures;
    departures.latency_offset = delta;
    departures.latency_jitter = delta == 0.7e-3 ? 3e-4 : 0.0;
    hw::VirtualRobot robot(t.model, t.lambda, s.reference.start_pose, rig::virtual_robot_options(s, {}, departures));
    servo::VisualServo<double> outer(s.reference, s.experiment.outer);
    rig::VirtualCamera camera(t.model, departures, s.reference.clock, robot.pose(), [](const Vec6d& p) { return p; }, 1);
    std::vector<Vec6d> at_tick{robot.pose()};  // the true pose at each tick's start
    const auto r = servo::run_loop<double>(robot, outer, camera, [&](const servo::TickRecord&) {
      at_tick.push_back(robot.pose());
      return true;
    });
    ASSERT_TRUE(r.ok) << r.failure;
    ASSERT_EQ(camera.exposures().size(), r.measured.size());
    double worst = 0, lag = 0;
    for (std::size_t j = 1; j + 2 < r.measured.size(); ++j) {
      const double x = camera.exposures()[j] / Tc, k0 = std::floor(x + 1e-9), f = std::max(0.0, x - k0);
      const auto k = static_cast<std::size_t>(k0);
      const Vec6d expected = at_tick[k] + f * (at_tick[k + 1] - at_tick[k]);
      worst = std::max(worst, (r.measured[j] - expected).cwiseAbs().maxCoeff());
      lag = std::max(lag, std::abs(s.reference.exposure_times[j] - camera.exposures()[j] - delta));
    }
    std::printf("true latency %+.1f ms off: measured = true pose at the true exposure to %.1e; exposures off t_j - delta by at most %.2f ms\n",
                delta * 1e3, worst, lag * 1e3);
    EXPECT_LT(worst, 1e-12);
    EXPECT_LE(lag, 3 * departures.latency_jitter + 1e-12);
    // And it is not the pose at the nominal exposure: the trace really moved in time.
    double moved = 0;
    for (std::size_t j = 0; j < r.measured.size(); ++j) moved = std::max(moved, (r.measured[j] - r.true_pose[j]).head<3>().norm());
    EXPECT_GT(moved, 1e-6);
  }
}

// The exposure times themselves: with poses linear in time, the camera's reading gives back the
// time it was exposed at; their mean is t_j - offset, their scatter the jitter, within 3 sigma.
TEST(VirtualCamera, ExposuresScatterAboutTheTrueLatencyByTheJitter) {
  servo::TickClock clock{servo::LoopTiming{}, 2000};
  hw::VirtualRig rig;
  rig.latency_offset = 1.5e-3;
  rig.latency_jitter = 4e-4;
  const Vec6d rate = (Vec6d() << 0.1, 0, 0, 0, 0, 0).finished();  // m/s along x
  rig::VirtualCamera camera(sim::RobotModel{}, rig, clock, Vec6d::Zero(), [](const Vec6d& p) { return p; }, 3);
  double sum = 0, sum2 = 0, worst = 0;
  int n = 0;
  for (int k = 0; k < clock.total_ticks; ++k) {
    camera.after_tick(k, rate * clock.time(k + 1));
    const int j = clock.arriving_at(k + 1);
    if (j < 1) continue;
    const double exposed = camera.readout(j)(0) / 0.1, d = clock.time(clock.exposure_tick(j)) - exposed - rig.latency_offset;
    sum += d, sum2 += d * d, worst = std::max(worst, std::abs(d)), ++n;
  }
  const double mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
  EXPECT_GT(n, 150);
  EXPECT_LT(std::abs(mean), 1e-4);
  EXPECT_NEAR(sd, rig.latency_jitter, 0.15 * rig.latency_jitter);
  EXPECT_LE(worst, 3 * rig.latency_jitter + 1e-12);
  rig.latency_offset = -0.02;  // shorter than the configured 10 ms: refused
  EXPECT_THROW(rig::VirtualCamera(sim::RobotModel{}, rig, clock, Vec6d::Zero(), [](const Vec6d& p) { return p; }, 3),
               Error);
}
