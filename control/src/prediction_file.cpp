// The prediction file (prediction_file.hpp).
#include "vcloe/control/prediction_file.hpp"
#include "vcloe/core/input_file.hpp"
#include "vcloe/core/required_sidecar.hpp"

#include <cmath>
#include <sstream>

#include "vcloe/core/csv_table.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/core/json_node.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe::control {

namespace {

const char* const kJointNames[3] = {"B", "T", "A"};

std::string header() {
  std::string h = "t";
  for (const char* const p : {"", "sigma_"}) {
    for (int i = 1; i <= 6; ++i) h += std::string(",") + p + "tau" + std::to_string(i);
    for (int i = 1; i <= 6; ++i)
      for (const char* j : kJointNames)
        for (const char* c : {"x", "y", "z"}) h += std::string(",") + p + "f" + j + std::to_string(i) + "_" + c;
  }
  return h;
}

std::string csv_text(const PredictionFile& f, const std::string& path) {
  std::ostringstream o;
  o << header() << "\n";
  for (std::size_t n = 0; n < f.load.size(); ++n) {
    const std::string t = exact_number(static_cast<double>(n) * f.period);
    if (!f.load[n].allFinite() || !f.sigma[n].allFinite())  // a reader could not tell it from a number
      fail(path, "sample " + std::to_string(n) + " (t = " + t + " s) holds a non-finite load or sigma; refusing to write it");
    o << t;
    for (int r = 0; r < kLoadSize; ++r) o << "," << exact_number(f.load[n](r));
    for (int r = 0; r < kLoadSize; ++r) o << "," << exact_number(f.sigma[n](r));
    o << "\n";
  }
  return o.str();
}

// The rows through the one numeric CSV reader (core/csv_table.hpp), one every `period` s.
void parse_rows(const std::string& text, const std::string& path, PredictionFile& f) {
  const std::string expected = header();
  const CsvTable table = parse_csv_table(text, path, {expected.substr(0, 40) + "…", {}});
  std::string found;
  for (const std::string& name : table.header) found += (found.empty() ? "" : ",") + name;
  if (found != expected)
    fail(path + ":1", "expected the header of vcloe predict ('" + expected.substr(0, 40) + "…', 121 columns), got '" +
                          found.substr(0, 80) + "'");
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const std::vector<double>& v = table.rows[r];
    const double t = static_cast<double>(r) * f.period;
    if (std::abs(v[0] - t) > 1e-9 * std::max(1.0, t))
      fail(path + ":" + std::to_string(table.lines[r]), "column 't': expected t = " + exact_number(t) +
                                                            " s (one row every " + exact_number(f.period) + " s, the sidecar's 'period_s')");
    f.load.push_back(Eigen::Map<const LoadVector>(v.data() + 1));
    f.sigma.push_back(Eigen::Map<const LoadVector>(v.data() + 1 + kLoadSize));
    if ((f.sigma.back().array() < 0).any())
      fail(path + ":" + std::to_string(table.lines[r]), "a negative sigma: expected a standard deviation, >= 0");
  }
  if (f.load.empty()) fail(path, "no rows: expected one every " + exact_number(f.period) + " s");
}

}  // namespace

PredictionFile prediction_file(const Prediction& p) {
  PredictionFile f;
  f.period = p.period;
  f.load = p.load;
  f.sigma = p.sigma.empty() ? std::vector<LoadVector>(p.load.size(), LoadVector::Zero()) : p.sigma;
  return f;
}

void write_prediction(const std::string& path, const PredictionFile& f, bool force) {
  const std::string csv = csv_text(f, path), side = sidecar_path(path);
  const nlohmann::json sidecar = {{"format", kPredictionFormat}, {"period_s", f.period},
                                  {"samples", f.load.size()}, {"software_version", f.software_version},
                                  {"model", to_json(f.model)}, {"robot", to_json(f.robot)},
                                  {"reference", to_json(f.reference)}, {"experiment", to_json(f.experiment)},
                                  {"band", to_json(f.band)}};
  write_files_atomically(csv_with_sidecar(path, csv, sidecar), force);
}

namespace {
// read_prediction's parse of the CSV read (parse_input_file).
PredictionFile prediction_of_csv(const std::string& path, const std::string& csv) {
  const std::string side = sidecar_path(path);
  const nlohmann::json document = read_required_sidecar(path, {kPredictionFormat, "a prediction", "vcloe predict --out"});
  const JsonNode root = JsonNode::root(document, side, "(written by vcloe predict --out)");
  root.object();
  if (root.need("format").string() != kPredictionFormat) root.need("format").refuse(std::string("\"") + kPredictionFormat + "\"");
  if (root.need("csv_sha256").sha256() != sha256(csv))
    fail(path, "does not belong to its sidecar " + side + " (the sidecar records the SHA-256 of another CSV)");
  PredictionFile f;
  f.period = root.need("period_s").positive();
  f.software_version = root.need("software_version").string();
  f.model = root.need("model").file_record();
  f.robot = root.present("robot").file_record();
  f.reference = root.need("reference").file_record();
  f.experiment = root.present("experiment").file_record();
  f.band = root.present("band").file_record();
  parse_rows(csv, path, f);
  if (static_cast<std::int64_t>(f.load.size()) != root.need("samples").count())
    root.need("samples").refuse(std::to_string(f.load.size()) + " (the CSV's rows)");
  // The band is the covariance of the model's own identification, drawn from its sigma_ columns:
  // a band of another model's report, or over all-zero columns, is a band that is not there
  // (session 21's probe, class T: "with the sigma band of its identification" drawn over zeros).
  if (!f.band.none() && f.band.path != f.model.path + ".report.json")
    root.need("band").refuse("the identification report of the prediction's model, " + f.model.path + ".report.json");
  bool any_sigma = false;
  for (const LoadVector& s : f.sigma) any_sigma = any_sigma || (s.array() != 0).any();
  if (any_sigma != !f.band.none())
    root.present("band").refuse(any_sigma ? "the report the CSV's sigma_ columns come from (they are not all zero)"
                                          : "null: the CSV's sigma_ columns are all zero, there is no band");
  return f;
}
}  // namespace

PredictionFile read_prediction(const std::string& path) {
  return parse_input_file(path, InputKind::Trace, [&](const std::string& text) { return prediction_of_csv(path, text); });
}

Provenance provenance_of(const PredictionFile& f, const std::string& path) {
  Provenance p;
  p.file = path;
  p.reference = f.reference;
  return p;
}

std::string prediction_column(int row, bool sigma) {
  const std::string p = sigma ? "sigma_" : "";
  if (row < 6) return p + "tau" + std::to_string(row + 1);
  const int k = row - 6, leg = k / 9, joint = (k % 9) / 3, c = k % 3;
  return p + "f" + kJointNames[joint] + std::to_string(leg + 1) + "_" + "xyz"[c];
}

LoadVector max_abs(const std::vector<LoadVector>& series) {
  LoadVector m = LoadVector::Zero();
  for (const LoadVector& v : series) m = m.cwiseMax(v.cwiseAbs());
  return m;
}

}  // namespace vcloe::control
