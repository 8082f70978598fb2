// The report's sections as HTML (sections.hpp).
#include "sections.hpp"

#include <openssl/evp.h>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

#include "vcloe/core/error.hpp"

namespace vcloe::report {

// A number of the report, or the infinity sign for an unbounded one (null in the file).
static std::string bound(double v, double scale = 1) { return std::isfinite(v) ? html_number(scale * v, 4) : "&infin;"; }

std::string html_escape(const std::string& s) {
  std::string o;
  for (char c : s) o += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : c == '"' ? "&quot;" : std::string(1, c);
  return o;
}

std::string html_number(double v, int digits) {
  std::ostringstream s;
  s << std::setprecision(digits) << v;
  return s.str();
}

namespace {
std::string base64_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty()) fail(path, "figure was not written");
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

}  // namespace

std::string html_figure(const std::string& png, const std::string& caption) {
  return "<figure><img src=\"data:image/png;base64," + base64_file(png) + "\" alt=\"" + html_escape(caption) +
         "\"><figcaption>" + html_escape(caption) + "</figcaption></figure>\n";
}

std::string report_summary(const IdentificationReport& r) {
  const AdequacyEntry& a = r.adequacy;
  std::ostringstream h;
  const ConvergenceEntry& c = r.convergence;
  h << "<section id=\"summary\"><h2>Summary</h2><p class=\"verdict " << (c.stuck() ? "bad" : "ok") << "\"><b>Convergence: "
    << html_escape(c.verdict) << ".</b> " << html_escape(c.summary) << "</p>\n";
  if (c.stuck())  // a stuck fit's residual is the optimiser's, not the model's
    h << "<p class=\"verdict bad\"><b>Model adequacy: not judged</b> (the fit is stuck).</p>\n<table>";
  else
    h << "<p class=\"verdict " << (a.verdict == "model error dominates" ? "bad" : "ok") << "\"><b>Model adequacy: "
      << html_escape(a.verdict) << ".</b> " << html_escape(a.summary) << "</p>\n<table>";
  h << "<tr><th>anchor</th><td>" << html_escape(r.anchor) << "</td></tr>";
  h << "<tr><th>fit</th><td>" << r.iterations << " Levenberg-Marquardt iterations, " << html_number(r.seconds, 3) << " s; "
    << r.identified_count << " of " << r.parameters.size() << " parameters identified; " << html_escape(r.termination) << "</td></tr>";
  const LatencyEntry& l = r.latency;  // a nuisance parameter, not one of the 70
  h << "<tr><th>latency offset</th><td>" << html_number(l.value * 1e3, 4) << " ms";
  if (l.fitted)
    h << " &plusmn; " << html_number(l.sigma * 1e3, 2) << " ms (camera noise alone " << html_number(l.sigma_camera * 1e3, 2)
      << " ms; bounds " << html_number(l.low * 1e3, 3) << " &hellip; " << html_number(l.high * 1e3, 3) << " ms)";
  h << "; " << html_escape(l.status) << " <small>(true &minus; configured camera latency)</small></td></tr>";
  const ReportInputs& in = r.inputs;
  // In the order of the file's keys (alphabetical), the inputs not given left out.
  const std::map<std::string, std::optional<FileEntry>> files = {
      {"config", in.config},       {"experiment", in.experiment}, {"measured", in.measured}, {"model", in.model},
      {"payload_trace", in.payload_trace}, {"reference", in.reference}, {"robot", in.robot}};
  for (const auto& [key, entry] : files)
    if (entry)
      h << "<tr><th>" << html_escape(key) << "</th><td><code>" << html_escape(entry->path) << "</code><br><small>SHA-256 "
        << html_escape(entry->sha256) << "</small></td></tr>";
  h << "</table></section>\n";
  return h.str();
}

std::string report_parameter_table(const IdentificationReport& r) {
  std::map<std::string, std::string> moved;
  for (const std::string& m : r.moved_to_consistency) moved[m.substr(0, m.find(' '))] = m;
  std::ostringstream h;
  h << "<section id=\"table2\"><h2>Parameters (Table 2 form)</h2><p>95 % interval: value &times; exp(&plusmn;1.96 &sigma;/|value|); "
       "&sigma; covers camera noise, coloured residuals and the disagreement of sub-fits (docs/identification.md).</p>\n"
       "<table id=\"parameters\"><thead><tr><th>name</th><th>unit</th><th>prior</th><th>value</th><th>95 % interval</th>"
       "<th>&sigma;/|value|</th><th>status</th></tr></thead><tbody>\n";
  for (const ParameterEntry& p : r.parameters) {
    h << "<tr class=\"" << (p.identified ? "id" : "not") << "\"><td>" << html_escape(p.name) << "</td><td>" << html_escape(p.unit)
      << "</td><td>" << bound(p.prior) << "</td><td>" << bound(p.value) << "</td><td>";
    if (p.interval95)
      h << "[" << bound((*p.interval95)[0]) << ", " << bound((*p.interval95)[1]) << "]</td><td>" << bound(p.rel_sigma, 100)
        << " %";
    else
      h << "</td><td>";
    h << "</td><td>" << html_escape(p.status);
    if (moved.count(p.name)) h << "; moved for consistency: " << html_escape(moved[p.name]);
    h << "</td></tr>\n";
  }
  h << "</tbody></table>\n";
  for (const std::string& c : r.consistency) h << "<p class=\"bad\">physical consistency: " << html_escape(c) << "</p>\n";
  h << "</section>\n";
  return h.str();
}

std::string report_rms_table(const IdentificationReport& r, const Vec6d& sigma) {
  std::ostringstream h;
  h << "<section id=\"table3\"><h2>RMS of measured &minus; twin (Table 3 form)</h2><table><thead><tr><th></th><th>x mm</th><th>y mm</th>"
       "<th>z mm</th><th>&alpha; mrad</th><th>&beta; mrad</th><th>&gamma; mrad</th></tr></thead><tbody>\n";
  h << "<tr><th>declared camera noise &sigma;</th>";
  for (int c = 0; c < 6; ++c) h << "<td>" << html_number(sigma(c) * 1e3, 3) << "</td>";
  h << "</tr>\n";
  auto row = [&](const AxesRms& a, const std::string& label, bool ratio) {
    h << "<tr><th>" << label << "</th>";
    for (int c = 0; c < 6; ++c) {
      const double v = a[static_cast<std::size_t>(c)];
      h << "<td>" << html_number(v, 3) << (ratio ? " (" + html_number(v / (sigma(c) * 1e3), 3) + " &sigma;)" : "") << "</td>";
    }
    h << "</tr>\n";
  };
  for (std::size_t e = 0; e < r.before_rms_all.size() && e < r.after_rms_all.size(); ++e) {
    row(r.before_rms_all[e], "experiment " + std::to_string(e + 1) + " before", false);
    row(r.after_rms_all[e], "experiment " + std::to_string(e + 1) + " after", true);
  }
  h << "</tbody></table></section>\n";
  return h.str();
}

namespace {

std::string variation_table(const std::vector<ParameterVariation>& variation) {
  std::ostringstream h;
  h << "<h3>Variation over re-identifications (Table 5 form)</h3><table><thead><tr><th>name</th><th>unit</th><th>model</th>"
       "<th>mean</th><th>std</th><th>std/|mean|</th><th>identified in</th></tr></thead><tbody>\n";
  for (const ParameterVariation& p : variation)
    h << "<tr><td>" << html_escape(p.name) << "</td><td>" << html_escape(p.unit) << "</td><td>" << bound(p.model) << "</td><td>"
      << bound(p.mean) << "</td><td>" << bound(p.std) << "</td><td>" << bound(p.rel_std, 100) << " %</td><td>"
      << p.identified_runs << " / " << p.runs << "</td></tr>\n";
  h << "</tbody></table>\n";
  return h.str();
}

}  // namespace

std::string report_validation(const std::optional<ValidationResult>& validation) {
  if (!validation) return "";
  const ValidationResult& v = *validation;
  std::ostringstream h;
  h << "<section id=\"validation\"><h2>Validation on fresh trajectories (Table 4 form)</h2><p>RMS of measured &minus; twin(model) "
       "and the noise floor measured &minus; twin(truth), per trajectory; worst axis ratio "
    << html_number(v.worst_ratio, 3) << ".</p>\n<table><thead><tr><th>seed</th><th></th><th>x mm</th><th>y mm</th>"
       "<th>z mm</th><th>&alpha; mrad</th><th>&beta; mrad</th><th>&gamma; mrad</th><th>worst / floor</th></tr></thead><tbody>\n";
  for (const ValidationTrajectory& t : v.trajectories)
    for (const bool model : {true, false}) {
      const auto rms = (model ? t.model : t.noise_floor).rms();
      h << "<tr><td>" << (model ? std::to_string(t.seed) : "") << "</td><td>" << (model ? "model" : "noise_floor") << "</td>";
      for (double x : rms) h << "<td>" << bound(x) << "</td>";
      h << "<td>" << (model ? bound(t.worst_ratio) : "") << "</td></tr>\n";
    }
  h << "</tbody></table>\n";
  if (v.parameter_variation) h << variation_table(*v.parameter_variation);
  h << "</section>\n";
  return h.str();
}

}  // namespace vcloe::report
