#pragma once
// The identification report — `<model>.report.json`, written by `vcloe identify` and read by
// `vcloe report` and `vcloe study` (docs/identification.md, "Reports") — as a typed value with
// ONE writer (to_json) and ONE reader (identification_from_json): every field's type, length and
// range checked, an error a one-line vcloe::Error naming the file and the key. Also the report
// made from an oe_ident result and printed in the paper's tables (Table 2: parameters, Table 3:
// RMS; Li et al. 2019, §4).
#include <array>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vcloe/core/rotation.hpp"
#include "vcloe/core/trace_metadata.hpp"
#include "vcloe/oe_ident/problem.hpp"
#include "vcloe/sim/parameters.hpp"

namespace vcloe::report {

// One pose channel set: x, y, z in mm, alpha, beta, gamma in mrad ({mm: [3], mrad: [3]}).
using AxesRms = std::array<double, 6>;

struct ParameterEntry {
  std::string name, unit;
  double prior = 0, value = 0;
  double sigma = 0, rel_sigma = 0, sigma_camera = 0;  // >= 0
  // 95 % interval [low, high]; none when not fitted; a bound that overflowed is +infinity
  // (written as null: unbounded).
  std::optional<std::array<double, 2>> interval95;
  double prior_pull = 0;
  bool identified = false, flagged = false;
  std::string status;
  bool operator==(const ParameterEntry&) const = default;
};

struct AdequacyEntry {
  struct Experiment {  // per channel x ... gamma
    std::array<double, 6> rms_over_noise{}, lag1{}, model_share{};
    bool operator==(const Experiment&) const = default;
  };
  std::string verdict, summary, worst_channel;
  double worst_model_share = 0, mean_model_share = 0, chi2_per_dof = 0, sigma_scale = 1;
  std::vector<Experiment> experiments;
  bool operator==(const AdequacyEntry&) const = default;
};

// The start search (oe_ident::StartRecord): along each direction the factor found, the costs
// (Ceres' 0.5 * sum of squares on the search horizon) at the priors and at the start.
struct StartEntry {
  bool searched = false;
  double horizon = 0;
  std::vector<std::string> directions;
  std::vector<double> factors;  // one per direction, > 0
  double cost_at_priors = 0, cost_at_start = 0;
  int evaluations = 0;
  double cpu_seconds = 0;
  // The latency offset's starts (s) of the first horizon and the cost each ended at (the fit went
  // on from the lowest); empty: one start.
  std::vector<double> latency_starts, latency_costs;
  // The first horizon's end from the configured offset in camera sigmas: the other starts ran
  // only above latency.starts_above_noise (one start listed: they did not). 0: not recorded.
  double latency_over_noise = 0;
  bool operator==(const StartEntry&) const = default;
};

// Converged or stuck (oe_ident::ConvergenceCheck): the verdict and its figures; a
// second_start_cost of -1 means no second start was needed (the fit ended near the noise).
struct ConvergenceEntry {
  std::string verdict, summary;  // "converged" | "stuck" | "not checked"
  double end_over_noise = 0, end_cost = 0, noise_cost = 0, second_start_cost = -1, removed_share = 0;
  int escapes = 0;
  double cpu_seconds = 0;
  bool stuck() const { return verdict == "stuck"; }
  bool operator==(const ConvergenceEntry&) const = default;
};

// The pose stream's latency offset (oe_ident::LatencyResult): true - configured latency, s; a
// nuisance parameter beside Lambda, not one of the 70 (docs/identification.md, "Latency offset").
struct LatencyEntry {
  bool fitted = false;
  double value = 0, sigma = 0, sigma_camera = 0;  // s (sigmas >= 0, 0 when not fitted)
  double low = 0, high = 0;                       // s: the bounds it was fitted in
  double prior_pull = 0;
  std::string status;
  bool operator==(const LatencyEntry&) const = default;
};

struct Correlation {  // of the fitted parameters (registry order), from the honest covariance
  std::vector<std::string> parameters;
  std::vector<std::vector<double>> matrix;  // parameters.size() squared
  bool operator==(const Correlation&) const = default;
};

using FileEntry = FileRecord;  // a file read or written: absolute path and SHA-256 (core/trace_metadata.hpp)
// The record of the file as it is now; none for an empty path.
std::optional<FileEntry> file_entry_of(const std::string& path);

// What the fit read and wrote; the optional ones are null in the file when not given.
struct ReportInputs {
  FileEntry robot, measured, reference, model;
  std::optional<FileEntry> payload_trace, experiment, config;
  bool operator==(const ReportInputs&) const = default;
};

struct IdentificationReport {
  std::vector<AxesRms> before_rms_all, after_rms_all;  // per experiment (>= 1, as many before as after)
  std::vector<ParameterEntry> parameters;              // all 70, registry order
  int identified_count = 0;
  LatencyEntry latency;
  std::string anchor;
  int iterations = 0;
  double seconds = 0, jacobian_cost_ratio = 0;
  double cpu_seconds = 0;  // user + system of identify() (all threads)
  StartEntry start;
  ConvergenceEntry convergence;
  int rejected_steps = 0, failed_simulations = 0;
  AdequacyEntry adequacy;
  Correlation correlation;
  std::vector<double> singular_values;  // largest first, >= 0
  double rank_tolerance = 0;
  std::vector<std::string> consistency, moved_to_consistency;
  std::string termination;
  double after_over_noise = 0;  // the largest after-fit RMS in camera-noise sigmas (worst_fit_over_noise)
  std::array<double, 6> noise_sigma{};  // the settings' camera noise, its yardstick (m, m, m, rad, rad, rad)
  ReportInputs inputs;
  bool operator==(const IdentificationReport&) const = default;
};

// The report of a fit (everything but the inputs, which the caller records). noise_sigma: the
// settings' camera noise (m, rad), the fit's yardstick.
IdentificationReport make_identification_report(const oe_ident::IdentificationResult& result, const std::string& anchor,
                                                 const Vec6d& noise_sigma);

// The largest after-fit RMS in units of the camera noise, and where ("beta of experiment 1").
std::pair<double, std::string> worst_fit_over_noise(const std::vector<AxesRms>& after_rms_all, const Vec6d& noise_sigma);

nlohmann::json to_json(const IdentificationReport& report);
// `file` names the document in errors.
IdentificationReport identification_from_json(const nlohmann::json& document, const std::string& file);
IdentificationReport read_identification_report(const std::string& file);

// Every parameter's "value" (or "prior") of a report read from `file` against Lambda of the file
// the report records as its model (or robot file), described by `what` ("the model ... it
// records"): equal within the rounding of the files' 17 digits, else a vcloe::Error naming the key
// and both numbers. For the caller that compared that file's SHA-256 with the one recorded.
void check_values_of_file(const IdentificationReport& report, const std::string& file, const std::string& key,
                          const sim::LambdaVector<double>& lambda, const std::string& what);

// The terminal form: anchor, termination, Table 3 form, adequacy, Table 2 form, moved values and
// consistency issues.
void print_identification(const IdentificationReport& report, std::ostream& out);

}  // namespace vcloe::report
