// Specification of the report's tracking and load sections (vcloe/report/tracking.hpp): the RMS
// of measured - reference per channel in the table is the RMS of the trace's own columns, the
// ratios servo alone / pre-corrected and / learnt are those RMS divided, the camera noise the
// sidecars declare stands beside them, a run not given is a column left out, and the load table
// holds each drive's RMS torque and each joint's peak force of the prediction.
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <sstream>

#include "../test_support.hpp"
#include "vcloe/report/tracking.hpp"

using namespace vcloe;

// This file's helpers in its own namespace: the test program is one translation unit per batch.
namespace test_tracking {

namespace {

// A run of 2 s at 100 Hz on a moving reference, its measured pose off by `scale` times an error
// that differs per channel (positions m, angles rad).
report::TrackingRun run(report::RunKind kind, double scale, const std::string& file) {
  report::TrackingRun r{kind, file, kind == report::RunKind::servo_alone ? "the visual servo alone" : "pre-corrected", {}};
  for (int k = 0; k <= 200; ++k) {
    const double t = 0.01 * k;
    Vec6d ref, err;
    ref << 0.01 * std::sin(t), 0.02 * std::cos(t), 0.3, 0.05 * std::sin(2 * t), 0, 0.03 * t;
    err << 1e-4 * std::sin(7 * t), -2e-4, 5e-5 * std::cos(3 * t), 1e-3 * std::sin(5 * t), 2e-3 * t, -5e-4;
    r.trace.time.push_back(t);
    r.trace.reference.push_back(ref);
    r.trace.measured.push_back(ref + scale * err);
  }
  Vec6d sigma;
  sigma << 2e-5, 2e-5, 2e-5, 5e-5, 5e-5, 5e-5;
  r.trace.metadata.noise_sigma = sigma;
  return r;
}

// The RMS of measured - reference of channel c, from the trace's columns.
double rms_of(const report::TrackingRun& r, int c) {
  double sum = 0;
  for (std::size_t j = 0; j < r.trace.size(); ++j) sum += std::pow(r.trace.measured[j](c) - r.trace.reference[j](c), 2);
  return std::sqrt(sum / static_cast<double>(r.trace.size()));
}

std::string shown(double v, int digits) {
  std::ostringstream s;
  s << std::setprecision(digits) << v;
  return s.str();
}

// The text of the element that starts with `start` up to `end`.
std::string part(const std::string& html, const std::string& start, const std::string& end) {
  const std::size_t at = html.find(start);
  if (at == std::string::npos) return "";
  return html.substr(at, html.find(end, at) - at);
}

}  // namespace

TEST(Tracking, TheTableHoldsEachRunsRmsTheRatiosAndTheCameraNoise) {
  const auto dir = test::fresh_directory("vcloe-report-tracking", "table");
  const std::vector<report::TrackingRun> runs = {run(report::RunKind::servo_alone, 1, "servo.csv"),
                                                 run(report::RunKind::precorrected, 0.1, "pre.csv"),
                                                 run(report::RunKind::learnt, 0.02, "learnt.csv")};
  const std::string html = report::tracking_section(runs, dir.string());
  const std::string head = part(html, "<table id=\"tracking-rms\">", "</thead>");
  EXPECT_NE(head.find("<th>camera &sigma;</th><th>RMS servo alone</th><th>RMS pre-corrected</th><th>RMS learnt</th>"
                      "<th>servo alone / pre-corrected</th><th>servo alone / learnt</th>"),
            std::string::npos) << head;
  for (int c = 0; c < 6; ++c) {
    const std::string row = part(html, "<tr id=\"tracking-" + std::to_string(c) + "\">", "</tr>");
    ASSERT_FALSE(row.empty()) << c;
    EXPECT_NE(row.find("<td>" + shown(c < 3 ? 0.02 : 0.05, 3) + "</td>"), std::string::npos) << row;  // sigma, mm / mrad
    for (const report::TrackingRun& r : runs)  // mm and mrad, then in units of the declared sigma
      EXPECT_NE(row.find("<td>" + shown(rms_of(r, c) * 1e3, 4) + " <small>(" +
                         shown(rms_of(r, c) / (c < 3 ? 2e-5 : 5e-5), 3) + " &sigma;)</small></td>"),
                std::string::npos) << r.file << " channel " << c << ": " << row;
    EXPECT_NE(row.find("<td>" + shown(rms_of(runs[0], c) / rms_of(runs[1], c), 3) + "&times;</td>"), std::string::npos) << row;
    EXPECT_NE(row.find("<td>" + shown(rms_of(runs[0], c) / rms_of(runs[2], c), 3) + "&times;</td>"), std::string::npos) << row;
  }
  // Per axis over the three of a kind, as the measured tables of docs/control.md.
  const double positions = std::sqrt((std::pow(rms_of(runs[1], 0), 2) + std::pow(rms_of(runs[1], 1), 2) +
                                      std::pow(rms_of(runs[1], 2), 2)) / 3);
  EXPECT_NE(part(html, "<tr id=\"tracking-positions\">", "</tr>").find("<td>" + shown(positions * 1e3, 4) + " <small>"),
            std::string::npos);
  EXPECT_NE(html.find("alt=\"measured - reference over time, positions (mm)\""), std::string::npos);
  EXPECT_NE(html.find("alt=\"measured - reference over time, angles (mrad)\""), std::string::npos);
}

TEST(Tracking, ARunNotGivenIsAColumnLeftOut) {
  const auto dir = test::fresh_directory("vcloe-report-tracking", "missing");
  const std::string html = report::tracking_section(
      {run(report::RunKind::servo_alone, 1, "servo.csv"), run(report::RunKind::learnt, 0.02, "learnt.csv")}, dir.string());
  const std::string head = part(html, "<table id=\"tracking-rms\">", "</thead>");
  EXPECT_EQ(head.find("pre-corrected"), std::string::npos) << head;
  EXPECT_NE(head.find("<th>RMS servo alone</th><th>RMS learnt</th><th>servo alone / learnt</th>"), std::string::npos) << head;
  const std::string row = part(html, "<tr id=\"tracking-3\">", "</tr>");
  int cells = 0;
  for (std::size_t at = row.find("<td>"); at != std::string::npos; at = row.find("<td>", at + 1)) ++cells;
  EXPECT_EQ(cells, 5);  // channel, sigma, two RMS, one ratio
  // Without the servo alone: no ratio at all; without any run: no section.
  const std::string alone = report::tracking_section({run(report::RunKind::precorrected, 0.1, "pre.csv")}, dir.string());
  EXPECT_EQ(part(alone, "<table id=\"tracking-rms\">", "</thead>").find(" / "), std::string::npos);
  EXPECT_EQ(report::tracking_section({}, dir.string()), "");
}

TEST(Tracking, RunsDeclaringAnotherCameraNoiseEachShowTheirOwn) {
  const auto dir = test::fresh_directory("vcloe-report-tracking", "sigma");
  report::TrackingRun other = run(report::RunKind::precorrected, 0.1, "pre.csv");
  other.trace.metadata.noise_sigma = std::nullopt;  // a live camera's run declares none
  const std::string html =
      report::tracking_section({run(report::RunKind::servo_alone, 1, "servo.csv"), other}, dir.string());
  EXPECT_NE(part(html, "<table id=\"tracking-rms\">", "</thead>")
                .find("<th>camera &sigma;, servo alone</th><th>camera &sigma;, pre-corrected</th>"),
            std::string::npos);
  const std::string row = part(html, "<tr id=\"tracking-0\">", "</tr>");
  EXPECT_NE(row.find("<td>0.02</td><td>&mdash;</td>"), std::string::npos) << row;
  EXPECT_NE(row.find("<td>" + shown(rms_of(other, 0) * 1e3, 4) + "</td>"), std::string::npos) << row;  // no sigma: no units of it
}

TEST(Loads, TheTablesHoldEachDrivesRmsTorqueAndEachJointsPeakForce) {
  const auto dir = test::fresh_directory("vcloe-report-tracking", "loads");
  report::PredictedLoads l;
  l.file = "p.csv", l.model = "/m/identified.yaml", l.band = true;
  for (int n = 0; n <= 100; ++n) {
    const double t = 0.01 * n;
    Vec6d tau, sigma;
    for (int i = 0; i < 6; ++i) tau(i) = (i + 1) * std::sin(3 * t + i), sigma(i) = 0.01 * (i + 1);
    l.torque.time.push_back(t);
    l.torque.identified.push_back(tau);
    l.torque.sigma.push_back(sigma);
    report::JointForces f = report::JointForces::Constant(1.0);
    f.segment<3>(9 * 2 + 3 * 1) << 3 * t, 4 * t, 0;  // leg 3, crank tip: |f| = 5 t, peak 5 N at t = 1
    l.force.push_back(f);
    l.force_sigma.push_back(report::JointForces::Constant(0.25));
  }
  const std::string html = report::loads_section(l, dir.string());
  for (int i = 0; i < 6; ++i) {
    double sum = 0;
    for (const Vec6d& tau : l.torque.identified) sum += tau(i) * tau(i);
    const std::string row = part(part(html, "<table id=\"loads-torques\">", "</table>"), "<tr><td>" + std::to_string(i + 1) + "</td>", "</tr>");
    EXPECT_EQ(row.rfind("<tr><td>" + std::to_string(i + 1) + "</td><td>" + shown(std::sqrt(sum / 101), 4) + "</td>", 0), 0u) << row;
    EXPECT_NE(row.find("<td>" + shown(0.01 * (i + 1), 3) + "</td>"), std::string::npos) << row;  // the largest sigma
  }
  const std::string leg3 = part(part(html, "<table id=\"loads-forces\">", "</table>"), "<tr><td>3</td>", "</tr>");
  double sum = 0;
  for (int n = 0; n <= 100; ++n) sum += std::pow(5 * 0.01 * n, 2);
  EXPECT_NE(leg3.find("<td>" + shown(std::sqrt(sum / 101), 4) + "</td><td>5</td>"), std::string::npos) << leg3;
  EXPECT_NE(html.find("with the &sigma; band"), std::string::npos);
  EXPECT_EQ(report::loads_section(std::nullopt, dir.string()), "");
}

}  // namespace test_tracking
