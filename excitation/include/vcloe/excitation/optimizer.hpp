#pragma once
// vcloe/excitation/optimizer.hpp — optimal excitation trajectories (Li et al. 2019 §3.3).
//
// Maximises the chosen criterion (criteria.hpp) over the Fourier coefficients of eq. (37)
// (and optionally f0) with every limit of check_feasibility enforced at every sample: a global
// stage (NLopt's controlled random search, CRS2-LM, in place of the paper's GA) then a local
// refinement (NLopt's Sbplx), both on a penalised objective, seeded and reproducible. The
// result is re-checked at the fine sample period and shrunk until it passes.
#include <cstdint>
#include <functional>

#include "vcloe/excitation/criteria.hpp"
#include "vcloe/excitation/tracking.hpp"

namespace vcloe::excitation {

struct ExcitationProblem {
  int harmonics = 5;
  double f0 = 0.1;                 // Hz
  bool optimize_f0 = false;
  double f0_min = 0.05, f0_max = 0.3;
  double duration = 20.0;          // s of the written trajectory
  Criterion criterion = Criterion::ObservabilityIndex;
  bool scale_columns = false;      // criteria on unit-norm columns
  double qr_eps = 1e-3;            // Li et al. 2019 §4
  double regressor_period = 0.1;   // s between stacked regressor samples
  double check_period = 0.02;      // s between limit checks while optimising
  MotionLimits limits;             // limits of the final check (finer sample period)
  double max_position_amplitude = 0.06;  // m, bound of each harmonic's excursion
  double max_angle_amplitude = 0.25;     // rad
  std::uint64_t seed = 1;
  int global_evaluations = 2500;
  int local_evaluations = 1500;
  int baseline_trajectories = 20;  // random feasible trajectories for the 'initial' median
  TrackingSettings tracking;       // the twin's motion checked too (tracking.hpp), when a TwinLoop is given
  std::string source = "excitation";  // the settings file, named by errors the limits cause
  // The first setting out of range (zero harmonics, bad frequency, ...); validate throws it as
  // vcloe::Error "<where>: <message>" (core/settings.hpp).
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where) const;
};

// The excitation settings file (docs/excitation-file.md): every key optional (the defaults
// above), unknown keys refused, validate()d; errors name file, line and key.
ExcitationProblem load_excitation_settings(const std::string& file);
ExcitationProblem parse_excitation_settings(const std::string& yaml_text, const std::string& name);

struct ExcitationResult {
  FourierTrajectory trajectory;
  double initial = 0;      // median criterion of the random feasible baseline
  double final = 0;        // criterion of the written trajectory
  int evaluations = 0;
  double seconds = 0;
  ColumnReport columns;    // what the model structure cannot excite, by name
  CriterionValues values;  // all three criteria of the result
  FeasibilityReport feasibility;  // fine re-check of the result
  std::optional<TrackingReport> tracking;  // the result's twin motion (with a TwinLoop and tracking.enabled)
  TrackingEffort tracking_effort;  // the search's twin checks (candidates that would have become the best) and the final one
};

using ExcitationProgress = std::function<void(const std::string& stage, int evaluations, double best)>;

// Throws vcloe::Error if no feasible trajectory exists under the limits. With `loop` (and
// problem.tracking.enabled) a candidate is feasible only if the twin's motion along it passes
// check_tracking too: checked when it would become the best so far (the twin runs cost ~0.5
// CPU-s each; the reference's limits, microseconds, are checked on every candidate), and the
// result is shrunk until both pass. Without `loop`, the reference's limits only.
ExcitationResult optimize_excitation(const sim::RobotModel& model, const ExcitationProblem& problem,
                                     const ExcitationProgress& progress = {}, const TwinLoop* loop = nullptr);

// Criterion of one trajectory on the given columns (0 if infeasible or unreachable).
double trajectory_criterion(const sim::RobotModel& model, const FourierTrajectory& trajectory,
                            const ExcitationProblem& problem, const std::vector<int>& columns);

}  // namespace vcloe::excitation
