// Specification of the rig commands' options as settings (core/settings.hpp): problem() names
// the first bad option as the user types it, with the message validate() throws unchanged.
#include <gtest/gtest.h>

#include "vcloe/core/error.hpp"
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "vcloe/rig/common.hpp"
#include "vcloe/rig/serve.hpp"

using namespace vcloe;

TEST(RigOptions, ProblemNamesTheFirstBadOptionAndValidateThrowsItsMessage) {
  rig::ListenOptions listen;
  listen.endpoint = "ipc:///tmp/x";
  EXPECT_FALSE(listen.problem());
  listen.seconds = 0;
  listen.frames = -1;  // checked after --seconds
  ASSERT_TRUE(listen.problem());
  EXPECT_EQ(listen.problem()->key, "--seconds");
  try {
    listen.validate();
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "--seconds: expected a duration in (0, 86400] s");
  }

  rig::RobotServeOptions robot;
  robot.stand_at = Vec6d::Constant(std::nan(""));
  ASSERT_TRUE(robot.problem());
  EXPECT_EQ(robot.problem()->key, "--stand-at");
  robot.move_speed = 0;  // checked first
  EXPECT_EQ(robot.problem()->message, "--move-speed: expected a positive speed (rad/s)");
}

TEST(RigOptions, EveryTimeOptionIsCheckedInOnePlaceAgainstTheLeastItCanKeep) {
  // Probe 19: `rig run --start-timeout 0.011` passed (the least was two handshake periods) and
  // every role then ended "no hello … within 0.011 s". rig::rig_times_problem is every role's
  // and rig run's one check; the start's least is the handshake's three hellos and the run's
  // first status, plus the move to the start.
  const double period = 0.01;  // 100 Hz
  const double least = 3 * rig::kHandshakePeriod + period;
  EXPECT_DOUBLE_EQ(rig::least_start_timeout(period), least);
  EXPECT_DOUBLE_EQ(rig::least_start_timeout(period, 1.5), least + 1.5);
  EXPECT_DOUBLE_EQ(rig::least_start_timeout(0.02), 3 * rig::kHandshakePeriod + 0.02) << "a 50 Hz camera";
  auto problem = [&](const rig::RigTimes& t) { return rig::rig_times_problem(t, period, "e.yaml"); };
  EXPECT_FALSE(problem(rig::RigTimes{least}));
  EXPECT_FALSE(problem(rig::RigTimes{30, 0, 0, 0, 2, 0.5})) << "the defaults";
  for (const double bad : {0.011, least - 1e-6, 0.0, -1.0, std::nan(""), 1e9}) {
    const auto p = problem(rig::RigTimes{bad});
    ASSERT_TRUE(p) << bad;
    EXPECT_EQ(p->key, "--start-timeout") << bad;
    EXPECT_NE(p->message.find("[0.025, 3600] s"), std::string::npos) << p->message;
  }
  EXPECT_NE(problem(rig::RigTimes{0.011})->message.find("0.011 s is shorter than the handshake and the run's first status"),
            std::string::npos);
  rig::RigTimes moving{0.5};
  moving.move_s = 1.0;
  ASSERT_TRUE(problem(moving));
  EXPECT_NE(problem(moving)->message.find("the move to the start at --move-speed, 1 s: 1.025 s"), std::string::npos)
      << problem(moving)->message;
  moving.start = 1.025;
  EXPECT_FALSE(problem(moving));
  const std::vector<std::pair<rig::RigTimes, std::string>> each = {
      {{30, 0.005}, "--pose-timeout"},        {{30, 0, 0.001}, "--heartbeat-timeout"},
      {{30, 0, 0, 0.009}, "--robot-timeout"}, {{30, 0, 0, 0, 0}, "--vision-robot-timeout"},
      {{30, 0, 0, 0, 2, -1}, "--hold"},       {{30, 61}, "--pose-timeout"}};
  for (const auto& [t, key] : each) {
    const auto p = problem(t);
    ASSERT_TRUE(p) << key;
    EXPECT_EQ(p->key, key);
    EXPECT_EQ(p->message.rfind(key + ": ", 0), 0u) << p->message;
  }
  rig::RigTimes vision{30, std::nullopt, std::nullopt, std::nullopt, 0.001};
  vision.vision_robot_option = "--robot-timeout";
  EXPECT_EQ(problem(vision)->key, "--robot-timeout") << "vision serve's own name";
  EXPECT_FALSE(problem(rig::RigTimes{})) << "nothing given, nothing checked";
}

TEST(RigOptions, TheStereoOnlyOptionsAreRefusedWithTheGaussianCamera) {
  rig::CameraOption camera;
  EXPECT_FALSE(camera.problem());
  camera.stereo_options_given = {"--camera-rig"};
  ASSERT_TRUE(camera.problem());
  EXPECT_EQ(camera.problem()->key, "--camera-rig");
  EXPECT_EQ(camera.problem()->message, "--camera-rig: applies to --camera stereo only; the gaussian camera would ignore it");
  camera.model = "stereo";
  camera.centroid_noise_px = 11;
  EXPECT_EQ(camera.problem()->key, "--centroid-noise-px");
}
