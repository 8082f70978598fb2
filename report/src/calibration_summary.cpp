// The calibration result's summary — the largest sigma and |error| per kind of parameter — as a
// function of its parameters (calibration.hpp): one table of kinds, used by the writer
// (workflow/calibration_output.cpp) and checked by the reader; and the residual's verdict in words,
// likewise the writer's and the reader's one function.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "vcloe/report/calibration.hpp"

namespace vcloe::report {

namespace {

// The model's order (calib/kinematic_model.hpp): per leg 10 (base joint 0-2, crank length 3,
// crank angle 4, encoder offset 5, link length 6, platform joint 7-9), then the marker frame
// (60-65) and the camera-to-base transform (66-71), position before angles.
constexpr int kLegSlots = 10, kMarker = 60, kCamera = 66;
bool leg(int k) { return k < kMarker; }

const CalibrationKind kKinds[] = {
    {"base joint centres", "m", [](int k) { return leg(k) && k % kLegSlots < 3; }},
    {"platform joint centres", "m", [](int k) { return leg(k) && k % kLegSlots >= 7; }},
    {"crank lengths", "m", [](int k) { return leg(k) && k % kLegSlots == 3; }},
    {"link lengths", "m", [](int k) { return leg(k) && k % kLegSlots == 6; }},
    {"encoder offsets", "rad", [](int k) { return leg(k) && k % kLegSlots == 5; }},
    {"marker frame position", "m", [](int k) { return k >= kMarker && k < kMarker + 3; }},
    {"marker frame angles", "rad", [](int k) { return k >= kMarker + 3 && k < kCamera; }},
    {"camera-to-base position", "m", [](int k) { return k >= kCamera && k < kCamera + 3; }},
    {"camera-to-base angles", "rad", [](int k) { return k >= kCamera + 3; }},
};

}  // namespace

const std::vector<CalibrationKind>& calibration_kinds() {
  static const std::vector<CalibrationKind> kinds(std::begin(kKinds), std::end(kKinds));
  return kinds;
}

double CalibrationKind::largest(const std::vector<double>& per_parameter) const {
  double m = 0;
  for (std::size_t k = 0; k < per_parameter.size(); ++k)
    if (member(static_cast<int>(k))) m = std::max(m, std::abs(per_parameter[k]));
  return m;
}

std::vector<CalibrationGroup> calibration_summary_of(const std::vector<CalibrationParameter>& parameters) {
  std::vector<double> sigma, error;
  bool truth = !parameters.empty();
  for (const CalibrationParameter& p : parameters) {
    sigma.push_back(p.sigma);
    truth = truth && p.truth_in_gauge.has_value();
    error.push_back(p.truth_in_gauge ? p.value - *p.truth_in_gauge : 0.0);
  }
  std::vector<CalibrationGroup> out;
  for (const CalibrationKind& g : calibration_kinds()) {
    CalibrationGroup s{g.name, g.unit, g.largest(sigma), std::nullopt};
    if (truth) s.error = g.largest(error);
    out.push_back(s);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });  // the file's order
  return out;
}

std::string calibration_verdict(const Vec6d& rms, const Vec6d& mean_noise, double ratio, bool adequate) {
  std::ostringstream s;
  s.precision(3);
  static const char* axes[] = {"x", "y", "z", "alpha", "beta", "gamma"};
  if (adequate) {
    s << "residual at the camera noise (" << ratio << " x): the geometric model explains the static poses";
    return s.str();
  }
  int worst = 0;
  for (int c = 1; c < 6; ++c)
    if (rms(c) / mean_noise(c) > rms(worst) / mean_noise(worst)) worst = c;
  s << "model error dominates: the residual is " << ratio << " x the camera noise (worst axis " << axes[worst] << ", "
    << rms(worst) / mean_noise(worst)
    << " x); the poses show a departure the model lacks (joint axis tilt, backlash, link compliance, poses not at "
       "rest, another marker layout); sigma widened by " << ratio;
  return s.str();
}

}  // namespace vcloe::report
