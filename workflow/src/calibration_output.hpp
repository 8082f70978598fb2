#pragma once
// Private to workflow: the kinematic calibration's result JSON, its text, and the calibrated
// robot file's record (comments at its head).
#include <optional>
#include <string>

#include "vcloe/calib/kinematic_calibration.hpp"
#include "vcloe/core/file_record.hpp"
#include "vcloe/core/report.hpp"
#include "vcloe/report/calibration.hpp"

namespace vcloe::workflow::detail {

struct CalibrationInputs {
  FileRecord robot, poses;
  std::optional<FileRecord> truth;
  std::optional<calib::KinematicVector> truth_in_gauge;  // the virtual robot's truth, in the fit's gauge
};

report::CalibrationReport calibration_result(const calib::KinematicCalibrationResult& r, const CalibrationInputs& in);
Report calibration_report(const calib::KinematicCalibrationResult& r, const CalibrationInputs& in);
std::string calibrated_robot_header(const calib::KinematicCalibrationResult& r, const CalibrationInputs& in,
                                    const std::string& result_file);

}  // namespace vcloe::workflow::detail
