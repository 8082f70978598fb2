// Specification of what `calibrate kinematics` writes (workflow/src/calibration_output.hpp):
// each output checked as its readers check it before any is written — a geometry beyond the one
// bound a calibration reaches (sim::kCalibrationReach, the bound every reader of a calibrated file
// applies), or a robot the robot-file reader refuses, fails naming the static-pose trace and the
// outputs not written, never a line of the unwritten file (session 21's probe, classes C2, W2).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../workflow/src/calibration_output.hpp"
#include "../test_support.hpp"
#include "vcloe/calib/kinematic_model.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/sim/robot.hpp"

using namespace vcloe;

namespace {

const std::string kDrawnFile = std::string(VCLOE_SOURCE_DIR) + "/config/robot.yaml";

// A calibration of the drawn robot whose estimate is the drawn geometry edited by `edit`.
template <typename Edit>
calib::KinematicCalibrationResult calibration_moved(const sim::RobotModel& drawn, Edit edit) {
  calib::KinematicCalibrationResult r;
  r.start = r.estimate = calib::nominal_parameters(drawn);
  edit(r.estimate);
  r.sigma = calib::KinematicVector::Constant(2e-4);
  r.status.assign(calib::kKinematicParameters, "identified");
  r.poses = 10;
  return r;
}

std::vector<FileText> outputs_of(const calib::KinematicCalibrationResult& r, const sim::RobotFile& drawn) {
  const workflow::detail::CalibrationInputs in{file_record(kDrawnFile), FileRecord{"/d/st.csv", std::string(64, 'a')},
                                                std::nullopt, std::nullopt, std::nullopt};
  const Report rep = workflow::detail::calibration_report(r, in);
  return workflow::detail::calibration_files(r, in, drawn, kDrawnFile, "/d/st.csv", rep, "/d/c.json", "/d/c.yaml");
}

}  // namespace

TEST(CalibrationOutputs, AGeometryBeyondTheReachOfACalibrationIsWrittenNowhereAndSaidOfThePoses) {
  const sim::RobotFile drawn = sim::load_robot(kDrawnFile);
  struct Case {
    void (*edit)(calib::KinematicParameters&);
    std::string moved;
  };
  const std::vector<Case> cases = {
      {[](calib::KinematicParameters& p) { p.legs[2].base_joint.x() += 7.6e-3; }, "leg 3 (its base joint) moved 7.6 mm"},
      {[](calib::KinematicParameters& p) { p.legs[0].link_length += 6e-3; }, "leg 1 (its link length) moved 6.0 mm"},
      {[](calib::KinematicParameters& p) { p.legs[4].platform_joint.y() -= 1e-2; }, "leg 5 (its platform joint) moved 10.0 mm"},
      {[](calib::KinematicParameters& p) { p.legs[3].crank_length += 8e-3; }, "leg 4 (its crank) moved 8.0 mm"}};
  for (const Case& c : cases) {
    const std::string error = test::error_of([&] { outputs_of(calibration_moved(drawn.model, c.edit), drawn); });
    SCOPED_TRACE(c.moved);
    EXPECT_EQ(error.rfind("/d/st.csv: the calibration fitted to its 10 static poses is no calibration of " + kDrawnFile +
                              ": the geometry of " + c.moved + ", more than the 5 mm a calibration corrects",
                          0),
              0u)
        << error;
    EXPECT_NE(error.find("largest 1-sigma of a joint centre 0.2 mm): too few poses or too short holds to determine it, "
                         "or poses not of this robot (its encoders in the enc_* columns?); /d/c.json and /d/c.yaml not "
                         "written"),
              std::string::npos)
        << error;
  }
  // Within the reach (a built robot's +-0.5 mm, a 1 mm correction): both written, and the file
  // passes the readers' rule (the same bound, from the same place).
  const auto r = calibration_moved(drawn.model, [](calib::KinematicParameters& p) {
    p.legs[2].base_joint.x() += 1e-3, p.legs[1].link_length -= 4e-4, p.legs[5].encoder_offset = 0.01;
  });
  const std::vector<FileText> files = outputs_of(r, drawn);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, "/d/c.json");
  EXPECT_EQ(files[1].path, "/d/c.yaml");
  EXPECT_EQ(sim::calibration_reach_problem(sim::parse_robot(files[1].text, "c.yaml").model, drawn.model), "");
}

TEST(CalibrationOutputs, ARobotTheReaderRefusesIsSaidOfThePosesNotOfALineOfTheUnwrittenFile) {
  // Encoders in the cmd_* columns' place: an encoder zero of 0.1756 rad, after a 30-iteration fit,
  // was "c.yaml:55: key 'legs[5].encoder_offset': …" with c.json left written.
  const sim::RobotFile drawn = sim::load_robot(kDrawnFile);
  const std::vector<std::pair<void (*)(calib::KinematicParameters&), std::string>> cases = {
      {[](calib::KinematicParameters& p) { p.legs[5].encoder_offset = 0.1756; }, "key 'legs[5].encoder_offset'"},
      {[](calib::KinematicParameters& p) { p.legs[0].encoder_offset = -0.3; }, "key 'legs[0].encoder_offset'"},
      {[](calib::KinematicParameters& p) { p.marker_frame(0) = 0.08; }, "key 'marker_frame"}};
  for (const auto& c : cases) {
    const auto edit = c.first;
    const std::string& key = c.second;
    const std::string error = test::error_of([&] { outputs_of(calibration_moved(drawn.model, edit), drawn); });
    SCOPED_TRACE(key);
    EXPECT_EQ(error.rfind("/d/st.csv: the calibration fitted to its 10 static poses is a robot no robot file holds (" + key, 0), 0u)
        << error;
    EXPECT_NE(error.find("its encoders in the enc_* columns"), std::string::npos) << error;
    EXPECT_NE(error.find("/d/c.json and /d/c.yaml not written"), std::string::npos) << error;
    EXPECT_EQ(error.find("c.yaml:"), std::string::npos) << "no line of the file never written: " << error;
    EXPECT_EQ(error.find("(calibrated robot)"), std::string::npos) << error;
  }
}
