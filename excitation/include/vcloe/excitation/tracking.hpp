#pragma once
// vcloe/excitation/tracking.hpp — an excitation checked on what the robot will do, not only on
// its reference. The robot runs the reference plus the closed loop's tracking error, and that
// error grows with a payload (the scale anchor's run) and with dynamics off the priors; an
// excitation planned at the reference's margins alone drove the payload run into the safety stop
// near a parallel singularity (docs/excitation-file.md, "What the robot does"). So each case
// below runs the candidate through the twin (servo::simulate_twin: the same loop, the priors'
// dynamics, the experiment's timing and outer gains), and every simulated pose must pass the
// safety stop's own test (sim::check_pose on sim::safety_envelope) with its singularity margins
// `margin` times the stop's.
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "vcloe/core/settings.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/servo/timing.hpp"
#include "vcloe/sim/parameters.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::excitation {

// How far a pose is outside the limits of `limits` (check_pose's: joint range, both singularity
// margins): their relative exceedances summed, 0 inside, 1 more if unreachable or in another assembly mode. The one measure
// the search's penalty sums over the reference's samples and over the twin's.
double pose_exceedance(const sim::RobotModel& limits, const Vec6d& chi);

struct TrackingSettings {
  bool enabled = true;
  // Required singularity margins of the simulated motion, in units of the safety stop's (the stop
  // trips at half the robot file's margins; 2 = the robot file's own). The joint range is the
  // robot file's (the stop's less its 0.1 rad widening).
  double margin = 2.0;
  // The payload of the payload run (config/identify.yaml's: 5 kg, COM at E): the twin runs the
  // candidate without it and with it.
  double payload_mass = 5.0;                    // kg
  Vec3d payload_inertia = Vec3d(0.02, 0.02, 0.03);  // kg*m^2 about its COM, along E's axes
  // A heavier, softer robot than the priors within the family a run may meet (the truth family's
  // platform spread and drive-gain spread, hw::TruthFamily): the payload case also run with the
  // platform's mass, moments and first moments times (1 + platform) and the three gains times (1 - gains).
  double platform = 0.25, gains = 0.30;

  // The first value out of range; validate throws vcloe::Error "<where>: <message>".
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where) const;
};

// The closed loop the excitation will run in, as the twin models it: the robot file's values
// (the priors) and the experiment file's timing and outer controller.
struct TwinLoop {
  sim::LambdaVector<double> lambda;
  servo::ExperimentConfig experiment;
};

struct TrackingCase {
  std::string name;  // "priors", "priors + payload", "heavier, softer + payload"
  bool ran = false;  // the twin ran to the end (else `failure`)
  std::string failure;
  double min_transmission = 1, min_parallel_conditioning = 1, max_abs_theta = 0;  // along the simulated motion
  double margin = std::numeric_limits<double>::infinity();  // min of both measures over the stop's (1 = at the stop)
  double exceedance = 0;  // summed pose_exceedance over the simulated exposures
  int exposures = 0;      // simulated exposures checked
};

struct TrackingReport {
  bool ok = true;
  double exceedance = 0;  // over all cases (0 when every simulated pose passes); a failed run counts 1e3
  double margin = std::numeric_limits<double>::infinity();  // the smallest case margin
  std::string reason;     // the first failing case, in words
  std::vector<TrackingCase> cases;
};

// What checking the twin's motion cost: checks run (the search's, of each candidate that would
// have become the best, and the result's), how many refused their candidate, and the search's
// wall seconds in them.
struct TrackingEffort {
  int checks = 0, refused = 0;
  double seconds = 0;
};

// The cases run for `settings` (names and the Lambda each runs at, the payload added).
struct TrackingRun {
  std::string name;
  sim::LambdaVector<double> lambda;
};
std::vector<TrackingRun> tracking_runs(const sim::LambdaVector<double>& priors, const TrackingSettings& settings);

// Whole: every case run to its end, every exposure checked (the margins a report shows).
// FirstFailure: the verdict only, as cheaply as it can be had (the search's check of each would-be
// best candidate): the cases in reverse order of tracking_runs (the heaviest load first), each
// run stopped at its first exposure past the envelope, no case run after a failing one. The same
// `ok` as Whole (the same poses tested); `cases` holds the cases run, their margins over the
// exposures simulated, and the exceedance is the refused pose's plus the fraction of the run not
// carried (a graded penalty: a candidate carried longer costs less).
enum class TrackingCheck { Whole, FirstFailure };

// Runs `trajectory` through the twin for every case and checks every simulated pose (at the
// camera's exposures) against the safety stop's envelope with the settings' margin.
TrackingReport check_tracking(const sim::RobotModel& model, const TwinLoop& loop, const FourierTrajectory& trajectory,
                              const TrackingSettings& settings, TrackingCheck mode = TrackingCheck::Whole);

}  // namespace vcloe::excitation
