#pragma once
// vcloe/oe_ident/problem.hpp — the closed-loop output-error identification (Li et al. 2019
// §3.2, eqs. 32-35; docs/design.md §9).
//
//   minimise  sum_j sum_c ((chi_m,j,c - chi_s,j,c(Lambda)) / sigma_c)^2        (eq. 32, weighted)
//
// over the free parameters of Lambda = [Xi; lp, li, ld], with Ceres' Levenberg-Marquardt and
// the exact Jacobian from forward sensitivities (sensitivity.hpp). Parameters are free, fixed
// or tied (one value shared by a group); masses, inertias and gains are fitted in log form so
// they stay positive, friction with a lower bound of zero.
//
// Scale anchor (the trap in eq. 32): scaling all of Xi and (lp, li, ld) by one factor leaves
// every pose trace unchanged. A known mass, a known gain, or a second experiment with a known
// payload fixes the scale; without one, identify() refuses to return absolute values.
#include <optional>
#include <string>
#include <vector>

#include "vcloe/core/rotation_difference.hpp"
#include "vcloe/core/settings.hpp"
#include "vcloe/oe_ident/adequacy.hpp"
#include "vcloe/oe_ident/convergence.hpp"
#include "vcloe/oe_ident/progress.hpp"
#include "vcloe/oe_ident/payload.hpp"
#include "vcloe/servo/reference.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::oe_ident {

enum class Mode { Free, Fixed, Tied };

struct ParameterSpec {
  Mode mode = Mode::Free;
  int tie_group = -1;  // for Mode::Tied: parameters with the same group share one value
};

enum class AnchorKind { None, KnownParameter, Payload };

struct Anchor {
  AnchorKind kind = AnchorKind::None;
  int parameter = -1;  // KnownParameter: registry index (a mass such as m_p, or a gain)
  double value = 0;    // its known value (SI)
  std::string describe() const;
};

// One recorded experiment: the reference it ran, the measured poses at its exposure times, and
// an optional payload. A camera's frames that are no measurement (docs/traces.md, "Which rows are
// measurements") have no pose: `frames` then names the exposure each pose measured, and the
// output error has rows for those alone (docs/identification.md, "What identify checks of its traces").
struct Experiment {
  std::string name;
  servo::PreparedReference reference;
  std::vector<Vec6d> measured;  // one per measured exposure, in time order
  std::optional<Payload> payload;
  std::optional<Vec6d> declared_noise;  // the camera sigma the trace declares (m, rad); else the options'
  // Index into reference.exposure_times of each measured pose, increasing; empty: every exposure
  // was measured (measured[j] is exposure j).
  std::vector<std::size_t> frames;

  std::size_t exposure(std::size_t j) const { return frames.empty() ? j : frames[j]; }
};

// The experiment over the first `horizon` share (0, 1] of its exposures (at least up to its
// first measured one): the record a staged fit's short horizon fits (IdentificationOptions::horizons).
Experiment prefix_of(const Experiment& e, double horizon);

enum class Loss { Squared, Huber, Cauchy };

// The pose stream's latency offset (docs/identification.md, "Latency offset"): the camera's true
// latency minus the one the experiment file configures, so frame j was exposed at t_j - offset
// (docs/virtual-robot.md, "Departures"). The twin reads its pose there (servo::ShiftedExposure),
// which acts on the output and through the outer loop. A nuisance parameter: fitted beside Lambda
// by default, reported apart from it, never counted among the identified parameters.
struct LatencyOptions {
  bool fit = true;    // false: held at `offset`
  double offset = 0;  // s: the start when fitted, the value the twin uses when not
  // Where offset was read ("id.yaml:12: key 'latency.offset'"), for the check against the
  // experiments' timing, which only identify() can make; empty: the option's name.
  std::string source;
  // The cost is not convex in the offset (its minimum moves with the gains' phase): with more
  // than one horizon, the first is fitted from `offset` and from `starts` offsets spread evenly
  // over the bounds, and the fit goes on from the lowest cost (docs/identification.md). 1: from
  // `offset` alone (this default); config/identify.yaml, every command's default, sets 5.
  int starts = 1;
  // The other starts only when the fit from `offset` ends its first horizon above this many
  // camera sigmas (RMS of its weighted residuals, sqrt(2 cost / residuals)); 0: always.
  double starts_above_noise = 0;
  // Iterations of each other start (the one from `offset` runs to the stage's own rule); the
  // lowest then goes on to that rule. 0: each to the stage's own rule.
  int start_iterations = 0;
};

// The interval a fitted latency offset is kept in, from the experiments' timing: within half a
// camera period (a larger error is a wrong experiment file, not a fraction of a tick to fit), and
// a frame read no later than it arrives (offset >= -configured latency).
struct LatencyBounds {
  double low = 0, high = 0;  // s
  double latency = 0;        // s: the shortest configured latency
};
LatencyBounds latency_bounds(const std::vector<Experiment>& experiments);

struct IdentificationOptions {
  std::vector<ParameterSpec> spec = std::vector<ParameterSpec>(sim::kNumLambda);
  Anchor anchor;
  Vec6d sigma = (Vec6d() << 2e-5, 2e-5, 2e-5, 5e-5, 5e-5, 5e-5).finished();  // m, rad per channel
  Loss loss = Loss::Squared;
  double loss_scale = 3.0;          // in units of sigma
  double tol1 = 1e-3;               // eq. (35) relative cost change (last stage)
  double tol2 = 1e-8;               // eq. (35) relative parameter change
  int max_iterations = 40;          // per stage
  // Growing record prefixes fitted in turn (fractions of each record; the last must be 1).
  std::vector<double> horizons = {0.15, 0.35, 1.0};
  double stage_tol1 = 1e-3;         // eq. (35) first rule for the stages before the last
  double prior_log_sigma = 0.7;        // weak prior on log(parameter / start); 0 = none
  double initial_trust_region = 0.1;   // Ceres LM: 1 / initial damping (coordinates are logs)
  double min_relative_decrease = 1e-2; // accept a step only if it realises this share
  double uncertainty_block = 1.0;   // s: block length of the sandwich covariance (uncertainty.hpp)
  double rank_tolerance = 1e-7;     // sigma_i / sigma_1 of the weighted Jacobian below which
                                    // a direction counts as unidentifiable
  double rel_sigma_flag = 0.15;     // Mata et al. 2008: flag parameters whose sigma / |value| exceeds it
  double qr_eps = 1e-3;             // structural analysis on the reference's regressor
  StartOptions start;               // the start search and the stuck test (convergence.hpp)
  LatencyOptions latency;           // the pose stream's latency offset, fitted by default
  int threads = 2;                  // experiments evaluated in parallel
  bool verbose = false;
  ProgressFunction progress;        // called after each LM iteration (progress.hpp); empty: silent

  // Every numeric setting and the anchor range-checked, in one place (core/settings.hpp): the
  // first setting out of range, its key named as in the settings file ("loss.scale", "threads",
  // "stopping.tol1", ...) and what is expected instead of what it holds; nullopt if all are in
  // range. validate throws it as vcloe::Error "<where> '<key>': <message>".
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where = "identification option") const;
};

constexpr int kMaxIdentificationThreads = 64;
// The settings' ranges beside those of the camera (docs/identification.md, "The settings' ranges"):
// noise_sigma.* at least a nanometre / nanoradian (at most defaults::kMaxCameraNoise*), loss.scale
// in sigmas, prior_log_sigma 0 or within its bounds, initial_trust_region within Ceres' own limits
// of the radius, rel_sigma_flag at most 1000 %, start.check_above_noise at most 1000 sigmas.
constexpr double kMinNoiseSigma = 1e-9;
constexpr double kMinLossScale = 1e-3, kMaxLossScale = 1e3;
constexpr double kMinPriorLogSigma = 1e-3, kMaxPriorLogSigma = 100;
constexpr double kMinTrustRegion = 1e-32, kMaxTrustRegion = 1e16;
constexpr double kMaxRelSigmaFlag = 10;
constexpr double kMaxCheckAboveNoise = 1e3;

struct ParameterResult {
  int index = 0;
  double prior = 0, value = 0;
  double sigma = 0, rel_sigma = 0;  // honest: noise, coloured residuals and sub-fit disagreement
  double sigma_camera = 0;          // what the camera noise alone would give (for comparison)
  double interval_low = 0, interval_high = 0;  // 95 % (spread.hpp: log coordinates, or Gaussian for a first moment)
  double prior_pull = 0;  // shift of the value by the weak prior, in sigma
  // Identified: free, excited, not in the Jacobian's null space, rel_sigma <= the flag and
  // the value not set by the weak prior (prior_pull <= kMaxPriorPull).
  bool identified = false;
  bool flagged = false;     // rel_sigma above the flag threshold
  std::string status;       // "identified", "fixed", "fixed (anchor)", "not excited", ...
};

// The latency offset as fitted (or held), with its honest sigma from the same covariance as Lambda's.
struct LatencyResult {
  bool fitted = false;                  // a coordinate of the fit that the data determine
  double value = 0;                     // s: fitted, or held (latency.offset)
  double sigma = 0, sigma_camera = 0;   // s; 0 when not fitted
  double low = 0, high = 0;             // s: the bounds it was fitted in (LatencyBounds)
  double prior_pull = 0;                // shift by the weak prior, in sigma
  std::string status;                   // "fitted", "held (latency.fit: false)", "not excited ...", ...
  // The status of a fitted offset: "fitted", or "fitted, at its bound (...)" within 1e-3 of the
  // bounds' span of one (the writer's and the report reader's one rule).
  static std::string fitted_status(double value, double low, double high);
};

struct IdentificationResult {
  sim::LambdaVector<double> lambda;     // identified (fixed entries at their priors/anchor)
  std::vector<ParameterResult> parameters;  // all 70, registry order
  std::vector<std::array<double, 6>> before_rms, after_rms;  // per experiment, mm and mrad
  int iterations = 0;
  double seconds = 0;
  double cpu_seconds = 0;          // user + system of this process during identify() (all threads)
  StartRecord start;               // what the start search did (convergence.hpp)
  ConvergenceCheck convergence;    // converged or stuck, and why (convergence.hpp)
  double jacobian_cost_ratio = 0;  // one Jacobian evaluation / one residual evaluation (wall)
  int identified_count = 0;        // of the 70 parameters of Lambda (the latency offset is not one)
  LatencyResult latency;           // the pose stream's latency offset (a nuisance parameter)
  std::vector<std::string> consistency;  // physical-consistency violations of the result
  std::vector<std::string> moved;        // moments the poses do not see, moved to consistency
  std::string termination;
  int rejected_steps = 0;                // trial steps where the twin failed or the cost rose
  int failed_simulations = 0;            // trial points where the twin diverged (step rejected)
  Adequacy adequacy;                       // the residual against the camera noise (adequacy.hpp)
  Eigen::MatrixXd covariance;              // 70 x 70 of the values (zero rows for what was not fitted)
  std::vector<double> singular_values;     // of the weighted Jacobian at the solution, largest first
  double rank_tolerance = 0;               // the cut: singular values below it x the largest are null
};

constexpr double kMaxPriorPull = 0.5;  // a value the weak prior moved by more sigma is set by it

// A fitted parameter's status (docs/identification.md, "Identified"), the one rule: only in
// combination, else poorly determined when flagged, else set by the weak prior when its pull
// exceeds kMaxPriorPull, else "identified". The fit writes it; the report's reader checks it.
std::string fitted_status(bool combination, bool flagged, double prior_pull);

// The default specification (docs/identification.md): the masses of the cranks and links are
// fixed at their given values (weighed before assembly: with free link and crank masses, a
// link's mass is dynamically equivalent to point masses at its ends, which the platform and
// crank parameters absorb), each link's Ix and Iy are tied (the model uses (Ix + Iy) / 2),
// everything else is free.
std::vector<ParameterSpec> default_specification();

// The checks identify() makes before any simulation: the options (validate()), an anchor, at
// least one parameter neither fixed nor the anchor, each measured trace finite and one pose per
// exposure (or per exposure its `frames` names), a payload experiment beside one without for the payload anchor, and
// the latency offset inside its bounds (fitted) or no later than the configured latency (held).
void check_identification_inputs(const std::vector<Experiment>& exps, const IdentificationOptions& o);

// Throws vcloe::Error when an option is out of range (IdentificationOptions::validate), when
// there is no anchor, when a measured trace does not match its reference, or when the twin
// cannot even run at the priors.
IdentificationResult identify(const sim::RobotModel& model, const sim::LambdaVector<double>& prior,
                              const servo::OuterGains& gains, const std::vector<Experiment>& experiments,
                              const IdentificationOptions& options);

// Per-axis RMS of measured - twin(lambda) for one experiment: [x, y, z] mm, [a, b, g] mrad; the
// twin's camera at the latency offset (s).
// The output error of one frame: measured - twin, positions subtracted and angles as rotations
// (the measured pose's Euler triple nearest the twin's: a trace whose gamma is the same rotation
// + 2 pi fits as the original; d/d twin stays -1). Bit for bit measured - twin without wraps.
// Every residual of identify (the fit's rows, rms_error) is formed here.
inline Vec6d measured_minus_twin(const Vec6d& measured, const Vec6d& twin) { return -pose_difference(twin, measured); }

std::array<double, 6> rms_error(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                                const servo::OuterGains& gains, const Experiment& experiment,
                                const std::string& where = "", double latency_offset = 0);

}  // namespace vcloe::oe_ident
