// The identification report as one self-contained HTML file (html.hpp): the figures drawn into
// a private temporary directory and embedded, the page put together from the sections
// (sections.hpp).
#include "vcloe/report/html.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "figures.hpp"
#include "vcloe/report/gnuplot.hpp"
#include "sections.hpp"
#include "vcloe/core/defaults.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/file_extension.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/core/rotation_difference.hpp"

namespace vcloe::report {

namespace {

namespace fs = std::filesystem;

// Every image loaded and the page's height, set on the page itself for the browser test
// (tests/apps/report_browser.py).
const char* const kImageCheck =
    "<script>window.addEventListener('load',function(){var i=document.images,n=0;"
    "for(var k=0;k<i.length;k++)if(i[k].complete&&i[k].naturalWidth>0)n++;"
    "document.body.dataset.imagesLoaded=n+'/'+i.length;"
    "document.body.dataset.pageHeight=document.documentElement.scrollHeight;});</script>\n";

const char* const kStyle =
    "<style>body{font-family:sans-serif;max-width:1240px;margin:auto;padding:0 16px;color:#222}"
    "table{border-collapse:collapse;margin:8px 0;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
    "th{background:#f3f3f3}td:first-child,td:last-child{text-align:left}tr.not td{color:#777}"
    "figure{margin:12px 0}img{max-width:100%}figcaption{font-size:13px;color:#555}"
    ".verdict{padding:8px;border-radius:4px}.ok{background:#e8f4e8}.bad{background:#fbe9e7}code{font-size:12px}</style>\n";

// The declared camera sigma of a trace (sidecar noise_sigma), else the defaults; a channel declared
// 0 (a noise-free camera) is divided by the default's (defaults::noise_yardstick).
Vec6d declared_sigma(const PoseTrace& t) {
  return defaults::noise_yardstick(t.metadata.noise_sigma.value_or(defaults::camera_noise_sigma()));
}

PoseSeries series(const std::string& name, const PoseTrace& t) { return {name, t.time, t.measured}; }

// The pose traces of experiment 1 and their residuals, as HTML figures.
std::string trace_figures(const ReportTraces& t, const fs::path& dir, const Vec6d& sigma) {
  const PoseTrace &measured = t.measured, &before = t.before, &after = t.after;
  // The twins expose every frame; the measured rows are paired with theirs by time (a frame that
  // was no measurement has no row: docs/traces.md).
  const std::vector<std::size_t> at = indices_on_grid(measured.time, after.time);
  const std::vector<std::size_t> at_before = indices_on_grid(measured.time, before.time);
  ResidualSeries r;
  r.sigma = sigma;
  PoseSeries miss_before{"measured - twin at the priors", {}, {}}, miss_after{"measured - twin identified", {}, {}};
  for (std::size_t j = 0; j < measured.size(); ++j) {
    if (at[j] == kNotOnGrid || at_before[j] == kNotOnGrid) continue;
    r.time.push_back(measured.time[j]);
    r.residual.push_back(pose_difference(measured.measured[j], after.measured[at[j]]));
    miss_before.time.push_back(measured.time[j]);
    miss_before.pose.push_back(pose_difference(measured.measured[j], before.measured[at_before[j]]));
    miss_after.time.push_back(measured.time[j]);
    miss_after.pose.push_back(r.residual.back());
  }
  const std::string p = (dir / "poses.png").string(), res = (dir / "residuals.png").string(),
                    hist = (dir / "histogram.png").string(), miss = (dir / "miss.png").string();
  plot_pose_series({series("measured", measured), series("twin at the priors", before), series("twin identified", after)}, p,
                   "Experiment 1: measured and twin poses before and after identification");
  plot_pose_series({miss_before, miss_after}, miss, "Experiment 1: measured - twin, before and after identification");
  plot_residuals(r, res, "Experiment 1: measured - identified twin, with the declared camera noise");
  plot_residual_histogram(r, hist);
  return "<section id=\"traces\"><h2>Pose traces and residuals (Figs. 12-13 form)</h2>" +
         html_figure(p, "pose components, experiment 1") +
         html_figure(miss, "measured - twin before (priors) and after identification, experiment 1") +
         html_figure(res, "residual over time, +-sigma of the declared camera noise") +
         html_figure(hist, "residual / sigma against the camera noise's normal density") + "</section>\n";
}

// What the data determine, and the excitation, as HTML figures.
std::string diagnostic_figures(const IdentificationReport& r, const ReportTraces& t, const fs::path& dir) {
  std::ostringstream h;
  h << "<section id=\"identifiability\"><h2>What the data determine</h2>";
  if (!r.correlation.parameters.empty()) {
    const std::string c = (dir / "correlation.png").string();
    plot_correlation(r.correlation.parameters, r.correlation.matrix, c);
    h << html_figure(c, "correlation of the fitted parameters (honest covariance)");
  }
  if (!r.singular_values.empty()) {
    const std::string s = (dir / "singular.png").string();
    plot_singular_values(r.singular_values, r.rank_tolerance, s);
    h << html_figure(s, "singular values of the weighted Jacobian (fit coordinates) and the rank cut");
  }
  const std::string exc = (dir / "excitation.png").string();
  plot_pose_series({t.reference}, exc, "Excitation trajectory");
  h << "</section>\n<section id=\"excitation\"><h2>Excitation (Fig. 11 form)</h2><p>Observability index (eq. 39) at the priors: "
    << html_number(t.observability_index) << "; <code>" << html_escape(r.inputs.reference.path) << "</code></p>"
    << html_figure(exc, "the excitation trajectory") << "</section>\n";
  return h.str();
}

}  // namespace

// Said under the RMS table where a declared 0 was replaced by the default (declared_sigma).
std::string noise_note(const PoseTrace& t) {
  if (!t.metadata.noise_sigma) return "";
  const std::string note = defaults::noise_yardstick_note(*t.metadata.noise_sigma, "the measured trace");
  return note.empty() ? "" : "<p class=\"note\">" + html_escape(note) + "</p>\n";
}

std::string identification_report_html(const ReportInput& in, const ReportTraces& traces) {
  const Vec6d sigma = declared_sigma(traces.measured);
  std::string body;
  {
    const TemporaryDirectory tmp(in.identification_file, "the report's figures");
    const fs::path dir = tmp.path();
    body = trace_figures(traces, dir, sigma) + diagnostic_figures(in.identification, traces, dir) +
           report_torques(traces.torque, dir.string()) + tracking_section(in.tracking, dir.string()) +
           loads_section(in.loads, dir.string());
  }
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>vcloe identification report</title>\n" << kStyle
    << "</head><body>\n<h1>Identification report</h1>\n<p>" << html_escape(fs::absolute(in.identification_file).string())
    << "</p>\n" << report_summary(in.identification) << report_parameter_table(in.identification)
    << report_rms_table(in.identification, sigma) << noise_note(traces.measured) << body << report_validation(in.validation) << report_calibration(in.calibration_file, in.calibration) << kImageCheck
    << "</body></html>\n";
  return h.str();
}

void plan_report(IoPlan& plan, const std::string& path, const std::string& role) {
  if (path.empty()) return;
  const std::string ext = file_extension(path);
  if (ext != ".html" && ext != ".htm")
    fail(path, "expected an HTML file name (.html or .htm), got '" + fs::path(path).extension().string() + "'");
  plan_gnuplot(plan.output(path, role), path, role);
}

}  // namespace vcloe::report
