#include "vcloe/calib/static_trace.hpp"

#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

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
  m["csv_sha256"] = sha256(csv.str());
  m["camera_hz"] = t.info.camera_hz, m["move_s"] = t.info.move_s, m["settle_s"] = t.info.settle_s;
  m["measure_s"] = t.info.measure_s, m["seed"] = t.info.seed;
  m["noise_sigma"] = t.info.noise_sigma ? vec(*t.info.noise_sigma) : nlohmann::json(nullptr);
  write_file_atomically(sidecar_path(path), m.dump(2) + "\n", force);
  write_file_atomically(path, csv.str(), force);
}

namespace {

std::vector<double> parse_row(const std::string& line, const std::string& where, std::size_t columns) {
  std::vector<double> row;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) {
    std::size_t used = 0;
    double v = NAN;
    try {
      v = std::stod(cell, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != cell.size())
      fail(where + ":" + std::to_string(row.size() + 1), "expected a number, got '" + cell.substr(0, 40) + "'");
    row.push_back(v);
  }
  if (row.size() != columns)
    fail(where, "expected " + std::to_string(columns) + " columns, got " + std::to_string(row.size()));
  return row;
}

StaticTraceInfo read_info(const std::string& path, const std::string& csv_text) {
  const std::string meta = sidecar_path(path);
  const nlohmann::json doc = read_json_file(meta);
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

}  // namespace

StaticTrace read_static_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  StaticTrace t;
  t.info = read_info(path, text.str());
  std::istringstream lines(text.str());
  std::string line;
  if (!std::getline(lines, line) || line != header()) fail(path + ":1", "expected the header '" + header() + "'");
  for (int n = 2; std::getline(lines, line); ++n) {
    const std::string where = path + ":" + std::to_string(n);
    const std::vector<double> row = parse_row(line, where, 27);
    StaticPose p;
    t.command.push_back(cells(row, 1));
    p.joints = cells(row, 7), p.measured = cells(row, 13), p.scatter = cells(row, 19);
    if (!(row[25] >= 1 && row[25] <= 1e7 && row[25] == std::floor(row[25])))
      fail(where, "column 'frames': expected a whole number >= 1");
    p.frames = static_cast<int>(row[25]);
    if (!t.command.back().allFinite() || !p.joints.allFinite() || !p.measured.allFinite() || !p.scatter.allFinite())
      fail(where, "joint angles, poses and scatter must be finite");
    t.poses.push_back(p);
    t.settled_s.push_back(row[26]);
  }
  if (t.poses.empty()) fail(path, "has no poses");
  return t;
}

}  // namespace vcloe::calib
