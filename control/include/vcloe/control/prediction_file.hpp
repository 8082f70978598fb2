#pragma once
// vcloe/control/prediction_file.hpp — what `vcloe predict --out P` writes (docs/control.md): a CSV
// `t, tau1…tau6, fB1_x … fA6_z` (s, N·m, N: per leg the base, crank-tip and platform joints, x y
// z in O), then the same 60 columns prefixed `sigma_` (zero without a band), one row every
// `period` s; and a JSON sidecar `<P>.meta.json` recording what it was computed from — the model,
// the robot file, the reference, the experiment (absolute path and SHA-256 of the bytes parsed),
// the identification report whose σ made the band (none: no band) — and the CSV's SHA-256. One
// writer, one reader: `vcloe report --prediction` reads it back and checks it belongs with the
// runs it is shown beside (the reference's SHA-256, core/provenance.hpp).
#include <string>
#include <vector>

#include "vcloe/control/predict.hpp"
#include "vcloe/core/file_record.hpp"
#include "vcloe/core/provenance.hpp"

namespace vcloe::control {

inline constexpr const char* kPredictionFormat = "vcloe prediction 1";

struct PredictionFile {
  double period = 0;                  // s between rows; row n at t = n period
  std::vector<LoadVector> load, sigma;  // sigma: zero rows without a band
  FileRecord model, robot, reference, experiment;  // experiment: none for the default
  FileRecord band;                    // the identification report of the model (none: no band)
  std::string software_version;
};

// The CSV's name of load row r (0 .. kLoadSize - 1), or of its sigma: "tau1", "sigma_fB1_x".
std::string prediction_column(int row, bool sigma);
// Per load row, the largest |value| over the samples (zero for none).
LoadVector max_abs(const std::vector<LoadVector>& series);
// The file of a prediction (its sigma empty: zero rows).
PredictionFile prediction_file(const Prediction& p);
// Writes the CSV and its sidecar as one (the sidecar, which records the CSV's hash, first); a
// non-finite cell is refused before anything is written, naming the sample.
void write_prediction(const std::string& path, const PredictionFile& file, bool force);
// Reads both; every problem is one vcloe::Error naming the file, line and column or key.
PredictionFile read_prediction(const std::string& path);
// What it says about its origin for the one check of recordings that belong together: the
// reference it was computed along (no robot of its own: a model is checked by geometry).
Provenance provenance_of(const PredictionFile& file, const std::string& path);

}  // namespace vcloe::control
