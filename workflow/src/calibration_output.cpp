#include "calibration_output.hpp"

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

nlohmann::json vec6(const Vec6d& v) { return {v(0), v(1), v(2), v(3), v(4), v(5)}; }

}  // namespace

Report calibration_report(const calib::KinematicCalibrationResult& r, const CalibrationInputs& in) {
  Report rep;
  nlohmann::json& j = rep.json;
  j["format"] = "vcloe-kinematic-calibration-1";
  j["inputs"] = {{"robot", to_json(in.robot)}, {"poses", to_json(in.poses)},
                 {"truth", in.truth ? to_json(*in.truth) : nlohmann::json(nullptr)}};
  const calib::KinematicVector x = r.estimate.vector(), x0 = r.start.vector();
  for (int k = 0; k < kKinematicParameters; ++k) {
    nlohmann::json p = {{"name", calib::parameter_name(k)}, {"unit", calib::is_angle(k) ? "rad" : "m"},
                        {"start", x0(k)}, {"value", x(k)}, {"sigma", r.sigma(k)}, {"status", r.status[k]}};
    if (in.truth_in_gauge) p["truth_in_gauge"] = (*in.truth_in_gauge)(k);
    j["parameters"].push_back(p);
  }
  for (std::size_t n = 0; n < r.combinations.size(); ++n)
    j["combinations"].push_back({{"name", r.combinations[n].name}, {"meaning", r.combinations[n].meaning},
                                 {"dimension", r.combinations[n].directions.cols()},
                                 {"in_null_space", n < r.null_space.named_found.size() && r.null_space.named_found[n]}});
  j["null_space"] = {{"dimension", r.null_space.dimension}, {"unnamed", r.null_space.unnamed},
                     {"unnamed_largest", r.null_space.unnamed_largest}, {"free_directions", r.free_directions},
                     {"condition_number", r.condition_number}};
  j["residual"] = {{"rms", vec6(r.residual_rms)}, {"mean_noise", vec6(r.mean_noise)}, {"frame_noise", vec6(r.frame_noise)},
                   {"ratio", r.ratio}, {"adequate", r.adequate}, {"verdict", r.verdict}};
  j["poses"] = r.poses, j["iterations"] = r.iterations, j["cpu_seconds"] = r.cpu_seconds;

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
    j["summary"][g.name] = {{"sigma", largest(r.sigma, g)}, {"unit", g.scale == 1e6 ? "m" : "rad"}};
    if (in.truth_in_gauge) j["summary"][g.name]["error"] = largest(error, g);
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
