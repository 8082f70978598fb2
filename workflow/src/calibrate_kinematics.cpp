#include "vcloe/workflow/calibrate_kinematics.hpp"

#include <cmath>
#include <iostream>
#include <sstream>

#include "calibration_output.hpp"
#include "vcloe/calib/pose_selection.hpp"
#include "vcloe/calib/static_trace.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/rig/static_measurement.hpp"

namespace vcloe::workflow {

std::optional<SettingProblem> CalibrateKinematicsOptions::problem() const {
  if (robot.empty()) return SettingProblem{"--robot", "--robot: the robot file is required"};
  if (poses.empty() && truth.empty())
    return SettingProblem{"--poses", "--poses: give a static-pose trace, or --truth to measure on the virtual robot"};
  if (poses.empty() && measure_out.empty())
    return SettingProblem{"--measure", "--measure: the trace of the measured poses must be written (it is the data)"};
  if (count < 10 || count > 1000) return SettingProblem{"--count", "--count: expected 10 to 1000 poses"};
  if (candidates < count || candidates > 100000)
    return SettingProblem{"--candidates", "--candidates: expected from --count to 100000"};
  if (!(move_s > 0 && move_s <= 60)) return SettingProblem{"--move", "--move: expected (0, 60] s"};
  if (!(settle_s >= 0 && settle_s <= 60)) return SettingProblem{"--settle", "--settle: expected [0, 60] s"};
  if (!(measure_s >= 0.02 && measure_s <= 60)) return SettingProblem{"--hold", "--hold: expected [0.02, 60] s"};
  if (camera_residual.size() != 6) return SettingProblem{"--camera-residual", "--camera-residual: expected 6 numbers"};
  for (double v : camera_residual)
    if (!(std::abs(v) <= 0.05)) return SettingProblem{"--camera-residual", "--camera-residual: each within 0.05 m or rad"};
  return std::nullopt;
}

void CalibrateKinematicsOptions::validate(const std::string& where) const {
  throw_if(problem(), where);
  // One plan before any motion: every output against every input (with its companions) and
  // against each other, the measured trace with its sidecar.
  IoPlan(force).input(robot, "--robot").input_trace(poses, "--poses").input(truth, "--truth")
      .output_trace(measure_out, "--measure").output(out, "--out").output(result, "--result").check();
}

namespace {

void measure(const CalibrateKinematicsOptions& o, const sim::RobotModel& nominal, std::ostream& log) {
  calib::PoseSelectionOptions so;
  so.poses = o.count, so.candidates = o.candidates, so.seed = o.seed;
  so.frames = static_cast<int>(std::lround(o.measure_s * 100.0));
  const calib::PoseSelection s = calib::select_poses(nominal, so);
  log << "pose selection: " << s.joints.size() << " poses, D-optimal from " << s.candidates_kept << " candidates ("
      << s.candidates_checked << " drawn); predicted largest 1-sigma at the default camera noise:\n";
  for (const calib::PredictedAccuracy& a : s.accuracy)
    log << "  " << a.poses << " poses: base joints " << fixed(a.base_joint * 1e6, 1) << " um, platform joints "
        << fixed(a.platform_joint * 1e6, 1) << " um, encoder offsets " << fixed(a.encoder_offset * 1e3, 4) << " mrad\n";
  log << "  (" << o.count << " random poses: base joints " << fixed(s.random.base_joint * 1e6, 1) << " um)\n";
  const sim::RobotFile truth = sim::load_robot(o.truth, true);
  rig::StaticMeasurementOptions mo;
  mo.move_s = o.move_s, mo.settle_s = o.settle_s, mo.measure_s = o.measure_s, mo.seed = o.seed;
  mo.camera_to_base = Vec6d(o.camera_residual.data());
  calib::StaticTrace t = [&] {
    try {
      return rig::measure_static_poses(truth, nominal, s.joints, mo);
    } catch (const Error& e) {  // the truth's robot and drives ran (probe 33, x19: no file named)
      fail(o.truth + " (--truth)", std::string("its virtual robot, measuring ") + e.what());
    }
  }();
  t.info.robot = file_record(o.robot), t.info.truth = file_record(o.truth);
  double settled = 0;
  std::size_t unsettled = 0;  // a joint still faster than 1 mrad/s at the end of the wait: no time to print
  for (double v : t.settled_s) std::isfinite(v) ? void(settled = std::max(settled, v)) : void(++unsettled);
  log << "measured " << t.poses.size() << " poses on the virtual robot in " << fixed(t.poses.size() * (o.move_s + o.settle_s + o.measure_s), 1)
      << " s of motion; ";
  if (unsettled == 0) log << "every joint slower than 1 mrad/s at most " << fixed(settled, 3) << " s after each move\n";
  else
    log << unsettled << " of " << t.poses.size() << " poses with a joint still faster than 1 mrad/s at the end of "
        << "--settle " << exact_number(o.settle_s) << " s and --hold " << exact_number(o.measure_s) << " s (measured anyway)\n";
  calib::write_static_trace(o.measure_out, t, o.force);
}

}  // namespace

Report calibrate_kinematics_files(const CalibrateKinematicsOptions& o) {
  o.validate();
  const sim::RobotFile robot = sim::load_robot(o.robot);
  std::ostringstream quiet_log;  // quiet: the measurement's lines go into the report's text instead
  std::ostream& log = o.quiet ? static_cast<std::ostream&>(quiet_log) : std::cerr;
  const std::string poses_file = o.poses.empty() ? o.measure_out : o.poses;
  if (o.poses.empty()) measure(o, robot.model, log);
  const calib::StaticTrace trace = calib::read_static_trace(poses_file);
  calib::KinematicCalibrationOptions co;
  if (!o.quiet) co.progress = [](const std::string& line) { std::cerr << line << "\n"; };
  const calib::KinematicCalibrationResult r = [&] {
    try {  // the fit names a pose by its number; the user needs the file it came from too
      return calib::calibrate_kinematics(robot.model, trace.poses, co);
    } catch (const Error& e) {
      fail(poses_file, std::string(e.what()) + " (pose N is data row N; robot file " + o.robot + ")");
    }
  }();
  detail::CalibrationInputs in{file_record(o.robot), file_record(poses_file), std::nullopt, std::nullopt, std::nullopt};
  if (!o.truth.empty()) {
    in.truth = file_record(o.truth);
    const sim::RobotModel truth = sim::load_robot(o.truth).model;
    in.camera_residual = Vec6d(o.camera_residual.data());
    in.truth_in_gauge = detail::truth_in_gauge(robot.model, r.start.vector(), truth, *in.camera_residual);
  }
  Report rep = detail::calibration_report(r, in);
  rep.text = quiet_log.str() + rep.text;
  // Both outputs checked as their readers check them, then written together (all or none).
  // The measured poses (--measure) are written before the fit, as its data: a failure after
  // them says they are kept (session 21's probe, class O: "nothing was written" beside them).
  try {
    const std::vector<FileText> files = detail::calibration_files(r, in, robot, o.robot, poses_file, rep, o.result, o.out);
    if (!files.empty()) write_files_atomically(files, o.force);
  } catch (const Error& e) {
    if (o.poses.empty()) throw Error(std::string(e.what()) + "; the measured poses " + o.measure_out + " (--measure) are kept");
    throw;
  }
  for (const std::string& f : {o.result, o.out})
    if (!f.empty()) rep.text += "wrote " + f + "\n";
  return rep;
}

}  // namespace vcloe::workflow
