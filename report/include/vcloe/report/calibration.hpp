#pragma once
// The kinematic calibration's result — `vcloe calibrate kinematics --result FILE`, format
// "vcloe-kinematic-calibration-2" (docs/calibration.md, "The result file") — as a typed value
// with ONE writer (to_json) and ONE reader (calibration_from_json): every field's type, length
// and range checked, an error a one-line vcloe::Error naming the file and the key. Read by
// `vcloe report --calibration` for the report's calibration section.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "vcloe/core/file_record.hpp"
#include "vcloe/core/rotation.hpp"

namespace vcloe::report {

struct CalibrationParameter {
  std::string name, unit;  // unit "m" or "rad"
  double start = 0, value = 0, sigma = 0;  // sigma >= 0
  std::string status;  // "identified", "not identified", "fixed" or "not identifiable: the encoder offset ..."
  std::optional<double> truth_in_gauge;    // the virtual robot's truth, in the fit's gauge
  bool operator==(const CalibrationParameter&) const = default;
};

// A combination of parameters the poses cannot determine, named in words.
struct CalibrationCombination {
  std::string name, meaning;
  int dimension = 0;
  bool in_null_space = false;  // found numerically in the Jacobian's null space
  bool operator==(const CalibrationCombination&) const = default;
};

struct CalibrationNullSpace {
  int dimension = 0, unnamed = 0, free_directions = 0;
  std::vector<std::string> unnamed_largest;  // per unnamed direction: its largest entries
  double condition_number = 0;
  bool operator==(const CalibrationNullSpace&) const = default;
};

struct CalibrationResidual {
  Vec6d rms = Vec6d::Zero(), mean_noise = Vec6d::Zero(), frame_noise = Vec6d::Zero();  // m, rad
  double chi2 = 0;   // the weighted residual's squared norm
  int dof = 0;       // 6 x poses - free_directions
  double ratio = 0;  // residual over the camera noise, sqrt(chi2 / dof)
  double adequate_ratio = 0;  // the limit: adequate is ratio <= adequate_ratio
  bool adequate = false;
  std::string verdict;
  bool operator==(const CalibrationResidual&) const = default;
};

// The largest sigma (and |error| against a truth) over the parameters of one kind.
struct CalibrationGroup {
  std::string name, unit;  // unit "m" or "rad"
  double sigma = 0;
  std::optional<double> error;
  bool operator==(const CalibrationGroup&) const = default;
};

struct CalibrationReport {
  FileRecord robot, poses;            // the robot file calibrated, the static-pose trace
  std::optional<FileRecord> truth;    // the virtual robot's truth file, when given
  std::optional<Vec6d> camera_residual;  // with the truth: the run's camera-to-base residual (m, rad)
  std::vector<CalibrationParameter> parameters;  // the 72, in the model's order
  std::vector<CalibrationCombination> combinations;
  CalibrationNullSpace null_space;
  CalibrationResidual residual;
  std::vector<CalibrationGroup> summary;
  int poses_used = 0, iterations = 0;
  double cpu_seconds = 0;
  bool operator==(const CalibrationReport&) const = default;
};

inline constexpr int kCalibrationParameters = 72;  // calib::kKinematicParameters

// A kind of parameter the summary groups: its name, SI unit ("m" or "rad") and which of the 72
// (index in the model's order) belong to it. The crank angles belong to none.
struct CalibrationKind {
  const char* name;
  const char* unit;
  bool (*member)(int);
  double largest(const std::vector<double>& per_parameter) const;  // max |x_k| over the members
};
const std::vector<CalibrationKind>& calibration_kinds();  // the writer's table order
// The summary as a function of the parameters (sorted by name, the file's order): per kind the
// largest sigma and, when every parameter has its truth_in_gauge, the largest |value - truth|.
std::vector<CalibrationGroup> calibration_summary_of(const std::vector<CalibrationParameter>& parameters);

// The residual's verdict in words (calibrate's result and terminal text, checked by the reader):
// "residual at the camera noise (<ratio> x): ..." when adequate, else "model error dominates: the
// residual is <ratio> x the camera noise (worst axis <axis>, <rms/mean_noise> x); ...".
std::string calibration_verdict(const Vec6d& rms, const Vec6d& mean_noise, double ratio, bool adequate);

// The residual's figures against the static poses it was fitted to (their frames per pose, as the
// static-pose file holds them): mean_noise is frame_noise x sqrt(mean 1/frames), and chi2 lies
// within [least, most frames] x poses x sum over the axes of (rms / frame_noise)^2 (exactly so when
// every pose has as many frames). Throws vcloe::Error naming `file` and the key otherwise.
void check_residual_of_poses(const CalibrationReport& report, const std::string& file, const std::vector<int>& frames);

nlohmann::json to_json(const CalibrationReport& report);
// `file` names the document in errors.
CalibrationReport calibration_from_json(const nlohmann::json& document, const std::string& file);
CalibrationReport read_calibration_report(const std::string& file);

}  // namespace vcloe::report
