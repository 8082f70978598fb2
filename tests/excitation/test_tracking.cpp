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

TEST(Tracking, TheFirstFailureCheckGivesTheSameVerdictFromFewerPoses) {
  // The search's check (TrackingCheck::FirstFailure): the heaviest case first, its run stopped at
  // the first exposure past the envelope, no case after it — and the same ok as the whole check.
  const FourierTrajectory t = tracking_start_of_reference_only_excitation(2.0);
  const TwinLoop loop{default_priors(), {}};
  const TrackingSettings heavy = tracking_payload_only(60);
  const TrackingReport whole = check_tracking(default_robot(), loop, t, heavy);
  const TrackingReport first = check_tracking(default_robot(), loop, t, heavy, TrackingCheck::FirstFailure);
  ASSERT_FALSE(whole.ok);
  EXPECT_FALSE(first.ok);
  ASSERT_EQ(first.cases.size(), 1u);  // the payload's case, first, refused: the priors' not run
  EXPECT_EQ(first.cases[0].name, "priors + payload");
  EXPECT_TRUE(first.cases[0].ran);    // refused, not a twin that failed
  EXPECT_GE(first.cases[0].exposures, 1);
  EXPECT_LT(first.cases[0].exposures, whole.cases[1].exposures);
  EXPECT_GE(first.cases[0].margin, whole.cases[1].margin);  // over the poses it saw
  EXPECT_GT(first.exceedance, 0);
  // A carried candidate: every case run to its end, the same margins as the whole check.
  const FourierTrajectory t1 = tracking_start_of_reference_only_excitation(1.0);
  const TrackingReport carried = check_tracking(default_robot(), loop, t1, tracking_payload_only(5),
                                                TrackingCheck::FirstFailure);
  const TrackingReport carried_whole = check_tracking(default_robot(), loop, t1, tracking_payload_only(5));
  ASSERT_TRUE(carried_whole.ok) << carried_whole.reason;
  EXPECT_TRUE(carried.ok) << carried.reason;
  ASSERT_EQ(carried.cases.size(), 2u);
  EXPECT_EQ(carried.cases[0].exposures, carried_whole.cases[1].exposures);
  EXPECT_EQ(carried.margin, carried_whole.margin);
  // At the margin threshold both checks agree on each side of it.
  TrackingSettings s = tracking_payload_only(0);
  const double m = carried_whole.cases[0].margin;
  for (const double f : {0.97, 1.03}) {
    s.margin = f * m;
    EXPECT_EQ(check_tracking(default_robot(), loop, t1, s, TrackingCheck::FirstFailure).ok,
              check_tracking(default_robot(), loop, t1, s).ok) << f;
  }
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
