#include "calibration_output.hpp"

#include <algorithm>
#include <cmath>

namespace vcloe::workflow::detail {

namespace {

using calib::kKinematicParameters;

// Largest σ (or |error|) over the entries of one kind.
struct Group {
  const char* name;
  const char* unit;
  double scale;
  bool (*member)(int);
};
const Group kGroups[] = {
    {"base joint centres", "um", 1e6, [](int k) { return k < calib::kMarkerOffset && k % calib::kLegParameters < 3; }},
    {"platform joint centres", "um", 1e6, [](int k) { return k < calib::kMarkerOffset && k % calib::kLegParameters >= calib::kPlatformX; }},
    {"crank lengths", "um", 1e6, [](int k) { return k < calib::kMarkerOffset && k % calib::kLegParameters == calib::kCrankLength; }},
    {"link lengths", "um", 1e6, [](int k) { return k < calib::kMarkerOffset && k % calib::kLegParameters == calib::kLinkLength; }},
    {"encoder offsets", "mrad", 1e3, [](int k) { return k < calib::kMarkerOffset && k % calib::kLegParameters == calib::kEncoderOffset; }},
    {"marker frame position", "um", 1e6, [](int k) { return k >= calib::kMarkerOffset && k < calib::kMarkerOffset + 3; }},
    {"marker frame angles", "mrad", 1e3, [](int k) { return k >= calib::kMarkerOffset + 3 && k < calib::kCameraOffset; }},
    {"camera-to-base position", "um", 1e6, [](int k) { return k >= calib::kCameraOffset && k < calib::kCameraOffset + 3; }},
    {"camera-to-base angles", "mrad", 1e3, [](int k) { return k >= calib::kCameraOffset + 3; }},
};

double largest(const calib::KinematicVector& v, const Group& g) {
  double m = 0;
  for (int k = 0; k < kKinematicParameters; ++k)
    if (g.member(k)) m = std::max(m, std::abs(v(k)));
  return m;
}

}  // namespace

// The typed result (report/calibration.hpp), its groups in the file's order (by name).
report::CalibrationReport calibration_result(const calib::KinematicCalibrationResult& r, const CalibrationInputs& in) {
  report::CalibrationReport c;
  c.robot = in.robot, c.poses = in.poses, c.truth = in.truth;
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
  c.residual = {r.residual_rms, r.mean_noise, r.frame_noise, r.ratio, r.adequate, r.verdict};
  const calib::KinematicVector error = in.truth_in_gauge ? calib::KinematicVector(x - *in.truth_in_gauge) : calib::KinematicVector::Zero();
  for (const Group& g : kGroups) {
    report::CalibrationGroup s{g.name, g.scale == 1e6 ? "m" : "rad", largest(r.sigma, g), std::nullopt};
    if (in.truth_in_gauge) s.error = largest(error, g);
    c.summary.push_back(s);
  }
  std::sort(c.summary.begin(), c.summary.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
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
  t += "residual: " + r.verdict + "\n";
  t += "null space: " + std::to_string(r.null_space.dimension) + " directions, " +
       std::to_string(r.null_space.dimension - r.null_space.unnamed) + " named:\n";
  for (std::size_t n = 0; n < r.combinations.size(); ++n)
    t += "  - " + r.combinations[n].meaning + (r.null_space.named_found[n] ? "" : " [NOT found numerically]") + "\n";
  for (const std::string& u : r.null_space.unnamed_largest) t += "  - UNNAMED combination, largest in: " + u + "\n";
  t += "largest 1-sigma" + std::string(in.truth_in_gauge ? " and largest |error| against the truth (in the gauge)" : "") + ":\n";
  const calib::KinematicVector error = in.truth_in_gauge ? calib::KinematicVector(x - *in.truth_in_gauge) : calib::KinematicVector::Zero();
  for (const Group& g : kGroups) {
    t += "  " + std::string(g.name) + ": sigma " + fixed(largest(r.sigma, g) * g.scale, 3) + " " + g.unit;
    if (in.truth_in_gauge) t += ", error " + fixed(largest(error, g) * g.scale, 3) + " " + g.unit;
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
  h += "#   residual: " + r.verdict + "\n";
  for (const Group& g : kGroups)
    h += "#   largest 1-sigma, " + std::string(g.name) + ": " + fixed(largest(r.sigma, g) * g.scale, 3) + " " + g.unit + "\n";
  h += "#   every parameter with its sigma and status: " + result_file + "\n";
  return h;
}

}  // namespace vcloe::workflow::detail
