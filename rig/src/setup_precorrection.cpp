// The pre-corrected command of a run (docs/control.md): read, checked against the run's reference,
// the robot's safety monitor and the model it was made with, and put on the setup.
#include <filesystem>
#include <sstream>

#include "vcloe/bridge/safety.hpp"
#include "vcloe/core/input_file.hpp"
#include "vcloe/control/precorrect.hpp"
#include "vcloe/control/precorrection_file.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/file_now.hpp"
#include "vcloe/rig/serve.hpp"
#include "vcloe/rig/setup.hpp"

namespace vcloe::rig {

std::string not_at_rest(const ExperimentSetup& s) {
  const excitation::TrajectorySample at = s.trajectory.sample(0.0);
  const double v0 = at.chi_dot.cwiseAbs().maxCoeff(), a0 = at.chi_ddot.cwiseAbs().maxCoeff();
  if (!(v0 > 1e-9 || a0 > 1e-9)) return "";
  std::ostringstream t;
  t.precision(4);
  t << s.reference_file << " does not start at rest (|chi_dot(0)| " << v0 << ", |chi_ddot(0)| " << a0
    << " in m/s and rad/s, m/s^2 and rad/s^2): a robot standing at its start cannot follow its first instants "
       "(`vcloe trajectory random --at-rest` draws one that does; docs/control.md)";
  return t.str();
}

void check_command_followable(const ExperimentSetup& s, const std::vector<Vec6d>& command, const std::string& what) {
  bridge::SafetyLimits limits;
  limits.joint_limit = s.model.joint_limit;
  const double period = s.experiment.timing.controller_period();
  bridge::SafetyMonitor monitor(limits, s.experiment.timing.camera_period(), period);
  if (command.empty()) return;
  // Where the robot stands at t = 0 (servo::start_hold: the first command less the pre-correction's
  // first-tick step), moved to from the reference's start command before the run.
  const Vec6d stand = command.front() - s.reference.start_step;
  if (const std::string path = move_path_problem(s.model, s.reference.start_theta, stand, s.reference.start_pose);
      !path.empty())
    fail(what, "where the robot stands at t = 0 (its first command less the first tick's step): the move there from "
                   "the start command of " + (s.reference_file.empty() ? std::string("the reference") : s.reference_file) +
                   " on " + (s.robot_file.empty() ? std::string("the robot file") : s.robot_file) + ": " + path);
  monitor.on_command(stand, -1);  // within the joint range
  monitor.set_applied(stand);
  for (std::size_t k = 0; k < command.size(); ++k) {
    monitor.on_command(command[k], static_cast<std::int64_t>(k));
    monitor.limit(command[k]);
    if (!monitor.stop() && monitor.limited_ticks() == 0) continue;
    const double t = static_cast<double>(k) * period;
    const std::string why = "at t = " + exact_number(t) + " s: " +
                            (monitor.stop() ? monitor.stop()->detail
                                            : "it moves faster than the joint rate limit of " +
                                                  exact_number(limits.max_command_speed) + " rad/s") +
                            " (the robot's safety monitor would stop or hold it back; docs/protocol.md, Safety)";
    // Beyond the rate limit in the first camera period of a reference that starts moving: the start
    // is the cause, not `what` (a model's gains, a trial's command): session 20's probe, class L.
    // Any other stop (a joint out of range) is the command's own.
    const std::string start = not_at_rest(s);
    const bool rate = !monitor.stop() || monitor.stop()->reason == bridge::StopReason::CommandRateLimit;
    if (!start.empty() && rate && t < s.experiment.timing.camera_period()) fail(start, what + " " + why);
    fail(what, why);
  }
}

namespace {
// A pre-correction is what its model pre-corrects along the run's reference (control::precorrect,
// vcloe precorrect's own, every tick compared): a command edited with the CSV's hash made again,
// or a learnt command relabelled "precorrection" in its sidecar, was driven as written (probe 33,
// h01, p10). A learnt command is of trials on its robot: nothing recomputes it (its truth is checked).
void check_precorrection_reproduced(const control::PrecorrectionFile& f, const std::string& file, const sim::RobotFile& model,
                                    const ExperimentSetup& s) {
  const control::PreCorrection pc =
      control::precorrect(model.model, model.lambda, s.reference.clock, control::motion_of(s.trajectory));
  if (pc.command.size() != f.command.size())
    fail(file, "has " + std::to_string(f.command.size()) + " ticks, but its model " + f.model.path + " pre-corrects " +
                   std::to_string(pc.command.size()) + " along " + s.reference_file + ": run vcloe precorrect again");
  for (std::size_t k = 0; k < pc.command.size(); ++k)
    for (int i = 0; i < 6; ++i)
      if (!(std::abs(f.command[k](i) - pc.command[k](i)) <= 1e-9 * (1 + std::abs(pc.command[k](i)))))
        fail(file + ":" + std::to_string(k + 2), "column 'cmd_theta" + std::to_string(i + 1) + "': " + exact_number(f.command[k](i)) +
                                                  ", but its model " + f.model.path + " pre-corrects " + exact_number(pc.command[k](i)) +
                                                  " along " + s.reference_file + " (edited since vcloe precorrect wrote it?); run vcloe "
                                                  "precorrect again");
}
}  // namespace

std::vector<Vec6d> precorrection_for(const ExperimentSetup& s, const std::string& file, Vec6d* start_step) {
  const control::PrecorrectionFile f = control::read_precorrection(file);
  control::check_precorrection_for(f, file, s.reference_file, s.experiment.timing.controller_hz, s.reference.clock.total_ticks);
  const FileNow model_now = file_now(f.model);
  if (model_now != FileNow::AsRecorded)
    fail(file, "was made with the model " + (f.model.none() ? std::string("(none recorded)") : f.model.path) +
                   " (key 'model' of " + sidecar_path(file) + "), which " +
                   (model_now == FileNow::Changed ? "has changed since" : "cannot be read") +
                   ": the robot it was made for cannot be checked");
  const std::string& robot = s.controller_file.empty() ? s.robot_file : s.controller_file;  // (a calibrated plant of it too)
  const sim::RobotFile model = sim::load_robot(f.model.path);
  if (const int i = sim::first_differing_leg(model.model, s.model);
      i >= 0 && !is_calibrated_from(sim::calibrated_from(read_input_file(f.model.path, InputKind::Yaml)), robot))
    fail(file, "was made for another robot (" + f.model.path + ": geometry of leg " + std::to_string(i + 1) +
                   " differs from " + s.robot_file + ")");
  if (f.kind == control::kKindPrecorrection) check_precorrection_reproduced(f, file, model, s);
  // Where the robot stands: the first command less its model's first-tick step (servo::start_hold).
  ExperimentSetup at = s;
  at.reference.start_step = control::start_step(model.model, model.lambda, s.reference.clock, control::motion_of(s.trajectory));
  if (start_step) *start_step = at.reference.start_step;
  // The commands as the live robot applies them (bridge::SafetyMonitor): one rule for the rig and
  // the in-process run, checked before any motion.
  check_command_followable(at, f.command, file + ": its command cannot be followed");
  return control::correction_of(s.reference, s.experiment.outer, f.command);
}

void check_loop_of(const std::string& file, const std::string& loop, const ExperimentSetup& s, const std::string& how) {
  const servo::OuterGains& g = s.experiment.outer;
  if (loop == control::kLoopDrives && !(g.kp.isZero(0) && g.ki.isZero(0) && g.kd.isZero(0)))
    fail(file, "was learnt on the drives' loop alone (key 'loop' of " + sidecar_path(file) + ": \"drives\"): " + how +
                   " with the outer gains zero (experiment outer_pid kp, ki, kd: 0), not " +
                   (s.experiment.source.empty() ? std::string("the default experiment's") : s.experiment.source + "'s"));
}

void check_learnt_on(const std::string& file, const std::string& truth_file, const std::string& what) {
  const control::PrecorrectionFile f = control::read_precorrection(file);
  if (f.kind != control::kKindLearnt) return;
  const std::string now = sha256_file(truth_file);
  if (f.truth.sha256 != now)
    fail(file, "was learnt on the virtual robot " + f.truth.path + " (SHA-256 " + f.truth.sha256.substr(0, 12) +
                   "…, key 'truth' of " + sidecar_path(file) + "), not on " + truth_file + " (SHA-256 " + now.substr(0, 12) +
                   "…), " + what + ": a learnt command is its robot's (vcloe learn --truth " + truth_file +
                   " learns one for it; vcloe precorrect makes a model's)");
}

void use_precorrection(ExperimentSetup& s, const std::string& file) {
  if (file.empty()) return;
  check_loop_of(file, control::read_precorrection(file).loop, s, "run it");
  s.reference.command_correction = precorrection_for(s, file, &s.reference.start_step);
  s.precorrection_file = file;
}

void use_recorded_precorrection(ExperimentSetup& s, const PoseTrace& t, const std::string& trace_file) {
  const std::optional<RecordedFile> rec = recorded_file(t, "precorrection", trace_file);  // gone: named
  if (!rec) return;
  if (sha256_file_now(rec->path) != rec->sha256)
    fail(sidecar_path(trace_file), "records the pre-corrected command " + rec->path +
                                       ", which has changed since the run (SHA-256 differs): the twin cannot be "
                                       "driven with the command the robot got");
  use_precorrection(s, rec->path);
}

}  // namespace vcloe::rig
