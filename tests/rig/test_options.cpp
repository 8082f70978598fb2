// Specification of the rig commands' options as settings (core/settings.hpp): problem() names
// the first bad option as the user types it, with the message validate() throws unchanged.
#include <gtest/gtest.h>

#include "vcloe/core/error.hpp"
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
  robot.start_timeout = 0;
  ASSERT_TRUE(robot.problem());
  EXPECT_EQ(robot.problem()->key, "--start-timeout");
  robot.hold = -1;  // checked first
  EXPECT_EQ(robot.problem()->message, "--hold: expected a time in [0, 3600] s");
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
