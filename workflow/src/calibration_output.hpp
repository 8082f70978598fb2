#pragma once
// Private to workflow: the kinematic calibration's result JSON, its text, and the calibrated
// robot file's record (comments at its head).
#include <optional>
#include <string>
#include <vector>

#include "vcloe/calib/kinematic_calibration.hpp"
#include "vcloe/core/file_record.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/core/report.hpp"
#include "vcloe/report/calibration.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::workflow::detail {

struct CalibrationInputs {
  FileRecord robot, poses;
  std::optional<FileRecord> truth;
  std::optional<calib::KinematicVector> truth_in_gauge;  // the virtual robot's truth, in the fit's gauge
  std::optional<Vec6d> camera_residual;                  // with the truth: --camera-residual
};

// The virtual robot's truth as the fit's 72 parameters in its gauge (calib::in_gauge about
// `start`): its crank directions as angles from the drawn robot's, the camera-to-base residual
// the run was given. Written with the result; `vcloe report --calibration` checks it so.
calib::KinematicVector truth_in_gauge(const sim::RobotModel& drawn, const calib::KinematicVector& start,
                                      const sim::RobotModel& truth, const Vec6d& camera_residual);

report::CalibrationReport calibration_result(const calib::KinematicCalibrationResult& r, const CalibrationInputs& in);
Report calibration_report(const calib::KinematicCalibrationResult& r, const CalibrationInputs& in);
std::string calibrated_robot_header(const calib::KinematicCalibrationResult& r, const CalibrationInputs& in,
                                    const std::string& result_file);

// The outputs of one calibration — the result JSON (`result`, none if "") and the calibrated
// robot file (`out`, none if "") — each checked as its readers check it before any is written:
// a geometry beyond sim::kCalibrationReach of the drawn file, or a robot the robot-file reader
// refuses (an encoder offset no robot has), fails naming the static-pose trace it was fitted to
// and the outputs not written, never a line of the unwritten file (session 21's probe, C2, W2).
// Written together by the caller (write_files_atomically: all or none).
std::vector<FileText> calibration_files(const calib::KinematicCalibrationResult& r, const CalibrationInputs& in,
                                        const sim::RobotFile& drawn, const std::string& drawn_file,
                                        const std::string& poses_file, const Report& report, const std::string& result,
                                        const std::string& out);

}  // namespace vcloe::workflow::detail
