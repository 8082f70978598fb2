// Specification of the numerical abuse the commands refuse or warn about clearly
// (docs/robustness.md): near-singular geometry, a robot that does not follow its reference,
// priors orders of magnitude off, a fit that ends far above the camera noise.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <sstream>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using cli_test::CommandResult;
using cli_test::run_vcloe;

// This file's helpers and specifications in its own namespace: the test program is compiled as
// one translation unit (tests/CMakeLists.txt).
namespace test_cli_numeric {

namespace {

const std::string& config = cli_test::config_dir;

// config/robot.yaml with `from` replaced by `to`, written to dir/name.
std::string robot_with(const fs::path& dir, const std::string& name, const std::string& from, const std::string& to) {
  std::ifstream in(config + "robot.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  const fs::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

}  // namespace

TEST(CliNumeric, ATwinThatDoesNotFollowItsReferenceIsWarnedAboutAndItsPriorsRefused) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-numeric", "tracking");
  // A platform of 24 g instead of 24 kg: the twin runs, 144 mrad off a reference moving 113 mrad.
  const std::string light = robot_with(d, "light.yaml", "platform: [24.0, 17.8e-2, 17.8e-2, 35.0e-2]",
                                       "platform: [0.024, 17.8e-5, 17.8e-5, 35.0e-5]");
  const std::string twin = (d / "light.csv").string();
  CommandResult r = run_vcloe("simulate --model " + light + " --reference " + config + "reference.yaml --out " + twin);
  EXPECT_EQ(r.status, 0) << r.out;  // written: it is what the twin did
  EXPECT_NE(r.out.find("vcloe: warning: " + twin + ": the robot did not follow the reference: angle error up to 144 mrad"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("of the reference's own motion (limit 50 %)"), std::string::npos) << r.out;
  // Identification from such priors is refused before fitting, against a robot that follows.
  const std::string measured = (d / "measured.csv").string(), loaded = (d / "loaded.csv").string();
  ASSERT_EQ(run_vcloe("run --reference " + config + "reference.yaml --out " + measured).status, 0);
  ASSERT_EQ(run_vcloe("run --seed 2 --payload-mass 5 --payload-inertia 0.02 0.02 0.03 --reference " + config +
                  "reference.yaml --out " + loaded).status, 0);
  r = run_vcloe("identify --robot " + light + " --measured " + measured + " --payload-trace " + loaded + " --out " +
            (d / "m.yaml").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find(light + ": the twin at these priors does not follow the reference of " + measured),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("the priors are far from this robot"), std::string::npos) << r.out;
  // 1000 times the platform's mass: the twin cannot stand; refused with the reason.
  const std::string heavy = robot_with(d, "heavy.yaml", "platform: [24.0, 17.8e-2, 17.8e-2, 35.0e-2]",
                                         "platform: [24000.0, 178, 178, 350]");  // as heavy, and as large
  r = run_vcloe("identify --robot " + heavy + " --measured " + measured + " --payload-trace " + loaded + " --out " +
            (d / "m.yaml").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find(heavy + ": the twin cannot run at these priors on the reference of " + measured), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("the twin's pose left the workspace: leg "), std::string::npos) << r.out;
}

TEST(CliNumeric, AFitThatEndsFarAboveTheCameraNoiseIsWarnedAbout) {
  // Coulomb friction priors 1000 times too high: the twin follows, the fit "converges" far
  // from the data. One iteration on a 2 s run shows it quickly.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-numeric", "fit");
  const std::string robot = robot_with(d, "sticky.yaml", "coulomb: 1.0 ", "coulomb: 1000.0 ");
  const fs::path ref = d / "short.yaml", settings = d / "quick.yaml";
  ASSERT_EQ(run_vcloe("trajectory random --seed 4 --duration 2 --out " + ref.string()).status, 0);
  const std::string measured = (d / "m.csv").string(), loaded = (d / "p.csv").string();
  ASSERT_EQ(run_vcloe("run --reference " + ref.string() + " --out " + measured).status, 0);
  ASSERT_EQ(run_vcloe("run --seed 2 --payload-mass 5 --payload-inertia 0.02 0.02 0.03 --reference " + ref.string() +
                  " --out " + loaded).status, 0);
  std::ofstream(settings) << "anchor: {type: payload}\npayload: {mass: 5, inertia: [0.02, 0.02, 0.03]}\n"
                             "stopping: {max_iterations: 1}\nhorizons: [1.0]\n"
                             "start: {check: false}\n";  // (no second start: not what this specifies)
  const CommandResult r = run_vcloe("identify --config " + settings.string() + " --robot " + robot + " --measured " +
                                measured + " --payload-trace " + loaded + " --out " + (d / "id.yaml").string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("vcloe: warning: the fit ends at "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("x the camera noise on "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the parameters are not trustworthy"), std::string::npos) << r.out;
}

TEST(CliNumeric, NearSingularGeometryIsRefusedBeforeAnyMotion) {
  // Platform joints on a 2.4 mm circle (links lengthened to keep home at theta = 0): every
  // margin of the robot file passes, 1 mrad at a joint turns the platform 61 mrad.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-numeric", "singular");
  std::ifstream in(config + "robot.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string joint = "platform_joint: [";
  for (std::size_t at = text.find(joint); at != std::string::npos; at = text.find(joint, at + 1)) {
    const std::size_t open = at + joint.size(), close = text.find(']', open);
    std::string scaled;
    std::size_t from = open;
    for (int k = 0; k < 3; ++k) {
      const std::size_t end = k < 2 ? text.find(',', from) : close;
      std::ostringstream v;
      v << std::setprecision(17) << 0.02 * std::stod(text.substr(from, end - from));
      scaled += (k ? ", " : "") + v.str();
      from = end + 1;
    }
    text.replace(open, close - open, scaled);
  }
  // Link length so that home (0, 0, 0.18) closes at theta = 0: |E + a - B - w|, the same for
  // all six legs of the symmetric default layout.
  const std::string len = "link_length: 0.276075890767297";
  for (std::size_t at = text.find(len); at != std::string::npos; at = text.find(len, at + 1))
    text.replace(at, len.size(), "link_length: 0.36193109558235215");
  // A platform that small carries moments its size allows (the robot reader bounds the radius of
  // gyration by the body's span: sim/src/robot.cpp), so the geometry is what is refused.
  const std::string platform = "platform: [24.0, 17.8e-2, 17.8e-2, 35.0e-2]";
  text.replace(text.find(platform), platform.size(), "platform: [24.0, 1.0e-3, 1.0e-3, 2.0e-3]");
  std::ofstream(d / "tiny.yaml") << text;
  const std::string tiny = (d / "tiny.yaml").string();
  CommandResult r = run_vcloe("trajectory check --robot " + tiny + " " + config + "reference.yaml");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("near-singular geometry: 1 mrad at joint "), std::string::npos) << r.out;
  r = run_vcloe("simulate --model " + tiny + " --reference " + config + "reference.yaml --out " + (d / "x.csv").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("reference refused before any motion: near-singular geometry"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d / "x.csv"));
}

}  // namespace test_cli_numeric
