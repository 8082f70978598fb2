#pragma once
// What `vcloe study` measures (docs/identification.md, "Truths it was not tuned on"): per truth
// one row — iterations, seconds, after/floor, validation/floor, how many parameters were
// identified and how far from the truth — and over all truths the coverage of the reported
// sigma and 95 % intervals. Pure functions of the truth, the identify report and the floors;
// study_json is the one writer of DIR/study.json, read_study its one reader.
#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "vcloe/report/identification.hpp"
#include "vcloe/report/validation.hpp"
#include "vcloe/sim/parameters.hpp"

namespace vcloe::report {

// One identified parameter against its truth.
struct ParameterCheck {
  std::string name;
  double truth = 0, value = 0, sigma = 0, rel_sigma = 0, low = 0, high = 0;
  bool moved = false;  // moved to physical consistency after the fit: sigma and interval are of the fitted value
  // Relative; a truth of 0 (a symmetric platform's first moment) against the scale its rel_sigma
  // was judged by (sigma / rel_sigma: the value, or the 1 mm floor of a first moment).
  double error() const { return (value - truth) / (truth != 0 || rel_sigma <= 0 ? truth : sigma / rel_sigma); }
  double z() const { return (value - truth) / sigma; }       // in sigma
  bool within_bound() const;                                  // |error| <= 5 % or |z| <= 3
};

// One identification's figures on a truth.
struct FitFigures {
  int iterations = 0;
  double seconds = 0;
  double cpu_seconds = 0;            // identify's user + system CPU time (all threads)
  bool stuck = false;                // identify's convergence verdict: the fit is stuck
  double after_over_floor = 0;       // worst axis and experiment: after-fit RMS / noise floor
  double validation_over_floor = 0;  // worst over the fresh trajectories (vcloe validate)
  int identified = 0;
  bool key_identified = false;       // m_p, Ix_p, Iy_p, Iz_p, lp, li, ld all identified
  std::string verdict;               // the model-adequacy verdict
  std::vector<ParameterCheck> checks;  // the identified parameters
  double latency = 0, latency_sigma = 0;  // s: the fitted latency offset and its sigma (0, 0: not fitted)
  // Why this fit has no result ("identify-calibrated: …"); empty when it has one. In the realistic
  // chain each of the two fits may fail on its own: the other is still the row's.
  std::string no_result;
  const ParameterCheck* worst_error() const;
  const ParameterCheck* worst_z() const;
};

// The kinematic calibration of a `--realistic` truth (vcloe calibrate kinematics' result).
struct CalibrationFigures {
  double residual_over_noise = 0;  // static residual over the camera noise
  double cpu_seconds = 0;          // the whole calibration's: pose selection, measurement, fit
};

// One truth: the fit from the priors' (drawn) robot file and, in the realistic chain, the fit
// from the calibrated robot file beside it (docs/calibration.md, "The chain").
struct TruthRow : FitFigures {
  std::uint64_t seed = 0;
  std::string failed;                // why this truth has no result ("run: …"); empty when it has one
  double latency_truth = 0;          // s: the truth's latency offset (its virtual_rig section)
  std::optional<CalibrationFigures> calibration;
  std::optional<FitFigures> calibrated;  // identified from the calibrated file
};

// floor[e][c]: RMS of measured - twin(truth) of experiment e (mm, mrad), as report's after_rms_all.
FitFigures make_fit(const std::string& where, const sim::LambdaVector<double>& truth, const IdentificationReport& report,
                    const std::vector<std::array<double, 6>>& floor, const ValidationResult& validation);
TruthRow make_row(std::uint64_t seed, const sim::LambdaVector<double>& truth, const IdentificationReport& report,
                  const std::vector<std::array<double, 6>>& floor, const ValidationResult& validation);

struct StudySummary {
  int truths = 0, failed = 0, parameters = 0;  // truths (failed: without a result); identified parameters
  int within1 = 0, within2 = 0, within3 = 0, in_interval = 0, outside_bound = 0;
  int key_identified_runs = 0;
  int stuck = 0;                       // fits identify called stuck
  double median_key_rel_sigma = 0;     // m_p and the three gains
  double max_seconds = 0, max_cpu_seconds = 0, max_after_over_floor = 0, max_validation_over_floor = 0;
};

// A fit that failed on its own (its identify or validate step): figures that say why.
FitFigures failed_fit(const std::string& why);
// A truth whose chain stopped (a step failed: e.g. the robot's safety stop): a row that says why,
// never an abort of the study.
TruthRow failed_row(std::uint64_t seed, const std::string& why);

// Over the rows with a result; `failed` counts the others. calibrated: over the fits from the
// calibrated files (rows without one count as failed).
StudySummary summarise(const std::vector<TruthRow>& rows, bool calibrated = false);
// The realistic chain's table (a row with a calibrated fit) has two lines per truth, the fit
// from the drawn file and from the calibrated one, and a summary of each.
std::string markdown_table(const std::vector<TruthRow>& rows, const StudySummary& s);
// The settings that make the rows of two studies comparable (`vcloe study` records them:
// workflow::study_settings): each a key and its value as text, written under "settings".
using StudySettings = std::map<std::string, std::string>;
nlohmann::json study_json(const std::vector<TruthRow>& rows, const StudySummary& s, const StudySettings& settings = {});

// DIR/study.json read back: every field's type and range checked, the file and key named
// (core/json_node.hpp). Written again, it gives the same bytes.
struct StudyResult {
  std::vector<TruthRow> rows;
  StudySummary summary;
  std::optional<StudySummary> summary_calibrated;  // the realistic chain's
  StudySettings settings;                          // empty: written by a vcloe that recorded none
};
StudyResult study_from_json(const nlohmann::json& document, const std::string& file);

// The settings of several studies, which must be one study's (shards of it, or one-truth studies
// run beside them with other seeds: docs/identification.md, "Shards"): the first's, or an error
// naming the key, both values and both files. Which truths a study ran (kTruthSelection: `seeds`,
// `shards`) is no setting of the study they make together: not compared, and in the result
// `seeds` is the union of the rows' seeds (seeds_of) and `shards` the studies merged. Studies
// that recorded none (an older vcloe) merge only with each other (empty settings).
inline const char* const kTruthSelection[] = {"seeds", "shards"};
StudySettings common_settings(const std::vector<StudyResult>& parts, const std::vector<std::string>& names);
// The rows of several studies (shards of one), ordered by truth seed; a seed found in two of
// them is an error naming both files (`names[i]` is parts[i]'s file).
std::vector<TruthRow> merge_rows(const std::vector<StudyResult>& parts, const std::vector<std::string>& names);
// The rows' seeds in order as runs: "801 to 811", "801 to 803, 805, 807 to 811".
std::string seeds_of(const std::vector<TruthRow>& rows);
StudyResult read_study(const std::string& file);

}  // namespace vcloe::report
