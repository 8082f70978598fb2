// The pre-correction file (precorrection_file.hpp).
#include "vcloe/control/precorrection_file.hpp"
#include "vcloe/core/input_file.hpp"
#include "vcloe/core/required_sidecar.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "vcloe/core/csv_table.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/core/json_node.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe::control {

namespace {

const char* const kHeader = "t,cmd_theta1,cmd_theta2,cmd_theta3,cmd_theta4,cmd_theta5,cmd_theta6";

std::string csv_text(const PrecorrectionFile& f) {
  std::ostringstream o;
  o.precision(17);
  o << kHeader << "\n";
  for (std::size_t k = 0; k < f.command.size(); ++k) {
    o << exact_number(static_cast<double>(k) / f.controller_hz);
    for (int i = 0; i < 6; ++i) o << "," << exact_number(f.command[k](i));
    o << "\n";
  }
  return o.str();
}

// The rows through the one numeric CSV reader (core/csv_table.hpp: CRLF, a byte-order mark,
// spaces around cells, '+0.1' read as the trace reader reads them).
std::vector<Vec6d> parse_rows(const std::string& text, const std::string& path, double controller_hz) {
  const CsvTable table = parse_csv_table(text, path, {kHeader, {}});
  std::string found;
  for (const std::string& name : table.header) found += (found.empty() ? "" : ",") + name;
  if (found != kHeader) fail(path + ":1", std::string("expected the header '") + kHeader + "', got '" + found.substr(0, 80) + "'");
  std::vector<Vec6d> rows;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const std::vector<double>& values = table.rows[r];
    const double t = static_cast<double>(rows.size()) / controller_hz;
    const bool off = std::abs(values[0] - t) > 1e-9 * std::max(1.0, t);
    const double last = table.rows.back()[0], n = static_cast<double>(table.rows.size() - 1);
    if (off && r == 1 && values[0] > 0 && table.rows[0][0] == 0 &&  // every row at another rate: the rate is off
        std::abs(last - n * values[0]) <= 1e-9 * std::max(1.0, last))
      fail(sidecar_path(path), "key 'controller_hz': " + exact_number(controller_hz) + " Hz, but the rows of " + path +
                                   " are " + exact_number(values[0]) + " s apart (" + exact_number(1 / values[0]) +
                                   " Hz): the two files do not describe the same command");
    if (off)
      fail(path + ":" + std::to_string(table.lines[r]),
           "column 't': expected t = " + exact_number(t) + " s (one row per controller tick)");
    rows.push_back(Eigen::Map<const Vec6d>(values.data() + 1));
  }
  if (rows.empty()) fail(path, "no rows: expected one per controller tick");
  return rows;
}

}  // namespace

void write_precorrection(const std::string& path, const PrecorrectionFile& f, bool force) {
  const std::string csv = csv_text(f);
  nlohmann::json sidecar = {{"format", kPrecorrectionFormat},
                                  {"controller_hz", f.controller_hz}, {"ticks", f.command.size()},
                                  {"software_version", f.software_version}, {"model", to_json(f.model)},
                                  {"robot", to_json(f.robot)}, {"reference", to_json(f.reference)},
                                  {"experiment", to_json(f.experiment)}, {"loop", f.loop}, {"kind", f.kind}};
  if (f.kind == kKindLearnt) sidecar["truth"] = to_json(f.truth);
  write_files_atomically(csv_with_sidecar(path, csv, sidecar), force);
}

namespace {
// read_precorrection's parse of the CSV read (parse_input_file).
PrecorrectionFile precorrection_of_csv(const std::string& path, const std::string& csv) {
  const std::string side = sidecar_path(path);
  const nlohmann::json document =
      read_required_sidecar(path, {kPrecorrectionFormat, "a pre-corrected command", "vcloe precorrect or vcloe learn"});
  // A learnt command's sidecar is vcloe learn's: a key missing there is said of that writer (probe 26's k6-p01).
  const auto kind = document.is_object() ? document.find("kind") : document.end();
  const bool learnt = document.is_object() && kind != document.end() && kind->is_string() && *kind == kKindLearnt;
  const JsonNode root = JsonNode::root(document, side, learnt ? "(written by vcloe learn)" : "(written by vcloe precorrect)");
  root.object();
  if (root.need("format").string() != kPrecorrectionFormat)
    root.need("format").refuse(std::string("\"") + kPrecorrectionFormat + "\"");
  if (root.need("csv_sha256").sha256() != sha256(csv))
    fail(path, "does not belong to its sidecar " + side + " (the sidecar records the SHA-256 of another CSV)");
  PrecorrectionFile f;
  f.controller_hz = root.need("controller_hz").positive();
  f.software_version = root.need("software_version").string();
  f.model = root.present("model").file_record();
  f.robot = root.present("robot").file_record();
  f.reference = root.need("reference").file_record();
  f.experiment = root.present("experiment").file_record();
  if (const JsonNode loop = root["loop"]; !loop.absent()) f.loop = loop.one_of({kLoopServo, kLoopDrives});
  if (const JsonNode kind = root["kind"]; !kind.absent()) f.kind = kind.one_of({kKindPrecorrection, kKindLearnt});
  // A learnt command names the virtual robot it was learnt on; a model's pre-correction none.
  if (f.kind == kKindLearnt) f.truth = root.need("truth").file_record();
  else if (!root["truth"].absent()) root["truth"].refuse("no key 'truth' beside kind \"precorrection\" (a model's pre-correction "
                                                        "was learnt on no robot)");
  f.command = parse_rows(csv, path, f.controller_hz);
  if (static_cast<std::int64_t>(f.command.size()) != root.need("ticks").count())
    root.need("ticks").refuse(std::to_string(f.command.size()) + " (the CSV's rows)");
  return f;
}
}  // namespace

PrecorrectionFile read_precorrection(const std::string& path) {
  return parse_input_file(path, InputKind::Trace, [&](const std::string& text) { return precorrection_of_csv(path, text); });
}

void check_precorrection_for(const PrecorrectionFile& f, const std::string& path, const std::string& reference_file,
                             double controller_hz, int ticks) {
  const std::string now = sha256_file(reference_file);
  if (f.reference.sha256 != now)
    fail(path, "was made for another reference (" + f.reference.path + ", SHA-256 " + f.reference.sha256.substr(0, 12) +
                   "…), not " + reference_file + " (SHA-256 " + now.substr(0, 12) + "…)");
  if (std::abs(f.controller_hz - controller_hz) > 1e-9 * controller_hz)
    fail(path, "was made for a controller at " + exact_number(f.controller_hz) + " Hz, the experiment runs at " +
                   exact_number(controller_hz) + " Hz");
  if (static_cast<int>(f.command.size()) < ticks)
    fail(path, "has " + std::to_string(f.command.size()) + " ticks, the run needs " + std::to_string(ticks));
}

}  // namespace vcloe::control
