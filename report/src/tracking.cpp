// The report's tracking and load sections (tracking.hpp).
#include "vcloe/report/tracking.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "figures.hpp"
#include "sections.hpp"
#include "vcloe/core/rotation_difference.hpp"
#include "vcloe/core/trace_compare.hpp"
#include "vcloe/report/pose_plot.hpp"

namespace vcloe::report {

namespace {

const char* const kChannel[6] = {"x", "y", "z", "&alpha;", "&beta;", "&gamma;"};

// Over the three channels of a kind: sqrt of the mean of their squares ("per axis over the three").
double over_three(const Vec6d& v, int first) { return std::sqrt(v.segment<3>(first).squaredNorm() / 3); }

std::string stem(const std::string& file) { return std::filesystem::path(file).stem().string(); }

// The camera σ a run's sidecar declares (m, rad), if it does.
std::optional<Vec6d> declared(const TrackingRun& r) { return r.trace.metadata.noise_sigma; }

// A table cell of the RMS in mm or mrad and, when σ is declared, in units of it.
std::string rms_cell(double rms, std::optional<double> sigma) {
  std::string c = "<td>" + html_number(rms * 1e3, 4);
  if (sigma && *sigma > 0) c += " <small>(" + html_number(rms / *sigma, 3) + " &sigma;)</small>";
  return c + "</td>";
}

std::string ratio_cell(double num, double den) {
  return "<td>" + (den > 0 ? html_number(num / den, 3) + "&times;" : std::string("&infin;")) + "</td>";
}

// The runs: what each was, the file, what drove it, its length and the camera noise it declares.
std::string runs_table(const std::vector<TrackingRun>& runs) {
  std::ostringstream h;
  h << "<table id=\"tracking-runs\"><thead><tr><th>run</th><th>trace</th><th>driven with</th><th>samples</th>"
       "<th>duration (s)</th><th>camera &sigma; declared (mm / mrad)</th></tr></thead><tbody>\n";
  for (const TrackingRun& r : runs) {
    const std::optional<Vec6d> s = declared(r);
    h << "<tr><td>" << run_kind_name(r.kind) << "</td><td><code>" << html_escape(r.file) << "</code></td><td>"
      << html_escape(r.driven_with) << "</td><td>" << r.trace.size() << "</td><td>"
      << html_number(r.trace.time.back() - r.trace.time.front(), 4) << "</td><td>"
      << (s ? html_number(over_three(*s, 0) * 1e3, 3) + " / " + html_number(over_three(*s, 3) * 1e3, 3) : "not declared")
      << (r.trace.metadata.stopped ? " <b>stopped early: " + html_escape(r.trace.metadata.stopped->reason) + "</b>" : "")
      << "</td></tr>\n";
  }
  h << "</tbody></table>\n";
  return h.str();
}

const TrackingRun* run_of(const std::vector<TrackingRun>& runs, RunKind kind) {
  for (const TrackingRun& r : runs)
    if (r.kind == kind) return &r;
  return nullptr;
}

// One row of the RMS table: a channel (c < 6) or a kind over its three (c = 6: positions, 7: angles).
std::string rms_row(const std::vector<TrackingRun>& runs, const std::vector<TrackingRms>& rms, int c, bool one_sigma) {
  auto value = [c](const Vec6d& v, double pos, double ang) { return c < 6 ? v(c) : c == 6 ? pos : ang; };
  auto sigma_of = [&](const TrackingRun& r) -> std::optional<double> {
    const std::optional<Vec6d> s = declared(r);
    if (!s) return std::nullopt;
    return value(*s, over_three(*s, 0), over_three(*s, 3));
  };
  std::ostringstream h;
  h << "<tr id=\"tracking-" << (c < 6 ? std::to_string(c) : c == 6 ? "positions" : "angles") << "\"><td>"
    << (c < 6 ? std::string(kChannel[c]) + (c < 3 ? " (mm)" : " (mrad)")
              : c == 6 ? "positions, per axis over x y z (mm)" : "angles, per axis over &alpha; &beta; &gamma; (mrad)")
    << "</td>";
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const std::optional<double> s = sigma_of(runs[k]);
    if (!one_sigma || k == 0) h << "<td>" << (s ? html_number(*s * 1e3, 3) : std::string("&mdash;")) << "</td>";
  }
  for (std::size_t k = 0; k < runs.size(); ++k)
    h << rms_cell(value(rms[k].channel, rms[k].positions, rms[k].angles), sigma_of(runs[k]));
  const TrackingRun* servo = run_of(runs, RunKind::servo_alone);
  for (const RunKind other : {RunKind::precorrected, RunKind::learnt})
    if (servo && run_of(runs, other)) {
      const TrackingRms &a = rms[static_cast<std::size_t>(servo - runs.data())],
                        &b = rms[static_cast<std::size_t>(run_of(runs, other) - runs.data())];
      h << ratio_cell(value(a.channel, a.positions, a.angles), value(b.channel, b.positions, b.angles));
    }
  return h.str() + "</tr>\n";
}

// The RMS per channel beside the camera noise (one column when every run declares the same σ).
std::string rms_table(const std::vector<TrackingRun>& runs) {
  std::vector<TrackingRms> rms;
  for (const TrackingRun& r : runs) rms.push_back(tracking_rms(r));
  bool one_sigma = true;
  for (const TrackingRun& r : runs) one_sigma = one_sigma && declared(r) == declared(runs.front());
  std::ostringstream h;
  h << "<table id=\"tracking-rms\"><thead><tr><th>channel</th>";
  for (std::size_t k = 0; k < runs.size(); ++k)
    if (!one_sigma || k == 0)
      h << "<th>camera &sigma;" << (one_sigma ? std::string() : std::string(", ") + run_kind_name(runs[k].kind)) << "</th>";
  for (const TrackingRun& r : runs) h << "<th>RMS " << run_kind_name(r.kind) << "</th>";
  const bool servo = run_of(runs, RunKind::servo_alone) != nullptr;
  if (servo && run_of(runs, RunKind::precorrected)) h << "<th>servo alone / pre-corrected</th>";
  if (servo && run_of(runs, RunKind::learnt)) h << "<th>servo alone / learnt</th>";
  h << "</tr></thead><tbody>\n";
  for (int c : {0, 1, 2, 6, 3, 4, 5, 7}) h << rms_row(runs, rms, c, one_sigma);
  h << "</tbody></table>\n";
  return h.str();
}

}  // namespace

const char* run_kind_name(RunKind kind) {
  switch (kind) {
    case RunKind::servo_alone: return "servo alone";
    case RunKind::precorrected: return "pre-corrected";
    case RunKind::learnt: return "learnt";
  }
  return "";
}

TrackingRms tracking_rms(const TrackingRun& run) {
  const TraceDifference d = compare_traces(run.trace, run.trace, TraceColumns::Measured, TraceColumns::Reference, run.file, run.file);
  TrackingRms r;
  for (int c = 0; c < 3; ++c) {
    r.channel(c) = d.rms_mm[static_cast<std::size_t>(c)] * 1e-3;
    r.channel(3 + c) = d.rms_mrad[static_cast<std::size_t>(c)] * 1e-3;
  }
  r.positions = over_three(r.channel, 0), r.angles = over_three(r.channel, 3);
  return r;
}

std::string tracking_section(const std::vector<TrackingRun>& runs, const std::string& dir) {
  if (runs.empty()) return "";
  std::vector<PoseSeries> error;
  for (const TrackingRun& r : runs) {
    PoseSeries e{std::string(run_kind_name(r.kind)) + ": " + stem(r.file), r.trace.time, {}};
    for (std::size_t j = 0; j < r.trace.size(); ++j) e.pose.push_back(pose_difference(r.trace.measured[j], r.trace.reference[j]));
    error.push_back(std::move(e));
  }
  const std::string positions = dir + "/tracking-positions.png", angles = dir + "/tracking-angles.png";
  plot_pose_series(error, positions, "Tracking: measured - reference, positions", PoseChannels::positions);
  plot_pose_series(error, angles, "Tracking: measured - reference, angles", PoseChannels::angles);
  return "<section id=\"tracking\"><h2>Tracking (measured &minus; reference)</h2><p>Runs of one reference (checked: the "
         "SHA-256 their sidecars record), measured pose &minus; reference with the angles compared as rotations; RMS over "
         "each run, in mm and mrad and in units of the camera noise &sigma; the run's sidecar declares.</p>\n" +
         runs_table(runs) + rms_table(runs) + html_figure(positions, "measured - reference over time, positions (mm)") +
         html_figure(angles, "measured - reference over time, angles (mrad)") + "</section>\n";
}

}  // namespace vcloe::report
