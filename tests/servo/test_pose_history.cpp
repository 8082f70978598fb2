// Specification of servo/pose_history.hpp: the pose at a time between controller ticks (linear
// between the poses at the ticks, the start pose before the run, the last after it), and the
// twin's camera whose frames are exposed at t_j - offset: at offset 0 it is ExactPose bit for
// bit; otherwise frame j reads the twin's pose interpolated at t_j - offset, and the outer loop
// acts on what it read.
#include <gtest/gtest.h>

#include <cstring>

#include "../sim/sim_fixtures.hpp"
#include "../test_support.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/servo/pose_history.hpp"
#include "vcloe/servo/twin.hpp"

using namespace vcloe;
using namespace vcloe::servo;

namespace pose_history_test {

PreparedReference reference_of(double duration) {
  excitation::RandomTrajectoryOptions o;
  o.duration = duration;
  const auto tr = excitation::random_feasible_trajectory(test::default_robot(), 21, o);
  return prepare_reference(test::default_robot(), LoopTiming{}, tr);
}

// The twin run with a ShiftedExposure camera; `ticks` gets the pose at every tick's start.
LoopResult<double> shifted_run(const PreparedReference& ref, double offset, std::vector<Vec6d>& ticks) {
  TwinRobot<double> twin(test::default_robot(), test::default_priors(), ref.clock.timing, ref.start_pose);
  VisualServo<double> outer(ref, OuterGains{});
  ShiftedExposure<double> camera(ref.clock, twin.pose(), offset);
  ticks = {twin.pose()};
  return run_loop<double>(twin, outer, camera, [&](const TickRecord&) {
    ticks.push_back(twin.pose());
    return true;
  });
}

}  // namespace pose_history_test

using namespace pose_history_test;

TEST(PoseHistory, InterpolatesBetweenTicksAndHoldsOutsideTheRun) {
  const double Tc = 1e-3;
  PoseHistory<double> h(Tc, Vec6d::Constant(1.0), 3);
  for (int k = 0; k < 3; ++k) h.after_tick(k, Vec6d::Constant(2.0 + k));  // poses 1, 2, 3, 4 at ticks 0..3
  EXPECT_EQ(h.at(-0.5e-3), Vec6d::Constant(1.0)) << "before the run: the start pose";
  EXPECT_EQ(h.at(0.0), Vec6d::Constant(1.0));
  EXPECT_EQ(h.at(2e-3), Vec6d::Constant(3.0)) << "on a tick: its pose, bit for bit";
  EXPECT_NEAR((h.at(1.25e-3) - Vec6d::Constant(2.25)).norm(), 0, 1e-12);
  EXPECT_EQ(h.at(7e-3), Vec6d::Constant(4.0)) << "after the run: the last pose";
  const TickInterpolation w = h.where(1.25e-3);
  EXPECT_EQ(w.tick, 1);
  EXPECT_NEAR(w.weight, 0.25, 1e-12);
  EXPECT_TRUE(w.moving);
  EXPECT_FALSE(h.where(-1e-3).moving);
  EXPECT_FALSE(h.where(3e-3).moving);
  EXPECT_EQ(test::error_of([&] { h.after_tick(5, Vec6d::Zero()); }), "pose history: ticks out of order");
}

TEST(ShiftedExposure, AtOffsetZeroItIsExactPoseBitForBit) {
  const PreparedReference ref = reference_of(0.5);
  std::vector<Vec6d> ticks;
  const LoopResult<double> shifted = shifted_run(ref, 0.0, ticks);
  const LoopResult<double> exact = simulate_twin<double>(test::default_robot(), test::default_priors(), ref, OuterGains{});
  ASSERT_TRUE(shifted.ok && exact.ok);
  ASSERT_EQ(shifted.measured.size(), exact.measured.size());
  const std::size_t bytes = exact.measured.size() * sizeof(Vec6d);
  EXPECT_EQ(std::memcmp(shifted.measured.data(), exact.measured.data(), bytes), 0);
  EXPECT_EQ(std::memcmp(shifted.command.data(), exact.command.data(), bytes), 0);
}

TEST(ShiftedExposure, FrameJReadsThePoseAtItsTrueExposureAndTheLoopActsOnIt) {
  const PreparedReference ref = reference_of(0.6);
  const double Tc = ref.clock.timing.controller_period();
  for (const double offset : {1.5e-3, -2.5e-3, 0.3e-3}) {
    std::vector<Vec6d> ticks;
    const LoopResult<double> r = shifted_run(ref, offset, ticks);
    ASSERT_TRUE(r.ok) << r.failure;
    for (std::size_t j = 1; j < r.measured.size(); ++j) {  // by hand: linear between the ticks around t_j - offset
      const double x = ref.exposure_times[j] / Tc - offset / Tc;
      const auto k = static_cast<std::size_t>(std::floor(x));
      const Vec6d expected = ticks[k] + (x - std::floor(x)) * (ticks[k + 1] - ticks[k]);
      ASSERT_LT((r.measured[j] - expected).cwiseAbs().maxCoeff(), 1e-14) << "offset " << offset << " frame " << j;
    }
    // The same function simulate_twin runs, and the outer loop saw what the camera read.
    const LoopResult<double> twin = simulate_twin<double>(test::default_robot(), test::default_priors(), ref, OuterGains{}, offset);
    ASSERT_EQ(std::memcmp(twin.measured.data(), r.measured.data(), r.measured.size() * sizeof(Vec6d)), 0);
    const LoopResult<double> plain = simulate_twin<double>(test::default_robot(), test::default_priors(), ref, OuterGains{});
    EXPECT_GT((twin.command.back() - plain.command.back()).norm(), 1e-7) << "offset " << offset;
  }
}
