#pragma once
// vcloe_rig: the experiment and the live rig, composed above the libraries they join.
// setup.hpp: an experiment as the commands set it up: robot, timing, reference; and where the
// one loop (servo::run_loop) is composed with a robot (the twin, or the virtual robot of hw) and
// a pose source (composed here, at the top, not inside servo or hw: docs/architecture.md).
// Shared by the simulate, run, identify, validate and demo commands and the live rig.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "vcloe/core/defaults.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/hw/virtual_rig.hpp"
#include "vcloe/hw/virtual_robot.hpp"
#include "vcloe/oe_ident/problem.hpp"
#include "vcloe/servo/reference.hpp"

namespace vcloe::rig {

struct ExperimentSetup {
  std::string robot_file, experiment_file, reference_file;
  std::string precorrection_file;         // the command correction's file (use_precorrection), or none
  sim::RobotModel model;                  // the robot's structure: the plant the twin simulates
  sim::LambdaVector<double> lambda;       // the robot file's values (priors or identified model)
  // The robot file the outer controller runs on (the reference's IK feedforward and start
  // command): robot_file's, unless the setup re-runs a recorded run with a calibrated robot file
  // (controller_of_run): then the file the run was recorded with.
  std::string controller_file;
  sim::RobotModel controller;
  servo::ExperimentConfig experiment;     // timing and outer controller
  excitation::FourierTrajectory trajectory;
  servo::PreparedReference reference;
};

// Loads the three files and checks every reference sample against the robot's limits before
// any motion: an infeasible reference is refused naming the time and the joint. Without
// prepare_loop (a command that runs no loop: predict) the reference is not prepared for the
// closed loop, so the loop's own conditions (a latency shorter than the run) are not asked.
// With controller_file, the reference is prepared on that robot file (controller_of_run).
ExperimentSetup load_setup(const std::string& robot_file, const std::string& experiment_file,
                           const std::string& reference_file, const std::string& controller_file = "",
                           bool prepare_loop = true);
ExperimentSetup make_setup(const sim::RobotFile& robot, const servo::ExperimentConfig& experiment,
                           const excitation::FourierTrajectory& trajectory, const std::string& reference_name,
                           const sim::RobotModel* controller = nullptr, bool prepare_loop = true);

// The robot file whose controller ran the recorded `trace`, for a twin of that run from
// robot_file: robot_file itself, unless robot_file is a kinematic calibration (its head names
// the robot file it was calibrated from, with SHA-256: sim::calibrated_from). Then the trace's
// sidecar must record that same robot file (same SHA-256, unchanged since): the run's controller
// is that file's, the plant the calibrated one's. Otherwise refused in one line naming both files.
std::string controller_of_run(const std::string& robot_file, const PoseTrace& trace, const std::string& trace_file);
// A --model given beside a robot file (control, predict, precorrect, learn, validate): the same
// geometry (sim::first_differing_leg), or a calibration of that very file (its head names it with
// the SHA-256 it has now: is_calibrated_from, controller_of_run's rule); else "m.yaml: is a model
// of another robot: geometry of leg 1 differs from robot.yaml (--robot)…" naming the option.
void check_model_of_robot(const std::string& model_file, const sim::RobotModel& model, const std::string& robot_file,
                          const sim::RobotModel& robot, const std::string& robot_option);

// The one rule of a calibration's controller: whether `file` is the robot file `from` (a
// calibrated file's head, sim::calibrated_from) names — the same SHA-256 now. False for none.
bool is_calibrated_from(const FileRecord& from, const std::string& file);
// The robot file whose controller drives the plant of `robot_file` when no recorded run says
// (validate's fresh runs): robot_file itself, unless its head names the file it was calibrated
// from (a calibrated file, or a model identified from one) — then that file, refused in one line
// naming both if it is gone or changed since (SHA-256).
std::string controller_of(const std::string& robot_file);

// The sidecar's common part: format, source, software, timing, and the robot, experiment and
// reference files (absolute paths and SHA-256), docs/traces.md.
TraceMetadata trace_metadata(const ExperimentSetup& setup, const std::string& source);

// A closed loop that stopped (diverged, left the workspace) is said with what the user gave:
// "<plant> under the controller of e.yaml (outer_pid: kp, ki, kd) and the drives of r.yaml
// (drive_pid), along ref.yaml" — the one prefix of every loop failure (twin, virtual robot, rig).
// The drives named are those of `drives_file`, the plant's (a virtual robot's truth file), or
// when empty the setup's robot file (the twin's).
std::string closed_loop_of(const ExperimentSetup& setup, const std::string& plant, const std::string& drives_file = "");

// The twin's trace (measured = simulated pose) for parameters lambda; with the setup's command
// correction (use_precorrection) its position interface is pre-corrected (docs/control.md).
PoseTrace twin_trace(const ExperimentSetup& setup, const sim::LambdaVector<double>& lambda);

// How the virtual robot is run and measured: its options and the camera. The camera is
// Gaussian pose noise (seeded) unless `camera` is set (e.g. the stereo pose pipeline).
struct VirtualRun {
  hw::VirtualRobotOptions robot;
  Vec6d noise_sigma = defaults::camera_noise_sigma();  // m, rad
  std::uint64_t seed = 1;
  std::function<Vec6d(const Vec6d& true_pose)> camera;
  // The truth file's rig departures (its `virtual_rig:` section, hw::load_virtual_rig): the
  // camera's simulated by virtual_trace (rig/virtual_camera.hpp), the robot's by hw::VirtualRobot.
  hw::VirtualRig departures;
};

// The virtual robot's options for a run of this setup: `base` at the experiment's controller
// rate, standing where its drives hold the start command (IK of the start pose on this setup's
// robot file), with the robot-side departures (platform centre of mass, backlash).
hw::VirtualRobotOptions virtual_robot_options(const ExperimentSetup& setup, const hw::VirtualRobotOptions& base,
                                              const hw::VirtualRig& departures);
// Whether the camera of a virtual run on `truth` departs from the pose of E at its exposure
// (marker frame, camera-to-base residual, latency): virtual_trace then measures through
// rig::VirtualCamera; the live rig's processes refuse such a truth (they do not simulate it).
bool camera_departs(const sim::RobotModel& truth, const hw::VirtualRig& departures);

// The virtual robot's trace: measured poses, true poses, commands; with the setup's command
// correction (use_precorrection) its position interface is pre-corrected.
PoseTrace virtual_trace(const ExperimentSetup& setup, const sim::RobotFile& truth, const VirtualRun& run,
                        const std::string& truth_file, const std::optional<oe_ident::Payload>& payload = std::nullopt);

// An identification experiment from a measured trace recorded on this setup's reference (and with
// its command correction: a trace recorded with one is refused unless the setup uses it). Each row
// is paired with the exposure it measured by its time: a frame the sidecar records as left out
// (the rig's unmeasured frames, docs/traces.md) has no pose in it (oe_ident::Experiment::frames);
// an unrecorded gap, a row between exposures or a trace that ends early is refused at its line.
oe_ident::Experiment to_experiment(const ExperimentSetup& setup, const PoseTrace& measured, const std::string& name,
                                   const std::optional<oe_ident::Payload>& payload = std::nullopt);

// The robot a trace was recorded on must be this setup's controller's (same leg geometry), shown through the
// sidecar's robot entry: the file found, its SHA-256 unchanged, readable. A trace whose robot
// differs or cannot be checked (no sidecar, file moved, changed or unreadable) is refused naming
// why, unless accept_mismatch (--accept-robot-mismatch), which prints a warning instead.
void check_recorded_robot(const ExperimentSetup& setup, const PoseTrace& trace, const std::string& trace_file,
                          bool accept_mismatch);

// The payload a trace's sidecar records must be the one given for it (payload_source: the file
// it came from): a payload trace recorded with another payload or with none, or a trace with a
// payload given without one, is refused naming both. Traces without a sidecar are not checked.
void check_recorded_payload(const PoseTrace& trace, const std::string& trace_file,
                            const std::optional<oe_ident::Payload>& payload, const std::string& payload_source);

// The per-tick correction of a pre-correction file for this setup (docs/control.md): refused,
// naming the file, if it was made for another reference (SHA-256), controller rate or robot
// (leg geometry of the model it records), or whose command the robot's side would stop or hold back
// (check_command_followable, standing at its first command less its model's first-tick step,
// control::start_step: that step in `start_step` if given).
std::vector<Vec6d> precorrection_for(const ExperimentSetup& setup, const std::string& file, Vec6d* start_step = nullptr);
// Drives this setup's runs (twin, virtual robot, recorded sidecar) with the correction of `file`
// (precorrection_for); an empty file: none. A file learnt on the drives' loop alone (sidecar
// `loop`: "drives") is refused unless the experiment's outer gains are all zero.
void use_precorrection(ExperimentSetup& setup, const std::string& file);
// The one rule of a command's loop: one learnt on the drives' loop alone (`loop`: "drives") runs,
// or is learnt on, only with the outer gains of `setup` all zero; `how` says what is done with it
// ("run it", "learn from it"). Throws naming the file and its sidecar's key.
void check_loop_of(const std::string& file, const std::string& loop, const ExperimentSetup& setup, const std::string& how);
// A learnt command (sidecar `kind`: "learnt") drives only the virtual robot its trials ran on: its
// sidecar's `truth` against `truth_file`, the truth `what` drives (SHA-256), refused naming both. A
// model's pre-correction runs on any robot. (`vcloe run`, `robot serve`, `learn --precorrection`.)
void check_learnt_on(const std::string& file, const std::string& truth_file, const std::string& what);
// The same with the pre-correction a trace's sidecar records (`precorrection`), if any: the twin
// re-run on that trace is then driven with the command its robot got. A recorded file gone or
// changed since (SHA-256) is refused in one line naming the sidecar and the file.
void use_recorded_precorrection(ExperimentSetup& setup, const PoseTrace& trace, const std::string& trace_file);

// The joint commands of one run (one per controller tick from the reference's start) as the
// robot's side applies them (bridge::SafetyMonitor: joint range, rate limit per tick): a command
// it would stop or hold back is a vcloe::Error "<what>: at t = … s: <why>", before any motion.
// The robot stands at the start hold before t = 0 (servo::start_hold: the first command less
// setup.reference.start_step, the pre-correction's first-tick step; brought there by the move to
// start, --stand-at), so the rate limit counts from there; the start hold must be within the joint
// range and reachable from the reference's start command on the robot file's kinematics without a
// singularity between (move_path_problem).
// The one rule for `vcloe precorrect` (what it writes) and every run that reads a pre-correction.
// In the first camera period of a reference that does not start at rest (not_at_rest) the
// error names the reference's start as the cause, `what` after it.
void check_command_followable(const ExperimentSetup& setup, const std::vector<Vec6d>& command, const std::string& what);
// "" if the setup's reference starts at rest (chi_dot(0) = chi_ddot(0) = 0: the premise of a
// pre-correction and of learning, docs/control.md); else "<reference> does not start at rest
// (|chi_dot(0)| …, |chi_ddot(0)| …): …", suggesting `trajectory random --at-rest`.
std::string not_at_rest(const ExperimentSetup& setup);

// Prints a warning when the trace's robot did not follow its reference (core/trace_compare.hpp,
// TrackingError: the largest error above half the reference's own motion), naming how far and
// when; the trace is written all the same (it is what happened).
void warn_if_not_following(const PoseTrace& trace, const std::string& path);

// Prints "wrote PATH (N poses, T s) and SIDECAR" after a trace was written.
void print_written(const std::string& path, const PoseTrace& trace);

}  // namespace vcloe::rig
