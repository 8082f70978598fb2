#include "vcloe/calib/static_trace.hpp"
#include "vcloe/core/input_file.hpp"
#include "vcloe/core/required_sidecar.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "vcloe/core/csv_table.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/core/json_node.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe::calib {

namespace {

const char* kAxes[] = {"x", "y", "z", "alpha", "beta", "gamma"};

std::string header() {
  std::string h = "pose";
  for (int i = 1; i <= 6; ++i) h += ",cmd_" + std::to_string(i);
  for (int i = 1; i <= 6; ++i) h += ",enc_" + std::to_string(i);
  for (const char* a : kAxes) h += std::string(",") + a;
  for (const char* a : kAxes) h += std::string(",sd_") + a;
  return h + ",frames,settled_s";
}

nlohmann::json vec(const Vec6d& v) { return nlohmann::json::array({v(0), v(1), v(2), v(3), v(4), v(5)}); }

Vec6d cells(const std::vector<double>& row, std::size_t first) {
  Vec6d v;
  for (int c = 0; c < 6; ++c) v(c) = row[first + static_cast<std::size_t>(c)];
  return v;
}

}  // namespace

void write_static_trace(const std::string& path, const StaticTrace& t, bool force) {
  std::ostringstream csv;
  csv << header() << "\n" << std::setprecision(17);
  for (std::size_t k = 0; k < t.poses.size(); ++k) {
    const StaticPose& p = t.poses[k];
    csv << k + 1;
    for (int c = 0; c < 6; ++c) csv << "," << t.command[k](c);
    for (const Vec6d* v : {&p.joints, &p.measured, &p.scatter})
      for (int c = 0; c < 6; ++c) csv << "," << (*v)(c);
    csv << "," << p.frames << "," << (k < t.settled_s.size() && std::isfinite(t.settled_s[k]) ? t.settled_s[k] : NAN) << "\n";
  }
  nlohmann::json m;
  m["format"] = kStaticTraceFormat, m["source"] = t.info.source, m["software"] = t.info.software;
  m["robot"] = t.info.robot ? to_json(*t.info.robot) : nlohmann::json(nullptr);
  m["truth"] = t.info.truth ? to_json(*t.info.truth) : nlohmann::json(nullptr);
  m["camera_hz"] = t.info.camera_hz, m["move_s"] = t.info.move_s, m["settle_s"] = t.info.settle_s;
  m["measure_s"] = t.info.measure_s, m["seed"] = t.info.seed;
  m["noise_sigma"] = t.info.noise_sigma ? vec(*t.info.noise_sigma) : nlohmann::json(nullptr);
  // One group, the sidecar (holding the CSV's hash) renamed first: both or neither without --force.
  write_files_atomically(csv_with_sidecar(path, csv.str(), m), force);
}

namespace {

StaticTraceInfo read_info(const std::string& path, const std::string& csv_text, SidecarSeal seal) {
  const std::string meta = sidecar_path(path);
  const nlohmann::json doc = read_required_sidecar(path, kStaticTraceSidecar, seal);
  const JsonNode root = JsonNode::root(doc, meta, "(written by vcloe calibrate kinematics --measure)");
  if (root.need("format").string() != kStaticTraceFormat)
    root.need("format").refuse(std::string("\"") + kStaticTraceFormat + "\"");
  if (root.need("csv_sha256").sha256() != sha256(csv_text))
    fail(meta, "csv_sha256 is not the SHA-256 of " + path + ": the two files do not belong together");
  StaticTraceInfo i;
  i.source = root.need("source").one_of({"virtual", "rig"});
  i.software = root.need("software").string();
  if (!root.present("robot").is_null()) i.robot = root.present("robot").file_record();
  if (!root.present("truth").is_null()) i.truth = root.present("truth").file_record();
  i.camera_hz = root.need("camera_hz").positive();
  i.move_s = root.need("move_s").non_negative(), i.settle_s = root.need("settle_s").non_negative();
  i.measure_s = root.need("measure_s").non_negative();
  i.seed = root.need("seed").unsigned_integer();
  if (!root.present("noise_sigma").is_null()) {
    const std::array<double, 6> s = root.present("noise_sigma").fixed<6>(true);
    i.noise_sigma = Vec6d(s.data());
  }
  return i;
}

// A pose's counts against the sidecar's timing (probe 36, ST08–ST10: 2000 frames in a 0.2 s hold
// at 100 Hz shrank the calibration's sigma 9x): no more frames than the camera exposes in the
// hold (measure_s x camera_hz, and the one at its start), no spread from one frame, and settling
// within the hold (settle_s + measure_s; nan: never settled).
void check_against_timing(const StaticPose& p, double settled_s, const std::string& where, const StaticTraceInfo& i) {
  const double most = std::floor(i.measure_s * i.camera_hz + 1e-9) + 1;
  if (p.frames > most)
    fail(where, "column 'frames': " + std::to_string(p.frames) + " frames, but a hold of " + exact_number(i.measure_s) +
                    " s at " + exact_number(i.camera_hz) + " Hz (the sidecar's measure_s and camera_hz) exposes at most " +
                    exact_number(most));
  if (p.frames == 1 && p.scatter.maxCoeff() > 0)
    fail(where, "columns 'sd_*': a spread of one frame: expected 0 (a standard deviation needs two frames)");
  if (std::isfinite(settled_s) && settled_s > i.settle_s + i.measure_s + 1e-9)
    fail(where, "column 'settled_s': " + exact_number(settled_s) + " s, but the robot was held " +
                    exact_number(i.settle_s + i.measure_s) + " s (the sidecar's settle_s + measure_s): expected at most that, "
                    "or nan (never settled)");
}

// One row of the table into a pose; what no measurement can be is refused at its column.
void append_pose(const std::vector<double>& row, const std::string& where, StaticTrace& t) {
  StaticPose p;
  t.command.push_back(cells(row, 1));
  p.joints = cells(row, 7), p.measured = cells(row, 13), p.scatter = cells(row, 19);
  for (int c = 0; c < 6; ++c)
    if (!(p.scatter(c) >= 0))
      fail(where, std::string("column 'sd_") + kAxes[c] + "': expected a standard deviation (>= 0), got " +
                      exact_number(p.scatter(c)));
  if (!(row[25] >= 1 && row[25] <= 1e7 && row[25] == std::floor(row[25])))
    fail(where, "column 'frames': expected a whole number >= 1");
  if (!(std::isnan(row[26]) || row[26] >= 0)) fail(where, "column 'settled_s': expected a time >= 0 s or nan");
  p.frames = static_cast<int>(row[25]);
  check_against_timing(p, row[26], where, t.info);
  t.poses.push_back(p);
  t.settled_s.push_back(row[26]);
}

// Poses are numbered 1, 2, ... in the order measured (write_static_trace), and no measurement is
// another's: a row given twice (numbered anew or not) counted as one more pose shrank the sigmas.
void check_pose_number(const CsvTable& table, std::size_t r, const std::string& where) {
  const std::vector<double>& row = table.rows[r];
  if (row[0] != static_cast<double>(r + 1))
    fail(where, "column 'pose': expected pose " + std::to_string(r + 1) + " (numbered 1, 2, ... in the order measured), got " +
                    exact_number(row[0]));
  for (std::size_t e = 0; e < r; ++e)
    if (std::equal(row.begin() + 7, row.begin() + 19, table.rows[e].begin() + 7))
      fail(where, "pose " + std::to_string(r + 1) + " repeats the encoders and the measured pose of pose " + std::to_string(e + 1) +
                      " (line " + std::to_string(table.lines[e]) + "): one measurement given twice");
}

}  // namespace

namespace {
// read_static_trace's parse of the CSV read (parse_input_file).
StaticTrace static_trace_of_csv(const std::string& path, const std::string& text, SidecarSeal seal) {
  StaticTrace t;
  t.info = read_info(path, text, seal);
  // The one numeric CSV reader (core/csv_table.hpp); settled_s is nan where a pose never settled.
  const CsvTable table = parse_csv_table(text, path, {header(), {"settled_s"}});
  std::string found;
  for (const std::string& name : table.header) found += (found.empty() ? "" : ",") + name;
  if (found != header()) fail(path + ":1", "expected the header '" + header() + "'");
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const std::string where = path + ":" + std::to_string(table.lines[r]);
    check_pose_number(table, r, where);
    append_pose(table.rows[r], where, t);
  }
  if (t.poses.empty()) fail(path, "has no poses");
  return t;
}
}  // namespace

const SidecarKind kStaticTraceSidecar = {kStaticTraceFormat, "a static-pose trace", "vcloe calibrate kinematics --measure",
                                         true};

StaticTrace read_static_trace(const std::string& path, SidecarSeal seal) {
  return parse_input_file(path, InputKind::Trace,
                          [&](const std::string& text) { return static_trace_of_csv(path, text, seal); });
}

}  // namespace vcloe::calib
