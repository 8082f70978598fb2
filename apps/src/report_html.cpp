// The identification report as one self-contained HTML file (report_html.hpp): the inputs
// checked, the figures drawn into a private temporary directory and embedded, the page put
// together from the sections (report_sections.hpp).
#include "report_html.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "vcloe/rig/setup.hpp"
#include "pose_plot.hpp"
#include "report_figures.hpp"
#include "report_sections.hpp"
#include "vcloe/core/defaults.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/excitation/optimizer.hpp"

namespace vcloe::app {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;


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

// The declared camera sigma of a trace (sidecar noise_sigma), else the defaults.
Vec6d declared_sigma(const PoseTrace& t) { return t.metadata.noise_sigma.value_or(defaults::camera_noise_sigma()); }

PoseSeries series(const std::string& name, const PoseTrace& t) { return {name, t.time, t.measured}; }

double observability_index(const rig::ExperimentSetup& s) {
  const excitation::ExcitationProblem p;
  Eigen::MatrixXd H;
  if (!excitation::stack_regressor(s.model, s.trajectory, p.regressor_period, H)) return 0;
  return excitation::evaluate_criteria(H, excitation::excited_columns(H, p.qr_eps).kept, p.scale_columns).observability_index;
}

// The time plots of experiment 1, the diagnostics and the excitation, as HTML figures.
std::string figures(const ReportInput& in, const ReportFiles& files, const fs::path& dir, Vec6d& sigma) {
  const rig::ExperimentSetup setup = rig::load_setup(files.robot, files.experiment, files.reference);
  const PoseTrace measured = read_trace(files.measured);
  const PoseTrace before = rig::twin_trace(setup, setup.lambda), after = rig::twin_trace(setup, sim::load_robot(files.model).lambda);
  sigma = declared_sigma(measured);
  ResidualSeries r;
  r.sigma = sigma;
  for (std::size_t j = 0; j < std::min(measured.size(), after.size()); ++j) {
    r.time.push_back(measured.time[j]);
    r.residual.push_back(measured.measured[j] - after.measured[j]);
  }
  std::ostringstream h;
  const std::string p = (dir / "poses.png").string(), res = (dir / "residuals.png").string(),
                    hist = (dir / "histogram.png").string(), exc = (dir / "excitation.png").string();
  plot_pose_series({series("measured", measured), series("twin at the priors", before), series("twin identified", after)}, p,
                   "Experiment 1: measured and twin poses before and after identification", true);
  PoseSeries miss_before{"measured - twin at the priors", {}, {}}, miss_after{"measured - twin identified", {}, {}};
  for (std::size_t j = 0; j < std::min({measured.size(), before.size(), after.size()}); ++j) {
    miss_before.time.push_back(measured.time[j]);
    miss_before.pose.push_back(measured.measured[j] - before.measured[j]);
    miss_after.time.push_back(measured.time[j]);
    miss_after.pose.push_back(measured.measured[j] - after.measured[j]);
  }
  const std::string miss = (dir / "miss.png").string();
  plot_pose_series({miss_before, miss_after}, miss, "Experiment 1: measured - twin, before and after identification", true);
  plot_residuals(r, res, "Experiment 1: measured - identified twin, with the declared camera noise");
  plot_residual_histogram(r, hist);
  h << "<section id=\"traces\"><h2>Pose traces and residuals (Figs. 12-13 form)</h2>" << html_figure(p, "pose components, experiment 1")
    << html_figure(miss, "measured - twin before (priors) and after identification, experiment 1")
    << html_figure(res, "residual over time, +-sigma of the declared camera noise")
    << html_figure(hist, "residual / sigma against the camera noise's normal density") << "</section>\n";
  h << "<section id=\"identifiability\"><h2>What the data determine</h2>";
  const json& corr = in.identification.value("correlation", json::object());
  if (corr.contains("parameters") && !corr["parameters"].empty()) {
    const std::string c = (dir / "correlation.png").string();
    plot_correlation(corr["parameters"].get<std::vector<std::string>>(), corr["matrix"].get<std::vector<std::vector<double>>>(), c);
    h << html_figure(c, "correlation of the fitted parameters (honest covariance)");
  }
  const auto sv = need(in.identification, "singular_values", in.identification_file).get<std::vector<double>>();
  if (!sv.empty()) {
    const std::string s = (dir / "singular.png").string();
    plot_singular_values(sv, in.identification.value("rank_tolerance", 1e-7), s);
    h << html_figure(s, "singular values of the weighted Jacobian (fit coordinates) and the rank cut");
  }
  PoseSeries reference{"reference", {}, {}};
  for (double t = 0; t <= setup.trajectory.duration + 1e-9; t += 0.02) {
    reference.time.push_back(t);
    reference.pose.push_back(setup.trajectory.pose(t));
  }
  plot_pose_series({reference}, exc, "Excitation trajectory", true);
  h << "</section>\n<section id=\"excitation\"><h2>Excitation (Fig. 11 form)</h2><p>Observability index (eq. 39) at the priors: "
    << html_number(observability_index(setup)) << "; <code>" << html_escape(files.reference) << "</code></p>"
    << html_figure(exc, "the excitation trajectory") << "</section>\n";
  return h.str();
}

}  // namespace

ReportInput load_report_input(const std::string& identification_file, const std::string& validation_file) {
  ReportInput in;
  in.identification_file = identification_file;
  in.identification = read_json_file(identification_file);
  for (const char* key : {"parameters", "inputs", "adequacy", "before_rms_all", "after_rms_all", "singular_values"})
    need(in.identification, key, identification_file);
  const json& parameters = in.identification["parameters"];
  if (!parameters.is_array() || parameters.size() != 67)
    fail(identification_file, "parameters: expected 67 entries, got " + parameters.dump().substr(0, 40));
  for (std::size_t k = 0; k < parameters.size(); ++k) {  // "nan" as a string showed as an identified infinity
    const json& p = parameters[k];
    const std::string at = "parameters[" + std::to_string(k) + "]";
    if (!p.is_object() || !p.contains("name") || !p["name"].is_string())
      fail(identification_file, at + ": expected an object with a string 'name'");
    for (const char* key : {"prior", "value"})
      if (!p.contains(key) || !p[key].is_number())
        fail(identification_file, at + "." + key + ": expected a number, got " + (p.contains(key) ? p[key].dump() : "nothing"));
  }
  if (!validation_file.empty()) {
    in.validation_file = validation_file;
    in.validation = read_json_file(validation_file);
    need(*in.validation, "trajectories", validation_file);
    need(*in.validation, "worst_ratio", validation_file);
  }
  return in;
}

std::string identification_report_html(const ReportInput& in) {
  const ReportFiles files = report_files(in);
  const fs::path dir = fs::temp_directory_path() / ("vcloe-report-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string body;
  Vec6d sigma;
  try {
    body = figures(in, files, dir, sigma);
  } catch (...) {
    fs::remove_all(dir);
    throw;
  }
  fs::remove_all(dir);
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>vcloe identification report</title>\n" << kStyle
    << "</head><body>\n<h1>Identification report</h1>\n<p>" << html_escape(fs::absolute(in.identification_file).string())
    << "</p>\n" << report_summary(in, files) << report_parameter_table(in) << report_rms_table(in, sigma) << body
    << report_validation(in) << kImageCheck << "</body></html>\n";
  return h.str();
}

void check_report_path(const std::string& path, bool force, const std::vector<std::string>& inputs) {
  const std::string ext = fs::path(path).extension().string();
  if (ext != ".html" && ext != ".htm") fail(path, "expected an HTML file name (.html or .htm), got '" + ext + "'");
  check_output_path(path, force, inputs);
}

void write_identification_report(const std::string& identification_file, const std::string& validation_file,
                                 const std::string& out, bool force) {
  check_report_path(out, force, {identification_file, validation_file});
  const ReportInput in = load_report_input(identification_file, validation_file);
  write_file_atomically(out, identification_report_html(in), force);
}

}  // namespace vcloe::app
