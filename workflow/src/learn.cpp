// `vcloe learn` (learn.hpp).
#include "vcloe/workflow/learn.hpp"

#include <cmath>
#include <optional>
#include <sstream>

#include "vcloe/control/precorrect.hpp"
#include "vcloe/control/precorrection_file.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/core/rotation_difference.hpp"
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
  LearnTrial r{trial, 1e3 * std::sqrt(p / n), 1e3 * std::sqrt(a / n), 0, 1e3 * std::sqrt(tp / n), 1e3 * std::sqrt(ta / n)};
  r.over_noise = std::max(r.position_mm / (1e3 * sigma(0)), r.angle_mrad / (1e3 * sigma(3)));
  return r;
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
                                    const std::function<void(const PoseTrace&)>& observe) {
  const rig::ExperimentSetup s = trial_setup(setup, loop);
  gains.validate(s.experiment.timing.controller_hz);
  const std::vector<Vec6d> ideal = control::ideal_commands(s.reference, s.experiment.outer);
  std::optional<control::DrivesModel> drives;
  if (gains.law == control::LearningLaw::inverse) drives = control::drives_model(model.model, model.lambda, s.reference);
  LearnOutcome out;
  std::vector<Vec6d> command = start;
  std::vector<double> errors;
  for (int j = 1; j <= trials; ++j) {
    rig::check_command_followable(s, command, "the command of trial " + std::to_string(j));  // before it moves
    rig::ExperimentSetup trial = s;
    trial.reference.command_correction = control::correction_of(s.reference, s.experiment.outer, command);
    rig::VirtualRun r = run;
    r.seed = run.seed + static_cast<std::uint64_t>(j - 1);
    const PoseTrace t = rig::virtual_trace(trial, truth, r, "");
    out.trials.push_back(measure_trial(t, run.noise_sigma, j));
    if (progress) progress(out.trials.back());
    if (observe) observe(t);
    errors.push_back(out.trials.back().over_noise);
    if (errors.back() <= errors[out.best]) out.best = out.trials.size() - 1, out.command = command;
    if (control::stopped_improving(errors)) {
      out.stopped_improving = true;
      break;
    }
    if (j < trials) command = control::learn_update(s.reference, ideal, command, {t.measured, t.command}, gains,
                                                  drives ? &*drives : nullptr);
  }
  return out;
}

void LearnOptions::validate() const {
  if (trials < 1) fail("--trials", "expected at least 1 trial, got " + std::to_string(trials));
  throw_if(defaults::camera_noise_problem(noise_position, noise_angle), "");
  if (!model.empty() && !precorrection.empty())
    fail("--precorrection", "give the start as --model or as --precorrection, not both");
  IoPlan(force).input(robot, "--robot").input(truth, "--truth").input(experiment, "--experiment")
      .input(reference, "--reference").input(model, "--model").input_trace(precorrection, "--precorrection")
      .output_trace(out, "--out").check();
}

namespace {

// The start: the command of --precorrection (checked against this run) or precorrect of --model.
std::vector<Vec6d> start_command(const LearnOptions& o, const rig::ExperimentSetup& s, FileRecord& model) {
  if (!o.precorrection.empty()) {
    rig::precorrection_for(s, o.precorrection);  // another reference, rate or robot: refused here
    const control::PrecorrectionFile f = control::read_precorrection(o.precorrection);
    model = f.model;
    return {f.command.begin(), f.command.begin() + s.reference.clock.total_ticks};
  }
  const std::string m = o.model.empty() ? o.robot : o.model;
  const sim::RobotFile file = sim::load_robot(m);
  rig::check_model_of_robot(m, file.model, o.robot, s.model, "--robot");
  model = file_record(m);
  return control::precorrect(file.model, file.lambda, s.reference.clock, control::motion_of(s.trajectory)).command;
}

}  // namespace

Report learn_to_file(const LearnOptions& o, const std::function<void(const LearnTrial&)>& progress) {
  o.validate();
  const rig::ExperimentSetup s = rig::load_setup(o.robot, o.experiment, o.reference);
  o.gains.validate(s.experiment.timing.controller_hz);
  control::PrecorrectionFile f;
  const std::vector<Vec6d> start = start_command(o, s, f.model);
  rig::VirtualRun run;
  run.seed = o.seed;
  run.noise_sigma = defaults::camera_noise_sigma(o.noise_position, o.noise_angle);
  run.departures = hw::load_virtual_rig(o.truth);
  // The inverse law's model: --model's, else the robot file's priors (also with --precorrection).
  const sim::RobotFile model = sim::load_robot(o.model.empty() ? o.robot : o.model);
  const LearnOutcome l =
      learn_on_virtual_robot(s, sim::load_robot(o.truth, true), run, start, o.gains, o.trials, o.loop, model, progress);
  f.controller_hz = s.experiment.timing.controller_hz;
  f.command = l.command;
  f.loop = o.loop == LearningLoop::drives ? control::kLoopDrives : control::kLoopServo;
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
  const excitation::TrajectorySample at_start = s.trajectory.sample(0.0);
  const double v0 = at_start.chi_dot.cwiseAbs().maxCoeff(), a0 = at_start.chi_ddot.cwiseAbs().maxCoeff();
  if (v0 > 1e-9 || a0 > 1e-9)
    t << "note: the reference does not start at rest (|chi_dot(0)| " << v0 << ", |chi_ddot(0)| " << a0
      << "): the standing robot cannot follow its first instants and no trial learns them away "
         "(vcloe trajectory random --at-rest draws one that does)\n";
  Report r;
  r.text = t.str();
  nlohmann::json trials = nlohmann::json::array();
  for (const LearnTrial& x : l.trials)
    trials.push_back({{"trial", x.trial}, {"position_mm", x.position_mm}, {"angle_mrad", x.angle_mrad}, {"over_noise", x.over_noise},
                      {"true_position_mm", x.true_position_mm}, {"true_angle_mrad", x.true_angle_mrad}});
  r.json = {{"trials", trials}, {"best_trial", b.trial}, {"stopped_improving", l.stopped_improving}, {"out", o.out},
            {"loop", f.loop}};
  return r;
}

}  // namespace vcloe::workflow
