// The report's sections as HTML (report_sections.hpp).
#include "report_sections.hpp"

#include <openssl/evp.h>

#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

#include "vcloe/core/error.hpp"

namespace vcloe::app {

using nlohmann::json;

// A number of the report, or the infinity sign for null (an unbounded interval).
static std::string bound(const json& v, double scale = 1) {
  return v.is_number() ? html_number(scale * v.get<double>(), 4) : "&infin;";
}

const json& need(const json& j, const std::string& key, const std::string& file) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null())
    fail(file, "missing key '" + key + "' (not written by `vcloe identify` or `vcloe validate --out`, or by an older "
               "vcloe? run it again)");
  return *it;
}

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

ReportFiles report_files(const ReportInput& in) {
  const json& j = need(in.identification, "inputs", in.identification_file);
  ReportFiles s;
  s.table = j;
  auto path = [&](const char* key, bool required) -> std::string {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
      if (required) fail(in.identification_file, std::string("inputs: missing '") + key + "'");
      return "";
    }
    return need(*it, "path", in.identification_file).get<std::string>();
  };
  s.robot = path("robot", true);
  s.measured = path("measured", true);
  s.reference = path("reference", true);
  s.experiment = path("experiment", false);
  s.model = path("model", true);
  return s;
}

std::string report_summary(const ReportInput& in, const ReportFiles& files) {
  const json& r = in.identification;
  const json& a = need(r, "adequacy", in.identification_file);
  std::ostringstream h;
  h << "<section id=\"summary\"><h2>Summary</h2><p class=\"verdict " << (a.value("verdict", "") == "model error dominates" ? "bad" : "ok")
    << "\"><b>Model adequacy: " << html_escape(a.value("verdict", "")) << ".</b> " << html_escape(a.value("summary", "")) << "</p>\n<table>";
  h << "<tr><th>anchor</th><td>" << html_escape(need(r, "anchor", in.identification_file).get<std::string>()) << "</td></tr>";
  h << "<tr><th>fit</th><td>" << need(r, "iterations", in.identification_file).get<int>() << " Levenberg-Marquardt iterations, "
    << html_number(need(r, "seconds", in.identification_file).get<double>(), 3) << " s; " << need(r, "identified_count", in.identification_file).get<int>()
    << " of 67 parameters identified; " << html_escape(r.value("termination", "")) << "</td></tr>";
  for (const auto& [key, entry] : files.table.items())
    if (entry.is_object())
      h << "<tr><th>" << html_escape(key) << "</th><td><code>" << html_escape(entry.value("path", "")) << "</code><br><small>SHA-256 "
        << html_escape(entry.value("sha256", "")) << "</small></td></tr>";
  h << "</table></section>\n";
  return h.str();
}

std::string report_parameter_table(const ReportInput& in) {
  const json& r = in.identification;
  std::map<std::string, std::string> moved;
  for (const auto& m : r.value("moved_to_consistency", json::array()))
    moved[m.get<std::string>().substr(0, m.get<std::string>().find(' '))] = m.get<std::string>();
  std::ostringstream h;
  h << "<section id=\"table2\"><h2>Parameters (Table 2 form)</h2><p>95 % interval: value &times; exp(&plusmn;1.96 &sigma;/|value|); "
       "&sigma; covers camera noise, coloured residuals and the disagreement of sub-fits (docs/identification.md).</p>\n"
       "<table id=\"parameters\"><thead><tr><th>name</th><th>unit</th><th>prior</th><th>value</th><th>95 % interval</th>"
       "<th>&sigma;/|value|</th><th>status</th></tr></thead><tbody>\n";
  for (const auto& p : need(r, "parameters", in.identification_file)) {
    const std::string name = p.at("name").get<std::string>();
    const bool identified = p.value("identified", false);
    h << "<tr class=\"" << (identified ? "id" : "not") << "\"><td>" << html_escape(name) << "</td><td>" << html_escape(p.value("unit", ""))
      << "</td><td>" << bound(p.value("prior", json())) << "</td><td>" << bound(p.value("value", json())) << "</td><td>";
    if (p.contains("interval95") && p["interval95"].is_array() && p["interval95"].size() == 2)
      h << "[" << bound(p["interval95"][0]) << ", " << bound(p["interval95"][1]) << "]</td><td>" << bound(p["rel_sigma"], 100)
        << " %";
    else
      h << "</td><td>";
    h << "</td><td>" << html_escape(p.value("status", ""));
    if (moved.count(name)) h << "; moved for consistency: " << html_escape(moved[name]);
    h << "</td></tr>\n";
  }
  h << "</tbody></table>\n";
  for (const char* key : {"consistency"})
    for (const auto& c : r.value(key, json::array())) h << "<p class=\"bad\">physical consistency: " << html_escape(c.get<std::string>()) << "</p>\n";
  h << "</section>\n";
  return h.str();
}

std::string report_rms_table(const ReportInput& in, const Vec6d& sigma) {
  const json& r = in.identification;
  const json& before = need(r, "before_rms_all", in.identification_file);
  const json& after = need(r, "after_rms_all", in.identification_file);
  std::ostringstream h;
  h << "<section id=\"table3\"><h2>RMS of measured &minus; twin (Table 3 form)</h2><table><thead><tr><th></th><th>x mm</th><th>y mm</th>"
       "<th>z mm</th><th>&alpha; mrad</th><th>&beta; mrad</th><th>&gamma; mrad</th></tr></thead><tbody>\n";
  h << "<tr><th>declared camera noise &sigma;</th>";
  for (int c = 0; c < 6; ++c) h << "<td>" << html_number(sigma(c) * 1e3, 3) << "</td>";
  h << "</tr>\n";
  auto row = [&](const json& a, const std::string& label, bool ratio) {
    h << "<tr><th>" << label << "</th>";
    for (int c = 0; c < 6; ++c) {
      const double v = c < 3 ? a.at("mm")[c].get<double>() : a.at("mrad")[c - 3].get<double>();
      h << "<td>" << html_number(v, 3) << (ratio ? " (" + html_number(v / (sigma(c) * 1e3), 3) + " &sigma;)" : "") << "</td>";
    }
    h << "</tr>\n";
  };
  for (std::size_t e = 0; e < before.size() && e < after.size(); ++e) {
    row(before[e], "experiment " + std::to_string(e + 1) + " before", false);
    row(after[e], "experiment " + std::to_string(e + 1) + " after", true);
  }
  h << "</tbody></table></section>\n";
  return h.str();
}

std::string report_validation(const ReportInput& in) {
  if (!in.validation) return "";
  const json& v = *in.validation;
  const std::string& f = in.validation_file;
  std::ostringstream h;
  h << "<section id=\"validation\"><h2>Validation on fresh trajectories (Table 4 form)</h2><p>RMS of measured &minus; twin(model) "
       "and the noise floor measured &minus; twin(truth), per trajectory; worst axis ratio "
    << html_number(need(v, "worst_ratio", f).get<double>(), 3) << ".</p>\n<table><thead><tr><th>seed</th><th></th><th>x mm</th><th>y mm</th>"
       "<th>z mm</th><th>&alpha; mrad</th><th>&beta; mrad</th><th>&gamma; mrad</th><th>worst / floor</th></tr></thead><tbody>\n";
  for (const auto& t : need(v, "trajectories", f)) {
    for (const char* which : {"model", "noise_floor"}) {
      const json& a = need(t, which, f);
      h << "<tr><td>" << (std::string(which) == "model" ? std::to_string(t.value("seed", 0)) : "") << "</td><td>" << which << "</td>";
      for (int c = 0; c < 6; ++c)
        h << "<td>" << bound(c < 3 ? a.at("rms_mm")[c] : a.at("rms_mrad")[c - 3]) << "</td>";
      h << "<td>" << (std::string(which) == "model" ? bound(t.value("worst_ratio", json())) : "") << "</td></tr>\n";
    }
  }
  h << "</tbody></table>\n";
  if (v.contains("parameter_variation")) {
    h << "<h3>Variation over re-identifications (Table 5 form)</h3><table><thead><tr><th>name</th><th>unit</th><th>model</th>"
         "<th>mean</th><th>std</th><th>std/|mean|</th><th>identified in</th></tr></thead><tbody>\n";
    for (const auto& p : v["parameter_variation"])
      h << "<tr><td>" << html_escape(p.value("name", "")) << "</td><td>" << html_escape(p.value("unit", "")) << "</td><td>"
        << bound(p.value("model", json())) << "</td><td>" << bound(p.value("mean", json())) << "</td><td>"
        << bound(p.value("std", json())) << "</td><td>" << bound(p.value("rel_std", json()), 100) << " %</td><td>"
        << p.value("identified_runs", 0) << " / " << p.value("runs", 0) << "</td></tr>\n";
    h << "</tbody></table>\n";
  }
  h << "</section>\n";
  return h.str();
}

}  // namespace vcloe::app
