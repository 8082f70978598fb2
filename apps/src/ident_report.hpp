#pragma once
// Identification requests and reports shared by `identify`, `validate` and `demo`: the JSON
// report (docs/identification.md) and the paper's tables (Table 2: parameters, Table 3: RMS).
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "vcloe/rig/setup.hpp"

namespace vcloe::app {

struct IdentifyRequest {
  std::string measured, payload_trace, payload_file, config, robot, reference, experiment, out;
  std::string report;  // --report: the HTML report to write after the fit (empty: none)
  bool verbose = false;
  bool quiet = false;  // no live progress line
  bool accept_robot_mismatch = false;  // --accept-robot-mismatch (rig/setup.hpp, rig::check_recorded_robot)
};

struct IdentifyOutcome {
  rig::ExperimentSetup setup;
  std::optional<rig::ExperimentSetup> payload_setup;
  oe_ident::IdentificationResult result;
  std::string anchor;
  Vec6d noise_sigma = Vec6d::Ones();  // the settings' camera noise (m, rad): the fit's yardstick

  // The largest after-fit RMS in units of the camera noise, and where ("b mrad of experiment 1").
  // Above kMaxFitOverNoise the fit did not explain the traces (warned by identify).
  static constexpr double kMaxFitOverNoise = 5.0;
  std::pair<double, std::string> worst_fit_over_noise() const;
};

IdentifyOutcome run_identification(const IdentifyRequest& request);
nlohmann::json identification_report_json(const IdentifyOutcome& outcome);
void print_identification(const IdentifyOutcome& outcome, std::ostream& out);

}  // namespace vcloe::app
