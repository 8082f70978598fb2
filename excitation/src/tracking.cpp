// excitation/src/tracking.cpp — the candidate through the twin (tracking.hpp).
#include "vcloe/excitation/tracking.hpp"

#include <algorithm>
#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/servo/twin.hpp"
#include "vcloe/sim/kinematics.hpp"
#include "vcloe/sim/payload.hpp"
#include "vcloe/sim/safety.hpp"

namespace vcloe::excitation {

double pose_exceedance(const sim::RobotModel& limits, const Vec6d& chi) {
  const sim::PoseCheck pc = sim::check_pose(limits, chi);
  if (pc.status == sim::PoseStatus::Unreachable || pc.status == sim::PoseStatus::OtherAssemblyMode) return 1.0;
  double v = std::max(0.0, pc.theta.cwiseAbs().maxCoeff() / limits.joint_limit - 1);
  v += std::max(0.0, 1 - pc.min_transmission / limits.min_transmission);
  v += std::max(0.0, 1 - pc.parallel_conditioning / limits.min_parallel_conditioning);
  return v;
}

std::optional<SettingProblem> TrackingSettings::problem() const {
  auto bad = [](const char* key, const std::string& message) { return SettingProblem{key, message}; };
  if (!(margin >= 1 && margin <= 10))
    return bad("tracking.margin", "tracking.margin: expected 1 to 10 times the safety stop's singularity margins, got " +
                                      exact_number(margin));
  // No payload (mass 0, no moments), or one that passes the one payload validator every other
  // payload reader applies (sim::payload_problem): this one skipped it (1e-300 kg, moments against
  // the triangle inequality), and a mass of 0 beside moments was silently no payload.
  if (payload_mass == 0 && !payload_inertia.isZero(0))
    return bad("tracking.payload.mass",
               "tracking.payload.mass: 0 (no payload) beside moments " + exact_number(payload_inertia(0)) + ", " +
                   exact_number(payload_inertia(1)) + ", " + exact_number(payload_inertia(2)) +
                   " kg*m^2 in tracking.payload.inertia: a payload without mass has no moments; give its mass, "
                   "or moments 0 for no payload case");
  if (payload_mass != 0)
    if (const auto p = sim::payload_problem(payload_mass, payload_inertia)) {
      const std::string key = std::string("tracking.payload.") + p->key;
      return bad(key.c_str(), key + ": " + p->message);
    }
  if (!(platform >= 0 && platform < 10))
    return bad("tracking.family.platform",
               "tracking.family.platform: expected a relative increase in [0, 10), got " + exact_number(platform));
  if (!(gains >= 0 && gains < 1))
    return bad("tracking.family.gains",
               "tracking.family.gains: expected a relative decrease in [0, 1), got " + exact_number(gains));
  return std::nullopt;
}

void TrackingSettings::validate(const std::string& where) const { throw_if(problem(), where); }

std::vector<TrackingRun> tracking_runs(const sim::LambdaVector<double>& priors, const TrackingSettings& s) {
  std::vector<TrackingRun> runs{{"priors", priors}};
  if (s.payload_mass > 0) runs.push_back({"priors + payload", sim::with_platform_payload(priors, s.payload_mass, s.payload_inertia)});
  if (s.platform > 0 || s.gains > 0) {
    sim::LambdaVector<double> l = priors;
    for (int k = 0; k < 4; ++k) l(sim::platform_index(k)) *= 1 + s.platform;
    for (int k = 0; k < 3; ++k) l(sim::first_moment_index(k)) *= 1 + s.platform;  // m c: the same centre of mass
    for (int g : {sim::kGainP, sim::kGainI, sim::kGainD}) l(g) *= 1 - s.gains;
    runs.push_back({"heavier, softer + payload", sim::with_platform_payload(l, s.payload_mass, s.payload_inertia)});
  }
  return runs;
}

namespace {

// Folds one simulated exposure into the case's extremes and summed exceedance.
void record_exposure(const sim::RobotModel& envelope, const sim::RobotModel& stop, const Vec6d& chi, TrackingCase& c) {
  ++c.exposures;
  c.exceedance += pose_exceedance(envelope, chi);
  const sim::PoseCheck pc = sim::check_pose(stop, chi);
  c.min_transmission = std::min(c.min_transmission, pc.min_transmission);
  c.min_parallel_conditioning = std::min(c.min_parallel_conditioning, pc.parallel_conditioning);
  c.max_abs_theta = std::max(c.max_abs_theta, pc.theta.cwiseAbs().maxCoeff());
}

// One case: the twin's motion along the prepared reference, each exposure's true pose checked.
// Whole: every exposure (the margins reported). FirstFailure: the run stops at the first exposure
// past the envelope (the same verdict: the same poses tested in the same order), and the
// exceedance is that pose's plus the fraction of the run not carried, so a candidate carried
// longer costs less.
TrackingCase run_case(const sim::RobotModel& model, const sim::RobotModel& envelope, const TwinLoop& loop,
                      const servo::PreparedReference& ref, const TrackingRun& run, TrackingCheck mode) {
  TrackingCase c;
  c.name = run.name;
  const sim::RobotModel stop = sim::safety_envelope(model);
  servo::LoopResult<double> r;
  if (mode == TrackingCheck::Whole) {
    r = servo::simulate_twin<double>(model, run.lambda, ref, loop.experiment.outer);
    for (const Vec6d& chi : r.true_pose) record_exposure(envelope, stop, chi, c);
  } else {
    const servo::TickClock& clock = ref.clock;
    double refused_at = -1;  // s: the exposure past the envelope
    auto watch = [&](const servo::TickRecord& tick, const Vec6d& chi) {
      const int next = tick.tick + 1;  // the pose after this tick is the one the next tick exposes
      if (next >= clock.total_ticks || clock.exposed_at(next) < 0) return true;
      record_exposure(envelope, stop, chi, c);
      if (c.exceedance == 0) return true;
      refused_at = clock.time(next);
      return false;
    };
    Vec6d start;  // frame 0: the standing pose, exposed before the first tick
    if (servo::twin_standing_pose(model, ref, start)) record_exposure(envelope, stop, start, c);
    if (c.exceedance == 0) r = servo::simulate_twin<double>(model, run.lambda, ref, loop.experiment.outer, 0, watch);
    if (c.exceedance > 0) {
      r.ok = true;  // carried until refused: not a failure of the twin
      r.failure.clear();
      c.exceedance += 1 - std::max(0.0, refused_at) / std::max(ref.duration, 1e-9);
    }
  }
  c.ran = r.ok;
  c.failure = r.failure;
  c.margin = std::min(c.min_transmission / stop.min_transmission,
                      c.min_parallel_conditioning / stop.min_parallel_conditioning);
  return c;
}

}  // namespace

TrackingReport check_tracking(const sim::RobotModel& model, const TwinLoop& loop, const FourierTrajectory& trajectory,
                              const TrackingSettings& s, TrackingCheck mode) {
  TrackingReport report;
  // The stop's envelope with the settings' margin: the robot file's joint range (the stop's less
  // its widening), singularity margins `margin` times the stop's.
  const sim::RobotModel envelope = sim::safety_envelope(model, 0.0, sim::kSafetyStopMarginScale * s.margin);
  const servo::PreparedReference ref = servo::prepare_reference(model, loop.experiment.timing, trajectory);
  std::vector<TrackingRun> runs = tracking_runs(loop.lambda, s);
  if (mode == TrackingCheck::FirstFailure) std::reverse(runs.begin(), runs.end());  // the heaviest load first
  for (const TrackingRun& run : runs) {
    TrackingCase c = run_case(model, envelope, loop, ref, run, mode);
    const double e = c.exceedance + (c.ran ? 0.0 : 1e3);
    report.exceedance += e;
    report.margin = std::min(report.margin, c.margin);
    if (e > 0 && report.ok) {
      report.ok = false;
      report.reason = "the twin's motion (" + c.name + ") " +
                      (c.ran ? "comes within " + exact_number(s.margin) + " times the safety stop's singularity margins "
                               "or leaves the joint range (margin " + exact_number(c.margin) + ")"
                             : "stops: " + c.failure);
    }
    report.cases.push_back(std::move(c));
    if (!report.ok && mode == TrackingCheck::FirstFailure) break;
  }
  return report;
}

}  // namespace vcloe::excitation
