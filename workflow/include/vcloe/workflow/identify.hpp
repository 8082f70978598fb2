#pragma once
// The procedures behind the `vcloe` commands, one function per command (identify.hpp,
// validate.hpp, study.hpp, demo.hpp, report.hpp, compare.hpp): each takes its options — a
// struct that checks itself, validate() naming the option — and prints what the command prints
// (results on standard output, progress and warnings on standard error); the command line only
// declares the options and calls it. Errors are vcloe::Error.
//
// `vcloe identify`: the fit from files (docs/identification.md) — the traces read and their
// provenance checked (reference and experiment from the sidecar, robot and payload recorded),
// the priors checked against the measured robot, the closed-loop output-error fit (Li et al.
// 2019, §3.2), then the identified robot file, <out>.report.json and optionally the HTML report
// written, the report printed (Tables 2 and 3 form) and the fit's warnings given.
#include <optional>
#include <string>
#include <utility>

#include "vcloe/oe_ident/problem.hpp"
#include "vcloe/rig/setup.hpp"

namespace vcloe::workflow {

struct IdentifyOptions {
  std::string measured, payload_trace, payload_file, config, robot, reference, experiment, out;
  std::string report;  // --report: the HTML report to write after the fit (empty: none)
  bool json = false;   // print the report as JSON
  bool force = false;  // overwrite existing output
  bool verbose = false;
  bool quiet = false;  // no live progress line
  bool accept_robot_mismatch = false;  // --accept-robot-mismatch (rig::check_recorded_robot)

  // The outputs checked before any work: not overwritten without force, never an input.
  void validate() const;
};

struct IdentifyOutcome {
  rig::ExperimentSetup setup;
  std::optional<rig::ExperimentSetup> payload_setup;
  oe_ident::IdentificationResult result;
  std::string anchor;
  Vec6d noise_sigma = Vec6d::Ones();  // the settings' camera noise (m, rad): the fit's yardstick

  // The largest after-fit RMS in units of the camera noise, and where ("beta of experiment 1").
  // Above kMaxFitOverNoise the fit did not explain the traces (warned by identify).
  static constexpr double kMaxFitOverNoise = 5.0;
  std::pair<double, std::string> worst_fit_over_noise() const;
};

// The fit alone: the inputs read and checked, oe_ident::identify run (progress on stderr).
IdentifyOutcome run_identification(const IdentifyOptions& options);

// The exit status of a fit that is stuck (oe_ident/convergence.hpp): the model and the report
// are written, for inspection, and say so; the values are not an estimate.
inline constexpr int kStuckExitStatus = 4;

// The whole command: options checked, the fit, the files written, the report printed. Returns
// the exit status: 0, or kStuckExitStatus for a stuck fit.
int identify(const IdentifyOptions& options);

}  // namespace vcloe::workflow
