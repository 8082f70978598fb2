// `vcloe learn` (learn.hpp).
#include "vcloe/workflow/learn.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

#include "vcloe/control/precorrect.hpp"
#include "vcloe/control/precorrection_file.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/core/rotation_difference.hpp"
#include "vcloe/core/seed_range.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/workflow/control.hpp"

namespace vcloe::workflow {

namespace {

LearnTrial measure_trial(const PoseTrace& t, const Vec6d& sigma, int trial) {
  double p = 0, a = 0, tp = 0, ta = 0;
  for (std::size_t j = 0; j < t.size(); ++j) {
    const Vec6d e = pose_difference(t.measured[j], t.reference[j]);
    p += e.head<3>().squaredNorm() / 3, a += e.tail<3>().squaredNorm() / 3;
    if (j < t.truth.size()) {
      const Vec6d d = pose_difference(t.truth[j], t.reference[j]);
      tp += d.head<3>().squaredNorm() / 3, ta += d.tail<3>().squaredNorm() / 3;
    }
  }
  const double n = static_cast<double>(t.size());
  LearnTrial r;
  r.trial = trial, r.position_mm = 1e3 * std::sqrt(p / n), r.angle_mrad = 1e3 * std::sqrt(a / n);
  r.true_position_mm = 1e3 * std::sqrt(tp / n), r.true_angle_mrad = 1e3 * std::sqrt(ta / n);
  r.over_noise = std::max(r.position_mm / (1e3 * sigma(0)), r.angle_mrad / (1e3 * sigma(3)));
  return r;
}

// The friction learnt trial by trial (LearningGains::friction; docs/control.md, "Friction
// learnt"): the model's lambda with the last estimate, and the pre-correction it gives
// (control::precorrect, the one of `vcloe precorrect`).
class FrictionLearner {
 public:
  FrictionLearner(const sim::RobotFile& model, const rig::ExperimentSetup& s)
      : model_(model), s_(s), lambda_(model.lambda), precorrection_(precorrect_with(lambda_)) {}

  // After a trial run with `drives` (what the drives received per tick): the estimate, in words in
  // `trial`, and the change of the pre-correction it makes.
  std::vector<Vec6d> update(const PoseTrace& t, const std::vector<Vec6d>& drives, bool viscous, LearnTrial& trial) {
    control::FrictionFitOptions o;
    o.apply_viscous = viscous;
    trial.friction_estimate = control::estimate_friction(model_.model, lambda_, s_.reference.clock, {t.measured, drives}, o);
    trial.friction = control::describe(trial.friction_estimate, lambda_);
    lambda_ = control::with_friction(lambda_, trial.friction_estimate);
    std::vector<Vec6d> next = precorrect_with(lambda_);
    std::vector<Vec6d> change(next.size());
    for (std::size_t k = 0; k < next.size(); ++k) change[k] = next[k] - precorrection_[k];
    precorrection_ = std::move(next);
    return change;
  }

 private:
  std::vector<Vec6d> precorrect_with(const sim::LambdaVector<double>& lambda) const {
    return control::precorrect(model_.model, lambda, s_.reference.clock, control::motion_of(s_.trajectory)).command;
  }
  const sim::RobotFile& model_;
  const rig::ExperimentSetup& s_;
  sim::LambdaVector<double> lambda_;
  std::vector<Vec6d> precorrection_;
};

// q_{j+1} with the friction learnt (docs/control.md, "Friction learnt"). After the first trial the
// estimate replaces the start's friction: q_2 = q_1 + (the pre-correction's change), no learning
// update (the trial's error is mostly the friction's, which the change removes; both would count
// it twice). After later trials the learning law's update plus the change less the part of it the
// update already takes up inside Q's band: q_{j+1} = learn(q_j) + (1 - gamma Q) change.
std::vector<Vec6d> with_friction_change(const rig::ExperimentSetup& s, const std::vector<Vec6d>& command,
                                        std::vector<Vec6d> learnt, const std::vector<Vec6d>& change,
                                        const control::LearningGains& gains, int trial) {
  if (trial == 1) {
    learnt = command;
  } else {
    const std::vector<Vec6d> q = control::zero_phase_lowpass(change, gains, s.experiment.timing.controller_hz);
    for (std::size_t k = 0; k < learnt.size(); ++k) learnt[k] -= gains.gain * q[k];
  }
  for (std::size_t k = 0; k < learnt.size(); ++k) learnt[k] += change[k];
  return learnt;
}

// The friction estimated after a trial, per joint (the learn report's JSON).
nlohmann::json friction_json(const control::FrictionEstimate& e) {
  nlohmann::json out = nlohmann::json::array();
  for (const control::JointFriction& f : e)
    out.push_back({{"coulomb", f.coulomb}, {"viscous", f.viscous}, {"estimated", f.estimated}, {"clamped", f.clamped},
                   {"why", f.why}});
  return out;
}

}  // namespace

rig::ExperimentSetup trial_setup(const rig::ExperimentSetup& setup, LearningLoop loop) {
  rig::ExperimentSetup s = setup;
  if (loop == LearningLoop::drives) {
    s.experiment.outer.kp.setZero();
    s.experiment.outer.ki.setZero();
    s.experiment.outer.kd.setZero();
    s.experiment.outer.literal = false;  // U = IK(chi_d) held + the correction: the command itself
  }
  return s;
}

LearnOutcome learn_on_virtual_robot(const rig::ExperimentSetup& setup, const sim::RobotFile& truth, const rig::VirtualRun& run,
                                    const std::vector<Vec6d>& start, const control::LearningGains& gains, int trials,
                                    LearningLoop loop, const sim::RobotFile& model,
                                    const std::function<void(const LearnTrial&)>& progress,
                                    const std::function<void(const PoseTrace&)>& observe, const std::string& truth_file) {
  const rig::ExperimentSetup s = trial_setup(setup, loop);
  gains.validate(s.experiment.timing.controller_hz, s.reference.duration);
  const std::vector<Vec6d> ideal = control::ideal_commands(s.reference, s.experiment.outer);
  std::optional<control::DrivesModel> drives;
  if (gains.law == control::LearningLaw::inverse) drives = control::drives_model(model.model, model.lambda, s.reference);
  std::optional<FrictionLearner> friction;
  if (gains.friction) friction.emplace(model, s);
  LearnOutcome out;
  std::vector<Vec6d> command = start;
  std::vector<double> errors;
  for (int j = 1; j <= trials; ++j) {
    rig::check_command_followable(s, command, "the command of trial " + std::to_string(j));  // before it moves
    rig::ExperimentSetup trial = s;
    trial.reference.command_correction = control::correction_of(s.reference, s.experiment.outer, command);
    rig::VirtualRun r = run;
    r.seed = run.seed + static_cast<std::uint64_t>(j - 1);
    const PoseTrace t = rig::virtual_trace(trial, truth, r, truth_file);
    out.trials.push_back(measure_trial(t, defaults::noise_yardstick(run.noise_sigma), j));
    std::vector<Vec6d> change;
    if (friction)  // after every trial, the last too: its estimate is reported
      change = friction->update(t, control::drives_commands(s.reference, ideal, command, {t.measured, t.command}),
                                gains.friction_viscous, out.trials.back());
    if (progress) progress(out.trials.back());
    if (observe) observe(t);
    errors.push_back(out.trials.back().over_noise);
    if (errors.back() <= errors[out.best]) out.best = out.trials.size() - 1, out.command = command;
    if (control::stopped_improving(errors)) {
      out.stopped_improving = true;
      break;
    }
    if (j < trials) {
      std::vector<Vec6d> next = control::learn_update(s.reference, ideal, command, {t.measured, t.command}, gains,
                                                      drives ? &*drives : nullptr);
      command = friction ? with_friction_change(s, command, std::move(next), change, gains, j) : std::move(next);
    }
  }
  return out;
}

void LearnOptions::validate() const {
  if (trials < 1) fail("--trials", "expected at least 1 trial, got " + std::to_string(trials));
  // Trial j runs seed + j - 1: the last in range, never wrapped round to 0 (the one check of seeds).
  throw_if(seed_range_problem("--seed", seed, static_cast<std::uint64_t>(trials), std::numeric_limits<std::uint64_t>::max() - 1), "");
  throw_if(defaults::camera_noise_problem(noise_position, noise_angle), "");
  if (!model.empty() && !precorrection.empty())
    fail("--precorrection", "give the start as --model or as --precorrection, not both");
  IoPlan(force).input(robot, "--robot").input(truth, "--truth").input(experiment, "--experiment")
      .input(reference, "--reference").input(model, "--model").input_trace(precorrection, "--precorrection")
      .output_trace(out, "--out").check();
}

namespace {

// The start: the command of --precorrection (checked against this run) or precorrect of --model;
// its first-tick step on s (the trials' robot stands at the first command less it: servo::start_hold).
std::vector<Vec6d> start_command(const LearnOptions& o, rig::ExperimentSetup& s, FileRecord& model) {
  if (!o.precorrection.empty()) {
    const control::PrecorrectionFile f = control::read_precorrection(o.precorrection);
    // The loop its trials run in (a command of the drives' loop alone inside the servo: refused, as
    // every run refuses it) and, learnt before, on this virtual robot: one rule each, the runs'.
    rig::check_loop_of(o.precorrection, f.loop, trial_setup(s, o.loop), "learn from it");
    rig::check_learnt_on(o.precorrection, o.truth, "the virtual robot these trials run on (--truth)");
    rig::precorrection_for(s, o.precorrection, &s.reference.start_step);  // another reference, rate or robot: refused here
    model = f.model;
    return {f.command.begin(), f.command.begin() + s.reference.clock.total_ticks};
  }
  const std::string m = o.model.empty() ? o.robot : o.model;
  const sim::RobotFile file = sim::load_robot(m);
  rig::check_model_of_robot(m, file.model, o.robot, s.model, "--robot");
  model = file_record(m);
  const control::PreCorrection pc = control::precorrect(file.model, file.lambda, s.reference.clock, control::motion_of(s.trajectory));
  if (!pc.command.empty()) s.reference.start_step = pc.command.front() - pc.theta.front();
  return pc.command;
}

}  // namespace

Report learn_to_file(const LearnOptions& o, const std::function<void(const LearnTrial&)>& progress) {
  o.validate();
  rig::ExperimentSetup s = rig::load_setup(o.robot, o.experiment, o.reference);
  o.gains.validate(s.experiment.timing.controller_hz, s.reference.duration);
  control::PrecorrectionFile f;
  const std::vector<Vec6d> start = start_command(o, s, f.model);
  rig::VirtualRun run;
  run.seed = o.seed;
  run.noise_sigma = defaults::camera_noise_sigma(o.noise_position, o.noise_angle);
  run.departures = hw::load_virtual_rig(o.truth);
  // The inverse law's model: --model's, else the robot file's priors (also with --precorrection).
  const sim::RobotFile model = sim::load_robot(o.model.empty() ? o.robot : o.model);
  const LearnOutcome l =
      learn_on_virtual_robot(s, sim::load_robot(o.truth, true), run, start, o.gains, o.trials, o.loop, model, progress,
                             {}, o.truth);
  f.controller_hz = s.experiment.timing.controller_hz;
  f.command = l.command;
  f.loop = o.loop == LearningLoop::drives ? control::kLoopDrives : control::kLoopServo;
  f.kind = control::kKindLearnt, f.truth = file_record(o.truth);  // learnt, and on which virtual robot
  f.robot = file_record(o.robot), f.reference = file_record(o.reference), f.experiment = file_record(o.experiment);
  f.software_version = defaults::software_version();
  control::write_precorrection(o.out, f, o.force);
  const LearnTrial& b = l.trials[l.best];
  std::ostringstream t;
  t << (l.stopped_improving ? "stopped improving after trial " : "ran ") << l.trials.size()
    << (l.stopped_improving ? "" : " trials") << "; best trial " << b.trial << ": " << fixed(b.position_mm, 4) << " mm, "
    << fixed(b.angle_mrad, 4) << " mrad, " << fixed(b.over_noise, 2) << "x the camera noise\nwrote " << o.out << " and "
    << sidecar_path(o.out) << " (the command of trial " << b.trial << ", " << l.command.size() << " ticks"
    << (o.loop == LearningLoop::drives ? "; run it with the outer gains zero: it was learnt on the drives' loop alone" : "")
    << ")\n";
  // ILC's premise: every trial starts from the same state, which a robot standing at the start
  // can follow only if the reference starts at rest (docs/control.md).
  if (const std::string start = rig::not_at_rest(s); !start.empty())
    t << "note: " << start << "; no trial learns them away\n";
  // A noise-free camera (--noise-* 0): the ratios above are over the default camera noise.
  const std::string yardstick = defaults::noise_yardstick_note(run.noise_sigma, "the trials' camera (--noise-position " +
                                                               exact_number(o.noise_position) + " --noise-angle " +
                                                               exact_number(o.noise_angle) + ")");
  if (!yardstick.empty()) t << "note: " << yardstick << "\n";
  Report r;
  r.text = t.str();
  nlohmann::json trials = nlohmann::json::array();
  for (const LearnTrial& x : l.trials) {
    trials.push_back({{"trial", x.trial}, {"position_mm", x.position_mm}, {"angle_mrad", x.angle_mrad}, {"over_noise", x.over_noise},
                      {"true_position_mm", x.true_position_mm}, {"true_angle_mrad", x.true_angle_mrad}});
    if (!x.friction.empty()) trials.back()["friction"] = friction_json(x.friction_estimate);
  }
  const Vec6d over = defaults::noise_yardstick(run.noise_sigma);
  r.json = {{"trials", trials}, {"best_trial", b.trial}, {"stopped_improving", l.stopped_improving}, {"out", o.out},
            {"loop", f.loop}, {"over_noise_of", {over(0), over(1), over(2), over(3), over(4), over(5)}}};
  return r;
}

}  // namespace vcloe::workflow
