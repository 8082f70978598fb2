#pragma once
// vcloe/workflow/calibrate_kinematics.hpp — `vcloe calibrate kinematics` (docs/calibration.md):
// static poses chosen by the D-optimal pose selection, measured on the virtual robot (or read
// from a static-pose trace recorded on a rig), the kinematic calibration fitted, and written:
// the result JSON (parameters, σ, status, named combinations, null space, residual verdict,
// inputs with SHA-256) and the calibrated robot file (its comments record from what and how well).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vcloe/core/report.hpp"
#include "vcloe/core/settings.hpp"

namespace vcloe::workflow {

struct CalibrateKinematicsOptions {
  std::string robot;        // the robot file as drawn: structure and start values
  std::string poses;        // a static-pose trace to fit; empty: measure on the virtual robot
  std::string truth;        // the virtual robot's truth file (measure; the comparison in the result)
  std::string measure_out;  // where the measured static-pose trace is written (with --truth)
  std::string out;          // the calibrated robot file
  std::string result;       // the result JSON
  int count = 30, candidates = 1500;
  double move_s = 2.0, settle_s = 1.5, measure_s = 0.5;
  std::vector<double> camera_residual = std::vector<double>(6, 0.0);  // virtual: pose of O in O'
  std::uint64_t seed = 1;
  bool force = false, quiet = false;

  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where = "") const;
};

Report calibrate_kinematics_files(const CalibrateKinematicsOptions& options);

}  // namespace vcloe::workflow
