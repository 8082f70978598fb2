// The report's load section: what `vcloe predict` gives along the tracked reference (tracking.hpp).
#include <algorithm>
#include <cmath>
#include <sstream>

#include "figures.hpp"
#include "sections.hpp"
#include "vcloe/report/tracking.hpp"

namespace vcloe::report {

namespace {

const char* const kJoint[3] = {"B (base)", "T (crank tip)", "A (platform)"};

// Per drive: RMS and peak |tau|, the largest sigma (N m).
std::string torque_table(const TorqueSeries& t) {
  std::ostringstream h;
  h << "<table id=\"loads-torques\"><thead><tr><th>drive</th><th>RMS &tau; (N&middot;m)</th><th>peak |&tau;| (N&middot;m)</th>"
       "<th>at t (s)</th><th>largest &sigma; (N&middot;m)</th></tr></thead><tbody>\n";
  for (int i = 0; i < 6; ++i) {
    double sum = 0, peak = 0, at = 0, sigma = 0;
    for (std::size_t n = 0; n < t.time.size(); ++n) {
      const double tau = t.identified[n](i);
      sum += tau * tau;
      if (std::abs(tau) > peak) peak = std::abs(tau), at = t.time[n];
      sigma = std::max(sigma, t.sigma[n](i));
    }
    h << "<tr><td>" << i + 1 << "</td><td>" << html_number(std::sqrt(sum / static_cast<double>(t.time.size())), 4) << "</td><td>"
      << html_number(peak, 4) << "</td><td>" << html_number(at, 4) << "</td><td>" << html_number(sigma, 3) << "</td></tr>\n";
  }
  h << "</tbody></table>\n";
  return h.str();
}

// Per leg and joint: RMS and peak of the force's magnitude |f| (N); the largest sigma of a
// component per joint kind below.
std::string force_table(const PredictedLoads& l) {
  std::ostringstream h;
  h << "<table id=\"loads-forces\"><thead><tr><th>leg</th>";
  for (const char* j : kJoint) h << "<th>" << j << " RMS |f| (N)</th><th>" << j << " peak |f| (N)</th>";
  h << "</tr></thead><tbody>\n";
  for (int leg = 0; leg < 6; ++leg) {
    h << "<tr><td>" << leg + 1 << "</td>";
    for (int j = 0; j < 3; ++j) {
      double sum = 0, peak = 0;
      for (const JointForces& f : l.force) {
        const double m = f.segment<3>(9 * leg + 3 * j).norm();
        sum += m * m, peak = std::max(peak, m);
      }
      h << "<td>" << html_number(std::sqrt(sum / static_cast<double>(l.force.size())), 4) << "</td><td>" << html_number(peak, 4)
        << "</td>";
    }
    h << "</tr>\n";
  }
  h << "<tr><td>largest &sigma; of a component</td>";
  for (int j = 0; j < 3; ++j) {
    double sigma = 0;
    for (const JointForces& s : l.force_sigma)
      for (int leg = 0; leg < 6; ++leg) sigma = std::max(sigma, s.segment<3>(9 * leg + 3 * j).maxCoeff());
    h << "<td colspan=\"2\">" << html_number(sigma, 3) << "</td>";
  }
  h << "</tr></tbody></table>\n";
  return h.str();
}

}  // namespace

std::string loads_section(const std::optional<PredictedLoads>& loads, const std::string& dir) {
  if (!loads || loads->torque.time.empty()) return "";
  const PredictedLoads& l = *loads;
  const std::string png = dir + "/loads-torques.png";
  plot_torques(l.torque, png, "Drive torques predicted along the tracked reference", "predicted");
  std::ostringstream h;
  h << "<section id=\"loads\"><h2>Drive torques and joint forces along the tracked reference</h2><p><code>"
    << html_escape(l.file) << "</code> (<code>vcloe predict</code>, inverse dynamics eq. 23 and the legs' joint forces, "
    << "docs/control.md) of the model <code>" << html_escape(l.model) << "</code>, "
    << (l.band ? "with the &sigma; band of its identification's covariance of &Xi;"
               : "without a &sigma; band (the model had no identification report)")
    << "; checked to be along the runs' reference (the SHA-256 their sidecars record).</p>\n"
    << torque_table(l.torque) << html_figure(png, "drive torques along the tracked reference, with the sigma band")
    << "<p>Joint forces (base frame, N): the magnitude of the force each leg's joint carries.</p>\n" << force_table(l)
    << "</section>\n";
  return h.str();
}

}  // namespace vcloe::report
