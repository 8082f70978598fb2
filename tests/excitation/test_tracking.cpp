// Specification of excitation/tracking: an excitation is checked on what the robot will do — the
// twin's closed-loop motion along it, with and without the payload — against the safety stop's
// own pose test with a margin, not only on its reference.
#include <gtest/gtest.h>

#include "../sim/sim_fixtures.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/excitation/optimizer.hpp"

using namespace vcloe;
using namespace vcloe::excitation;
using vcloe::test::default_priors;
using vcloe::test::default_robot;

namespace {

// The first seconds of the default excitation before excite checked the twin (tests/data): it
// starts moving at full speed from rest, so the loop's tracking error is largest there.
FourierTrajectory tracking_start_of_reference_only_excitation(double duration) {
  FourierTrajectory t = load_trajectory(std::string(VCLOE_SOURCE_DIR) + "/tests/data/excitation-reference-only.yaml");
  t.duration = duration;
  return t;
}

TrackingSettings tracking_payload_only(double mass) {
  TrackingSettings s;
  s.payload_mass = mass;
  s.platform = 0;
  s.gains = 0;
  return s;
}

}  // namespace

TEST(Tracking, APayloadsTrackingErrorRefusesAReferenceThatPassesItsOwnLimits) {
  const FourierTrajectory t = tracking_start_of_reference_only_excitation(2.0);
  MotionLimits excitation_limits;  // the excitation's own, stricter than the robot's (config/excitation.yaml)
  excitation_limits.min_transmission = 0.4;
  excitation_limits.min_parallel_conditioning = 0.1;
  excitation_limits.max_joint_velocity = 1.5;
  excitation_limits.max_joint_acceleration = 15;
  ASSERT_TRUE(check_feasibility(default_robot(), t, excitation_limits).feasible);
  const TwinLoop loop{default_priors(), {}};

  const TrackingReport light = check_tracking(default_robot(), loop, t, tracking_payload_only(0));
  ASSERT_EQ(light.cases.size(), 1u);  // the priors only: no payload, no family case
  EXPECT_TRUE(light.ok) << light.reason;
  EXPECT_GE(light.margin, 2.0);

  const TrackingReport heavy = check_tracking(default_robot(), loop, t, tracking_payload_only(60));
  ASSERT_EQ(heavy.cases.size(), 2u);
  EXPECT_FALSE(heavy.ok);
  EXPECT_GT(heavy.exceedance, 0);
  EXPECT_NE(heavy.reason.find("priors + payload"), std::string::npos) << heavy.reason;
  // The payload's case comes closer to the stop than the robot alone; the robot alone as before.
  EXPECT_LT(heavy.cases[1].margin, heavy.cases[0].margin);
  EXPECT_EQ(heavy.cases[0].margin, light.cases[0].margin);
}

TEST(Tracking, AMarginAboveTheMotionsIsRefusedAndOneBelowPasses) {
  const FourierTrajectory t = tracking_start_of_reference_only_excitation(1.0);
  const TwinLoop loop{default_priors(), {}};
  TrackingSettings s = tracking_payload_only(0);
  const double m = check_tracking(default_robot(), loop, t, s).margin;
  ASSERT_GT(m, 1.1);
  s.margin = 0.95 * m;
  EXPECT_TRUE(check_tracking(default_robot(), loop, t, s).ok);
  s.margin = std::min(10.0, 1.05 * m);
  EXPECT_FALSE(check_tracking(default_robot(), loop, t, s).ok);
}

TEST(Tracking, SettingsOutOfRangeAreNamed) {
  auto refused = [](const std::string& yaml, const std::string& key) {
    try {
      parse_excitation_settings(yaml, "x.yaml");
      ADD_FAILURE() << yaml;
    } catch (const vcloe::Error& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  refused("tracking: {margin: 0.5}", "tracking.margin");
  refused("tracking: {payload: {mass: -1}}", "tracking.payload.mass");
  refused("tracking: {family: {gains: 1}}", "tracking.family.gains");
  refused("tracking: {family: {platform: -1}}", "tracking.family.platform");
  refused("tracking: {payload: {volume: 1}}", "volume");
  const ExcitationProblem p = parse_excitation_settings(
      "tracking: {enabled: false, margin: 3, payload: {mass: 2, inertia: [0.1, 0.1, 0.1]}}", "x.yaml");
  EXPECT_FALSE(p.tracking.enabled);
  EXPECT_EQ(p.tracking.margin, 3);
  EXPECT_EQ(p.tracking.payload_mass, 2);
  EXPECT_EQ(tracking_runs(default_priors(), p.tracking).size(), 3u);
}
