#pragma once
// vcloe/excitation/workflows.hpp — the trajectory commands as the command line runs them, from
// files to files and a report: `trajectory random` (a random feasible trajectory, validation
// sets), `trajectory check` (every sample against the limits) and `excite` (an excitation
// trajectory optimised by the observability index, Li et al. 2019 eqs. 37-39).
#include <cstdint>
#include <ostream>
#include <optional>
#include <string>

#include "vcloe/core/report.hpp"
#include "vcloe/core/settings.hpp"
#include "vcloe/excitation/optimizer.hpp"

namespace vcloe::excitation {

// A feasibility report as JSON and as text (the lines `trajectory check` prints).
nlohmann::json feasibility_json(const FeasibilityReport& report);
std::string feasibility_text(const FeasibilityReport& report);

struct RandomTrajectoryFileOptions {
  std::string robot, out;
  std::uint64_t seed = 1;
  RandomTrajectoryOptions random;
  bool force = false;
};
// Draws the trajectory, writes it and reports it: what was written, whether the amplitudes
// were shrunk to fit the limits, and its feasibility.
Report write_random_trajectory(const RandomTrajectoryFileOptions& options);

struct TrajectoryCheck {
  Report report;
  std::string failure;  // "FILE: trajectory not feasible: REASON", or empty
};
// With `twin` (the excitation settings file whose tracking.* is used, and the experiment file),
// also the twin's motion along it (check_tracking): how close to the safety stop each case comes.
struct TwinCheckFiles {
  std::string config, experiment;
};
TrajectoryCheck check_trajectory_file(const std::string& robot_file, const std::string& trajectory_file,
                                      const MotionLimits& limits, const std::optional<TwinCheckFiles>& twin = {});

struct ExciteOptions {
  std::string robot, config, out;  // config: excitation settings (docs/excitation-file.md)
  std::string experiment;          // the loop the twin checks the motion in (empty: the default experiment)
  std::uint64_t seed = 0;          // overrides the config's if seed_given (a whole number below 2^64 - 1: main's check)
  bool seed_given = false, force = false;

  // Before the optimisation (minutes): the output (never an input; validate() only, the file
  // system) and the seed (problem(), core/settings.hpp), naming them.
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where = "") const;
};
struct ExciteRun {
  ExcitationProblem problem;
  ExcitationResult result;
  Report report;  // what `excite` prints, as JSON and text
};
// Optimises and writes the trajectory to `out`. With `progress`, a live line there as it goes
// (`\r  STAGE search: N evaluations, best cost C`), ended by a newline.
ExciteRun excite(const ExciteOptions& options, std::ostream* progress);

}  // namespace vcloe::excitation
