// Specification of `vcloe calibrate kinematics`'s one input/output check (workflow/
// calibrate_kinematics.hpp): made before any pose is measured, every output against every
// input with its companions and against each other — a measurement is never thrown away by a
// refusal that comes after it, and nothing recorded is overwritten.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../test_support.hpp"
#include "vcloe/workflow/calibrate_kinematics.hpp"

namespace fs = std::filesystem;
using vcloe::workflow::CalibrateKinematicsOptions;

namespace {

fs::path kinematics_dir() {
  const fs::path d = fs::temp_directory_path() / ("vcloe-calibrate-kinematics-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string refusal_of(const CalibrateKinematicsOptions& o) {
  return vcloe::test::error_of([&] { o.validate(); });
}

}  // namespace

TEST(CalibrateKinematicsFiles, OutputsOnAnInputsCompanionOrOnEachOtherAreRefusedBeforeAnyMotion) {
  const fs::path d = kinematics_dir();
  std::ofstream(d / "robot.yaml") << "r\n";
  std::ofstream(d / "poses.csv") << "p\n";
  CalibrateKinematicsOptions measured;  // measure on the virtual robot, then fit
  measured.robot = (d / "robot.yaml").string();
  measured.truth = (d / "robot.yaml").string();
  measured.force = true;
  const std::string m = (d / "m.csv").string();
  // The measured trace and the calibrated robot file on one name; the result on the measured
  // trace's sidecar: both refused although neither file exists yet.
  measured.measure_out = m, measured.out = m;
  EXPECT_NE(refusal_of(measured).find(m + ": is also another output of this command"), std::string::npos);
  measured.out = (d / "cal.yaml").string(), measured.result = m + ".meta.json";
  EXPECT_NE(refusal_of(measured).find(m + ".meta.json: is also another output of this command"), std::string::npos);
  measured.result = (d / "cal.json").string();
  EXPECT_EQ(refusal_of(measured), "");
  // Without --force, a sidecar left there alone is refused at once, not after the measurement.
  measured.force = false;
  std::ofstream(m + ".meta.json") << "{}\n";
  EXPECT_NE(refusal_of(measured).find(m + ".meta.json: exists; pass --force"), std::string::npos);

  CalibrateKinematicsOptions fitted;  // a recorded static-pose trace fitted
  fitted.robot = (d / "robot.yaml").string();
  fitted.poses = (d / "poses.csv").string();
  fitted.force = true;
  fitted.result = fitted.poses + ".meta.json";
  EXPECT_NE(refusal_of(fitted).find("is also an input of this command"), std::string::npos);
  fitted.result = "", fitted.out = fitted.robot + ".report.json";
  EXPECT_NE(refusal_of(fitted).find("the companion of " + fitted.robot), std::string::npos);
}
