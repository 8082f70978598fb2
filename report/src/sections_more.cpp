// The report's sections beyond the fit (sections.hpp): the kinematic calibration the robot
// file came from, the drive torques the model predicts (the tracking of runs: tracking.cpp).
#include <cmath>
#include <sstream>

#include "figures.hpp"
#include "sections.hpp"
#include "vcloe/core/rotation_difference.hpp"
#include "vcloe/report/pose_plot.hpp"

namespace vcloe::report {

namespace {

// A length in µm or an angle in mrad, by the parameter's unit.
std::string scaled(double v, const std::string& unit, int digits = 4) {
  return html_number(unit == "m" ? v * 1e6 : v * 1e3, digits);
}
const char* shown_unit(const std::string& unit) { return unit == "m" ? "&micro;m" : "mrad"; }

std::string calibration_summary(const std::string& file, const CalibrationReport& c) {
  std::ostringstream h;
  const CalibrationResidual& r = c.residual;
  h << "<p class=\"verdict " << (r.adequate ? "ok" : "bad") << "\"><b>Residual: " << html_escape(r.verdict) << "</b></p>\n"
    << "<table><tr><th>result</th><td><code>" << html_escape(file) << "</code></td></tr><tr><th>robot file</th><td><code>"
    << html_escape(c.robot.path) << "</code><br><small>SHA-256 " << html_escape(c.robot.sha256)
    << "</small></td></tr><tr><th>static poses</th><td><code>" << html_escape(c.poses.path) << "</code><br><small>SHA-256 "
    << html_escape(c.poses.sha256) << "</small></td></tr><tr><th>fit</th><td>" << c.poses_used << " static poses, "
    << c.null_space.free_directions << " free directions (condition number " << html_number(c.null_space.condition_number, 3)
    << "), " << c.iterations << " iterations, " << html_number(c.cpu_seconds, 3) << " s CPU</td></tr></table>\n";
  h << "<h3>What the poses cannot determine (" << c.null_space.dimension << " directions, "
    << c.null_space.dimension - c.null_space.unnamed << " named)</h3><ul>\n";
  for (const CalibrationCombination& m : c.combinations)
    h << "<li>" << html_escape(m.meaning) << (m.in_null_space ? "" : " <b>[not found numerically]</b>") << "</li>\n";
  for (const std::string& u : c.null_space.unnamed_largest)
    h << "<li class=\"bad\">an unnamed combination, largest in " << html_escape(u) << "</li>\n";
  h << "</ul>\n<h3>Largest 1&sigma; per kind</h3><table><thead><tr><th>kind</th><th>largest &sigma;</th>"
    << "<th>largest |error| against the truth</th></tr></thead><tbody>\n";
  for (const CalibrationGroup& g : c.summary)
    h << "<tr><td>" << html_escape(g.name) << "</td><td>" << scaled(g.sigma, g.unit, 3) << " " << shown_unit(g.unit)
      << "</td><td>" << (g.error ? scaled(*g.error, g.unit, 3) + " " + shown_unit(g.unit) : "") << "</td></tr>\n";
  h << "</tbody></table>\n";
  return h.str();
}

}  // namespace

std::string report_calibration(const std::string& file, const std::optional<CalibrationReport>& calibration) {
  if (!calibration) return "";
  const CalibrationReport& c = *calibration;
  const bool truth = !c.parameters.empty() && c.parameters.front().truth_in_gauge.has_value();
  std::ostringstream h;
  h << "<section id=\"calibration\"><h2>Kinematic calibration</h2>\n" << calibration_summary(file, c)
    << "<h3>Parameters</h3><table id=\"calibration-parameters\"><thead><tr><th>name</th><th>unit</th><th>drawn</th>"
    << "<th>calibrated</th><th>&sigma;</th>" << (truth ? "<th>error / &sigma;</th>" : "") << "<th>status</th></tr></thead><tbody>\n";
  for (const CalibrationParameter& p : c.parameters) {
    h << "<tr class=\"" << (p.status == "identified" ? "id" : "not") << "\"><td>" << html_escape(p.name) << "</td><td>"
      << shown_unit(p.unit) << "</td><td>" << scaled(p.start, p.unit, 6) << "</td><td>" << scaled(p.value, p.unit, 6)
      << "</td><td>" << scaled(p.sigma, p.unit, 3) << "</td>";
    if (truth)
      h << "<td>" << (p.truth_in_gauge && p.sigma > 0 && p.status == "identified" ? html_number((p.value - *p.truth_in_gauge) / p.sigma, 3) : "") << "</td>";
    h << "<td>" << html_escape(p.status) << "</td></tr>\n";
  }
  h << "</tbody></table></section>\n";
  return h.str();
}

std::string report_torques(const TorqueSeries& t, const std::string& dir) {
  if (t.time.empty()) return "";
  const std::string png = dir + "/torques.png";
  plot_torques(t, png, "Drive torques predicted along the excitation trajectory");
  std::ostringstream h;
  h << "<section id=\"torques\"><h2>Drive torques predicted (inverse dynamics, eq. 23)</h2><p>Along the excitation "
       "trajectory; &sigma; from the identification's covariance of &Xi;, propagated through the regressor "
       "(docs/control.md, <code>vcloe predict</code>).</p>\n<table><thead><tr><th>drive</th><th>RMS identified (N&middot;m)</th>"
       "<th>largest &sigma; (N&middot;m)</th><th>RMS priors &minus; identified (N&middot;m)</th></tr></thead><tbody>\n";
  for (int i = 0; i < 6; ++i) {
    double rms = 0, top = 0, diff = 0;
    for (std::size_t n = 0; n < t.time.size(); ++n) {
      rms += t.identified[n](i) * t.identified[n](i);
      top = std::max(top, t.sigma[n](i));
      diff += (t.priors[n](i) - t.identified[n](i)) * (t.priors[n](i) - t.identified[n](i));
    }
    const double count = static_cast<double>(t.time.size());
    h << "<tr><td>" << i + 1 << "</td><td>" << html_number(std::sqrt(rms / count), 4) << "</td><td>" << html_number(top, 3)
      << "</td><td>" << html_number(std::sqrt(diff / count), 4) << "</td></tr>\n";
  }
  h << "</tbody></table>\n" << html_figure(png, "drive torques: identified with its sigma band, priors dashed") << "</section>\n";
  return h.str();
}

}  // namespace vcloe::report
