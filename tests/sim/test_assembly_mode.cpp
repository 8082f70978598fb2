// Specification of check_pose's assembly mode (docs/model.md): each leg's IK branch is fixed by
// `home`, but the six closures do not fix the platform's side of a parallel singularity — the
// mirror image of a pose through the base plane has the very same joint angles and margins, and
// passed every IK-based check (session 20's probe, class A). The sign of det J_a2, compared with
// the home pose's, tells them apart; a feasible motion never changes it.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include "sim_fixtures.hpp"
#include "vcloe/sim/kinematics.hpp"

using namespace vcloe;
using namespace vcloe::sim;
using vcloe::test::default_robot;

namespace test_assembly_mode {

// The mirror image of chi through the base plane z = 0: (x, y, -z), R -> M R M with M = diag(1, 1, -1),
// which for R = Rx(a) Ry(b) Rz(c) is Rx(-a) Ry(-b) Rz(c).
Vec6d mirrored(const Vec6d& chi) {
  Vec6d m = chi;
  m(2) = -chi(2);
  m(3) = -chi(3);
  m(4) = -chi(4);
  return m;
}

std::vector<Vec6d> working_poses(const RobotModel& model) {
  std::vector<Vec6d> poses{model.home};
  Vec6d p = model.home;
  p(0) += 0.02;
  poses.push_back(p);
  p = model.home;
  p(5) += 0.1;
  poses.push_back(p);
  p = model.home;
  p.head<3>() += Vec3d(0.01, -0.015, 0.01);
  p.tail<3>() += Vec3d(0.05, -0.04, 0.08);
  poses.push_back(p);
  return poses;
}

TEST(AssemblyMode, TheMirrorImageThroughTheBaseHasTheSameJointsAndIsRefused) {
  const RobotModel& m = default_robot();
  for (const Vec6d& chi : working_poses(m)) {
    const PoseCheck ok = check_pose(m, chi);
    ASSERT_TRUE(ok.ok()) << chi.transpose() << ": " << ok.describe();
    EXPECT_EQ(assembly_mode(m, chi), assembly_mode(m, m.home));
    for (const Vec6d& below : {mirrored(chi), Vec6d(chi.array() * Vec6d(1, 1, -1, 1, 1, 1).array())}) {
      const PoseCheck c = check_pose(m, below);
      EXPECT_EQ(c.status, PoseStatus::OtherAssemblyMode) << below.transpose() << ": " << c.describe();
      EXPECT_NE(c.describe().find("assembly mode"), std::string::npos) << c.describe();
      EXPECT_EQ(assembly_mode(m, below), -assembly_mode(m, m.home)) << below.transpose();
      // Why no joint check saw it: the exact mirror has the same joints and margins.
      if (below == mirrored(chi)) {
        EXPECT_LT((c.theta - ok.theta).cwiseAbs().maxCoeff(), 1e-12);
        EXPECT_NEAR(c.parallel_conditioning, ok.parallel_conditioning, 1e-12);
      }
    }
  }
}

TEST(AssemblyMode, TheModeIsTheHomePosesNotAHeightAboveTheBase) {
  // A robot whose home is below its base (hung from it) is a robot: there the poses above are refused.
  std::ifstream in(std::string(VCLOE_SOURCE_DIR) + "/config/robot.yaml");
  std::stringstream text;
  text << in.rdbuf();
  const std::string hung = std::regex_replace(text.str(), std::regex(R"(home: \[0, 0, 0.18,)"), "home: [0, 0, -0.18,");
  ASSERT_NE(hung, text.str());
  const RobotModel m = parse_robot(hung, "hung.yaml", false).model;
  EXPECT_TRUE(check_pose(m, m.home).ok());
  for (const Vec6d& chi : working_poses(m)) {
    EXPECT_TRUE(check_pose(m, chi).ok()) << chi.transpose();
    EXPECT_EQ(check_pose(m, mirrored(chi)).status, PoseStatus::OtherAssemblyMode) << chi.transpose();
  }
}

TEST(AssemblyMode, NoPoseOfTheWorkingModeIsRefused) {
  // 2000 poses around home within +-40 mm and +-0.15 rad: every one the other checks pass keeps
  // home's sign (a motion clear of parallel singularities cannot change it).
  const RobotModel& m = default_robot();
  std::mt19937 rng(20);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int checked = 0;
  for (int n = 0; n < 2000; ++n) {
    Vec6d chi = m.home;
    for (int k = 0; k < 3; ++k) chi(k) += 0.04 * u(rng);
    for (int k = 3; k < 6; ++k) chi(k) += 0.15 * u(rng);
    const PoseCheck c = check_pose(m, chi);
    if (c.status == PoseStatus::Ok || c.status == PoseStatus::OtherAssemblyMode) {
      ++checked;
      EXPECT_EQ(c.status, PoseStatus::Ok) << chi.transpose();
    }
  }
  EXPECT_GT(checked, 500);
}

}  // namespace test_assembly_mode
