// Specification of `vcloe kinematics` (workflow/kinematics.hpp): the start hold is the one the
// rig's roles derive (rig::load_setup), inverse and forward kinematics are each other's inverse
// through the robot file's encoder offsets, and a question asked twice or not at all is refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../test_support.hpp"
#include "vcloe/rig/setup.hpp"
#include "vcloe/sim/robot.hpp"
#include "vcloe/workflow/kinematics.hpp"

namespace fs = std::filesystem;
using vcloe::Vec6d;
using vcloe::workflow::KinematicsOptions;

namespace {

std::string kinematics_config(const std::string& name) { return std::string(VCLOE_SOURCE_DIR) + "/config/" + name; }

Vec6d vector_of(const nlohmann::json& j) {
  Vec6d v;
  for (int i = 0; i < 6; ++i) v(i) = j[static_cast<std::size_t>(i)].get<double>();
  return v;
}

}  // namespace

TEST(Kinematics, TheStartHoldIsTheOneTheRigsRolesDerive) {
  KinematicsOptions o;
  o.robot = kinematics_config("robot.yaml"), o.experiment = kinematics_config("experiment.yaml");
  o.reference = kinematics_config("reference.yaml");
  const auto r = vcloe::workflow::kinematics(o);
  const auto s = vcloe::rig::load_setup(o.robot, o.experiment, o.reference);
  EXPECT_EQ(vector_of(r.json["theta"]), s.reference.start_theta);
  EXPECT_EQ(vector_of(r.json["pose"]), s.reference.start_pose);
}

TEST(Kinematics, InverseAndForwardKinematicsAreEachOthersInverseThroughTheEncoderOffsets) {
  const fs::path d = fs::temp_directory_path() / ("vcloe-kinematics-" + std::to_string(::getpid()));
  fs::create_directories(d);
  vcloe::sim::RobotFile f = vcloe::sim::load_robot(kinematics_config("robot.yaml"));
  const double offsets[6] = {0.003, -0.002, 0.001, 0.0025, -0.003, 0.0015};
  for (int i = 0; i < 6; ++i) f.model.legs[i].encoder_offset = offsets[i];
  const std::string robot = (d / "offsets.yaml").string();
  std::ofstream(robot) << vcloe::sim::robot_to_yaml(f.model, f.lambda);
  KinematicsOptions ik;
  ik.robot = robot;
  ik.pose = (Vec6d() << 0.01, -0.005, 0.15, 0.03, -0.02, 0.05).finished();
  const Vec6d theta = vector_of(vcloe::workflow::kinematics(ik).json["theta"]);
  KinematicsOptions drawn = ik;
  drawn.robot = kinematics_config("robot.yaml");
  const Vec6d crank = vector_of(vcloe::workflow::kinematics(drawn).json["theta"]);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(theta(i) - crank(i), offsets[i], 1e-12) << "encoders read crank + offset";
  KinematicsOptions fk;
  fk.robot = robot;
  fk.encoders = theta;
  EXPECT_LT((vector_of(vcloe::workflow::kinematics(fk).json["pose"]) - *ik.pose).cwiseAbs().maxCoeff(), 1e-10);
  fs::remove_all(d);
}

TEST(Kinematics, ExactlyOneQuestionAndAReachablePose) {
  KinematicsOptions o;
  o.robot = kinematics_config("robot.yaml");
  EXPECT_NE(vcloe::test::error_of([&] { vcloe::workflow::kinematics(o); }).find("expected exactly one of"), std::string::npos);
  o.pose = Vec6d::Zero();
  o.encoders = Vec6d::Zero();
  EXPECT_NE(vcloe::test::error_of([&] { vcloe::workflow::kinematics(o); }).find("(got 2)"), std::string::npos);
  o.encoders.reset();
  o.pose = (Vec6d() << 0, 0, 0.5, 0, 0, 0).finished();
  EXPECT_NE(vcloe::test::error_of([&] { vcloe::workflow::kinematics(o); }).find("--pose: not reachable"), std::string::npos);
  o.pose->setConstant(std::nan(""));
  EXPECT_NE(vcloe::test::error_of([&] { vcloe::workflow::kinematics(o); }).find("six finite"), std::string::npos);
}
