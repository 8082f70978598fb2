#include "calibration_output.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "vcloe/calib/kinematic_identifiability.hpp"
#include "vcloe/core/sealed_json.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/json_file.hpp"

namespace vcloe::workflow::detail {

namespace {

using calib::kKinematicParameters;

using Kind = report::CalibrationKind;

// A kind's figures as printed: µm or mrad.
double shown_scale(const Kind& g) { return std::string(g.unit) == "m" ? 1e6 : 1e3; }
const char* shown_unit(const Kind& g) { return std::string(g.unit) == "m" ? "um" : "mrad"; }

// Largest |entry| over the members of one kind (report::calibration_kinds, the summary's table).
double largest(const calib::KinematicVector& v, const Kind& g) {
  return g.largest(std::vector<double>(v.data(), v.data() + v.size()));
}

}  // namespace

calib::KinematicVector truth_in_gauge(const sim::RobotModel& drawn, const calib::KinematicVector& start,
                                      const sim::RobotModel& truth, const Vec6d& camera_residual) {
  calib::KinematicParameters p = calib::nominal_parameters(truth);
  const calib::LegFrames frames(drawn);
  for (int i = 0; i < sim::kLegs; ++i) {
    const Vec3d w = truth.legs[i].wrench;
    p.legs[i].crank_angle = std::atan2(frames.crank_direction[i].cross(w).dot(frames.axis[i]), frames.crank_direction[i].dot(w));
  }
  p.camera_to_base = camera_residual;
  return calib::in_gauge(drawn, start, p.vector());
}

// The typed result (report/calibration.hpp), its groups in the file's order (by name).
report::CalibrationReport calibration_result(const calib::KinematicCalibrationResult& r, const CalibrationInputs& in) {
  report::CalibrationReport c;
  c.robot = in.robot, c.poses = in.poses, c.truth = in.truth, c.camera_residual = in.camera_residual;
  const calib::KinematicVector x = r.estimate.vector(), x0 = r.start.vector();
  for (int k = 0; k < kKinematicParameters; ++k) {
    report::CalibrationParameter p{calib::parameter_name(k), calib::is_angle(k) ? "rad" : "m", x0(k), x(k), r.sigma(k),
                                   r.status[static_cast<std::size_t>(k)], std::nullopt};
    if (in.truth_in_gauge) p.truth_in_gauge = (*in.truth_in_gauge)(k);
    c.parameters.push_back(p);
  }
  for (std::size_t n = 0; n < r.combinations.size(); ++n)
    c.combinations.push_back({r.combinations[n].name, r.combinations[n].meaning,
                              static_cast<int>(r.combinations[n].directions.cols()),
                              n < r.null_space.named_found.size() && r.null_space.named_found[n]});
  c.null_space = {r.null_space.dimension, r.null_space.unnamed, r.free_directions, r.null_space.unnamed_largest,
                  r.condition_number};
  c.residual = {r.residual_rms, r.mean_noise, r.frame_noise, r.chi2, r.dof, r.ratio, r.adequate_ratio, r.adequate,
                report::calibration_verdict(r.residual_rms, r.mean_noise, r.ratio, r.adequate)};  // the reader checks it by the same function
  c.summary = report::calibration_summary_of(c.parameters);  // the reader checks it by the same function
  c.poses_used = r.poses, c.iterations = r.iterations, c.cpu_seconds = r.cpu_seconds;
  return c;
}

Report calibration_report(const calib::KinematicCalibrationResult& r, const CalibrationInputs& in) {
  Report rep;
  rep.json = report::to_json(calibration_result(r, in));
  const calib::KinematicVector x = r.estimate.vector();
  std::string& t = rep.text;
  t += "kinematic calibration: " + std::to_string(r.poses) + " static poses, " + std::to_string(r.free_directions) +
       " free directions, " + std::to_string(r.iterations) + " iterations, " + fixed(r.cpu_seconds, 2) + " s CPU\n";
  t += "residual: " + report::calibration_verdict(r.residual_rms, r.mean_noise, r.ratio, r.adequate) + "\n";
  t += "null space: " + std::to_string(r.null_space.dimension) + " directions, " +
       std::to_string(r.null_space.dimension - r.null_space.unnamed) + " named:\n";
  for (std::size_t n = 0; n < r.combinations.size(); ++n)
    t += "  - " + r.combinations[n].meaning + (r.null_space.named_found[n] ? "" : " [NOT found numerically]") + "\n";
  for (const std::string& u : r.null_space.unnamed_largest) t += "  - UNNAMED combination, largest in: " + u + "\n";
  t += "largest 1-sigma" + std::string(in.truth_in_gauge ? " and largest |error| against the truth (in the gauge)" : "") + ":\n";
  const calib::KinematicVector error = in.truth_in_gauge ? calib::KinematicVector(x - *in.truth_in_gauge) : calib::KinematicVector::Zero();
  for (const Kind& g : report::calibration_kinds()) {
    t += "  " + std::string(g.name) + ": sigma " + fixed(largest(r.sigma, g) * shown_scale(g), 3) + " " + shown_unit(g);
    if (in.truth_in_gauge) t += ", error " + fixed(largest(error, g) * shown_scale(g), 3) + " " + shown_unit(g);
    t += "\n";
  }
  return rep;
}

std::string calibrated_robot_header(const calib::KinematicCalibrationResult& r, const CalibrationInputs& in,
                                    const std::string& result_file) {
  std::string h = "# Calibrated by `vcloe calibrate kinematics` (docs/calibration.md): geometry, encoder offsets and\n"
                  "# marker frame fitted to " + std::to_string(r.poses) + " static poses; the base geometry and gravity\n"
                  "# are expressed in the frame the camera reports poses in (camera-to-base residual applied).\n";
  h += sim::calibrated_from_line(in.robot);
  h += "#   and static poses " + in.poses.path + " (SHA-256 " + in.poses.sha256 + ")\n";
  h += "#   residual: " + report::calibration_verdict(r.residual_rms, r.mean_noise, r.ratio, r.adequate) + "\n";
  for (const Kind& g : report::calibration_kinds())
    h += "#   largest 1-sigma, " + std::string(g.name) + ": " + fixed(largest(r.sigma, g) * shown_scale(g), 3) + " " + shown_unit(g) + "\n";
  h += "#   every parameter with its sigma and status: " + result_file + "\n";
  return h;
}

namespace {

// "c.json and c.yaml not written" (the outputs a refusal leaves unwritten).
std::string not_written(const std::string& result, const std::string& out) {
  if (result.empty() || out.empty()) return (result.empty() ? out : result) + " not written";
  return result + " and " + out + " not written";
}

// The robot-file reader's refusal of `text`, without the place in that text (a file never
// written): "key 'legs[5].encoder_offset': expected … got 0.1756"; "" if it reads.
std::string reader_refusal(const std::string& text) {
  const std::string name = "(calibrated robot)";
  try {
    sim::parse_robot(text, name);
    return "";
  } catch (const Error& e) {
    std::string why = e.what();
    if (why.rfind(name, 0) == 0) why.erase(0, name.size());
    const std::size_t key = why.find("key '");
    return key != std::string::npos ? why.substr(key) : why.substr(why.find_first_not_of(":0123456789 "));
  }
}

}  // namespace

std::vector<FileText> calibration_files(const calib::KinematicCalibrationResult& r, const CalibrationInputs& in,
                                        const sim::RobotFile& drawn, const std::string& drawn_file,
                                        const std::string& poses_file, const Report& report, const std::string& result,
                                        const std::string& out) {
  const sim::RobotModel calibrated = calib::calibrated_model(drawn.model, r.estimate);
  const std::string poses = "the calibration fitted to its " + std::to_string(r.poses) + " static poses";
  if (const std::string moved = sim::calibration_reach_problem(calibrated, drawn.model); !moved.empty()) {
    char sigma[96];
    std::snprintf(sigma, sizeof sigma, "largest 1-sigma of a joint centre %.1f mm",
                  std::max(largest(r.sigma, report::calibration_kinds()[0]), largest(r.sigma, report::calibration_kinds()[1])) * 1e3);
    fail(poses_file, poses + " is no calibration of " + drawn_file + ": " + moved +
                         " (a built robot departs +-0.5 mm from its drawing; " + sigma +
                         "): too few poses or too short holds to determine it, or poses not of this robot (its "
                         "encoders in the enc_* columns?); " + not_written(result, out));
  }
  std::vector<FileText> files;
  if (!result.empty()) files.push_back({result, sealed_json_text(report.json, result)});
  if (out.empty()) return files;
  const std::string text = sim::sealed_calibrated_text(calibrated_robot_header(r, in, result.empty() ? "(no result file written)" : result) +
                                                     sim::robot_to_yaml(calibrated, drawn.lambda));
  if (const std::string why = reader_refusal(text); !why.empty())
    fail(poses_file, poses + " is a robot no robot file holds (" + why +
                         "): are these poses of this robot, its encoders in the enc_* columns and its commands in "
                         "cmd_*? " + not_written(result, out));
  files.push_back({out, text});
  return files;
}

}  // namespace vcloe::workflow::detail
