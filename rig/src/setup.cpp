#include "vcloe/rig/setup.hpp"
#include "vcloe/core/input_file.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>

#include "vcloe/core/error.hpp"
#include "vcloe/core/rotation_difference.hpp"
#include "vcloe/core/experiment_copies.hpp"
#include "vcloe/core/trace_compare.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/hw/virtual_robot.hpp"
#include "vcloe/rig/virtual_camera.hpp"
#include "vcloe/servo/twin.hpp"
#include "vcloe/oe_ident/plausible.hpp"

namespace vcloe::rig {

TraceMetadata trace_metadata(const ExperimentSetup& s, const std::string& source) {
  const servo::LoopTiming& t = s.experiment.timing;
  TraceMetadata m;
  m.format = kTraceFormat, m.source = source, m.software_version = defaults::software_version();
  m.controller_hz = t.controller_hz, m.camera_hz = t.camera_hz, m.latency_s = t.latency, m.substeps = t.substeps;
  m.duration_s = s.reference.duration;
  m.outer_form = s.experiment.outer.literal ? "literal" : "feedforward";
  m.robot = file_record(s.controller_file.empty() ? s.robot_file : s.controller_file), m.experiment = file_record(s.experiment_file);
  m.reference = file_record(s.reference_file);
  if (!s.precorrection_file.empty()) m.precorrection = file_record(s.precorrection_file);
  return m;
}

namespace {

PoseTrace to_trace(const ExperimentSetup& s, const servo::LoopResult<double>& r) {
  PoseTrace t;
  t.time = s.reference.exposure_times;
  t.reference = s.reference.reference_at_exposure;
  t.measured = r.measured;
  t.command = r.command;
  return t;
}

}  // namespace

ExperimentSetup make_setup(const sim::RobotFile& robot, const servo::ExperimentConfig& experiment,
                           const excitation::FourierTrajectory& trajectory, const std::string& reference_name,
                           const sim::RobotModel* controller, bool prepare_loop) {
  ExperimentSetup s;
  s.model = robot.model;
  s.lambda = robot.lambda;
  s.controller = controller ? *controller : robot.model;
  const sim::RobotModel& model = s.controller;  // the reference is the controller's
  s.experiment = experiment;
  s.trajectory = trajectory;
  const excitation::FeasibilityReport f = excitation::check_feasibility(model, trajectory);
  if (!f.feasible) fail(reference_name, "reference refused before any motion: " + f.reason);
  if (prepare_loop) s.reference = servo::prepare_reference(model, experiment.timing, trajectory);
  return s;
}

namespace {

// "<file>:<line>: key '<section>.<key>'" where the file sets it, for a check made when another
// file is known (else the file and the key alone: the default was used).
std::string key_where(const std::string& file, const std::string& section, const std::string& key) {
  const YamlNode root = YamlDoc::load(file).root();
  if (const auto s = root.find(section))
    if (const auto k = s->find(key)) return k->where();
  return file + ": key '" + section + "." + key + "'";
}

}  // namespace

ExperimentSetup load_setup(const std::string& robot_file, const std::string& experiment_file,
                           const std::string& reference_file, const std::string& controller_file, bool prepare_loop) {
  const servo::ExperimentConfig experiment =
      experiment_file.empty() ? servo::ExperimentConfig{} : servo::load_experiment(experiment_file);
  const excitation::FourierTrajectory trajectory = excitation::load_trajectory(reference_file);
  // Named here, where both files are known (servo's own check cannot say which file to change).
  if (prepare_loop && !experiment_file.empty() && experiment.timing.latency >= trajectory.duration)
    fail(key_where(experiment_file, "timing", "latency"), exact_number(experiment.timing.latency) +
                                                              " s is not shorter than the " + exact_number(trajectory.duration) +
                                                              " s run of " + reference_file +
                                                              ": no measured pose would ever reach the controller");
  const bool apart = !controller_file.empty() && controller_file != robot_file;
  const sim::RobotModel controller = apart ? sim::load_robot(controller_file).model : sim::RobotModel{};
  ExperimentSetup s = make_setup(sim::load_robot(robot_file), experiment, trajectory, reference_file,
                                 apart ? &controller : nullptr, prepare_loop);
  s.robot_file = robot_file;
  s.controller_file = apart ? controller_file : robot_file;
  s.experiment_file = experiment_file;
  s.reference_file = reference_file;
  return s;
}

std::string closed_loop_of(const ExperimentSetup& s, const std::string& plant, const std::string& drives_file) {
  const std::string experiment = s.experiment_file.empty() ? "the default experiment" : s.experiment_file;
  const std::string& ran = drives_file.empty() ? s.robot_file : drives_file;
  const std::string drives = ran.empty() ? "" : " and the drives of " + ran + " (drive_pid)";
  const std::string reference = s.reference_file.empty() ? "" : ", along " + s.reference_file;
  return plant + " under the controller of " + experiment + " (outer_pid: kp, ki, kd)" + drives + reference;
}

PoseTrace twin_trace(const ExperimentSetup& s, const sim::LambdaVector<double>& lambda) {
  const servo::LoopResult<double> r = servo::simulate_twin<double>(s.model, lambda, s.reference, s.experiment.outer);
  if (!r.ok) fail(closed_loop_of(s, "the twin" + (s.robot_file.empty() ? std::string() : " of " + s.robot_file)), r.failure);
  PoseTrace t = to_trace(s, r);
  t.metadata = trace_metadata(s, "twin");
  return t;
}

hw::VirtualRobotOptions virtual_robot_options(const ExperimentSetup& s, const hw::VirtualRobotOptions& base,
                                              const hw::VirtualRig& departures) {
  hw::VirtualRobotOptions opt = base;
  opt.controller_hz = s.experiment.timing.controller_hz;
  opt.start_command = servo::start_hold(s.reference);  // a pre-corrected run's first command
  opt.backlash = departures.backlash;
  opt.backlash_torque = departures.backlash_torque;
  return opt;
}

bool camera_departs(const sim::RobotModel& truth, const hw::VirtualRig& departures) {
  return truth.marker_frame != Vec6d::Zero() || departures.camera_departs();
}

PoseTrace virtual_trace(const ExperimentSetup& s, const sim::RobotFile& truth, const VirtualRun& run,
                        const std::string& truth_file, const std::optional<oe_ident::Payload>& payload) {
  for (int c = 0; c < 6; ++c)
    if (!(run.noise_sigma(c) >= 0)) fail("virtual robot", "camera noise sigma must be non-negative");
  if (const std::string why = oe_ident::implausible_for_robot(truth.lambda, truth_file.empty() ? "the truth" : truth_file,
                                                              payload, "--payload-mass/--payload-inertia");
      !why.empty())
    throw Error(why);
  const hw::VirtualRobotOptions opt = virtual_robot_options(s, run.robot, run.departures);
  hw::VirtualRobot robot(truth.model, oe_ident::with_payload(truth.lambda, payload), s.reference.start_pose, opt);
  servo::VisualServo<double> outer(s.reference, s.experiment.outer);
  servo::LoopResult<double> r;
  // The robot as the loop sees it: its position interface pre-corrected when a correction is given.
  auto loop = [&](auto& camera) {
    if (s.reference.command_correction.empty()) return servo::run_loop<double>(robot, outer, camera);
    servo::CorrectedRobot<hw::VirtualRobot> corrected(robot, s.reference.command_correction);
    return servo::run_loop<double>(corrected, outer, camera);
  };
  if (camera_departs(truth.model, run.departures)) {
    std::function<Vec6d(const Vec6d&)> measure = run.camera;
    if (!measure) {
      auto noise = std::make_shared<servo::GaussianPoseNoise>(run.noise_sigma, run.seed);
      measure = [noise](const Vec6d& pose) { return noise->measure(0, pose); };
    }
    VirtualCamera camera(truth.model, run.departures, s.reference.clock, robot.pose(), measure, run.seed);
    r = loop(camera);
  } else if (run.camera) {
    servo::PoseFunction camera{run.camera};
    r = loop(camera);
  } else {
    servo::GaussianPoseNoise camera(run.noise_sigma, run.seed);
    r = loop(camera);
  }
  if (!r.ok)  // the truth's drives ran (probe 33, x14: robot.yaml's were named)
    fail(closed_loop_of(s, "the virtual robot" + (truth_file.empty() ? std::string() : " of " + truth_file), truth_file), r.failure);
  PoseTrace t = to_trace(s, r);
  t.truth = r.true_pose;
  t.metadata = trace_metadata(s, "virtual");
  t.metadata.truth = file_record(truth_file);
  t.metadata.seed = run.seed;
  t.metadata.noise_sigma = run.noise_sigma;
  t.metadata.engine = EngineRecord{"MuJoCo 2.2", opt.engine.timestep};
  if (payload) t.metadata.payload = PayloadRecord{payload->mass, payload->inertia};
  return t;
}

namespace {

// Why the robot a trace was recorded on cannot be shown to be the setup's ("" if it can).
std::string robot_problem(const ExperimentSetup& s, const PoseTrace& t, const std::string& trace_file) {
  std::optional<RecordedFile> rec;
  try {
    rec = recorded_file(t, "robot", trace_file);
  } catch (const Error& e) {
    return std::string("cannot be checked against the robot it was recorded on: ") + e.what();
  }
  if (!rec) return t.has_sidecar ? "records no robot file in its sidecar" : "has no sidecar recording its robot file";
  if (rec->sha256.empty()) return "records no SHA-256 of its robot file " + rec->path;
  if (sha256_file(rec->path) != rec->sha256)
    return "was recorded with the robot file " + rec->path + ", which has changed since (SHA-256 differs)";
  sim::RobotModel other;
  try {
    other = sim::load_robot(rec->path).model;
  } catch (const Error& e) {
    return "was recorded with a robot file that cannot be read now: " + std::string(e.what());
  }
  if (const int i = sim::first_differing_leg(other, s.controller); i >= 0)
    return "was recorded on another robot (" + rec->path + ": geometry of leg " + std::to_string(i + 1) +
           " differs from " + s.controller_file + ")";
  return "";
}

}  // namespace

// A calibrated file's geometry against the file its head names: within sim::kCalibrationReach,
// the one bound `calibrate kinematics` writes within. The head is comment lines anyone can copy:
// the geometry itself is compared (session 20's probe, class C: a head copied onto a link 30 mm
// longer was this robot).
void check_calibration_geometry(const std::string& calibrated_file, const sim::RobotModel& calibrated,
                                const std::string& source_file) {
  const std::string moved = sim::calibration_reach_problem(calibrated, sim::load_robot(source_file).model);
  if (moved.empty()) return;
  fail(calibrated_file, "its head names " + source_file + " as the robot file it was calibrated from, but " + moved +
                            " (vcloe calibrate kinematics writes none beyond it): edited since, or a head copied onto "
                            "another robot?");
}

std::string controller_of_run(const std::string& robot_file, const PoseTrace& trace, const std::string& trace_file) {
  const FileRecord from = sim::calibrated_from(read_input_file(robot_file, InputKind::Yaml));
  if (from.none()) return robot_file;
  const std::optional<RecordedFile> rec = recorded_file(trace, "robot", trace_file);
  const std::string recorded = rec ? rec->path + " (SHA-256 " + rec->sha256.substr(0, 12) + "...)" : "no robot file";
  if (!rec || rec->sha256 != from.sha256 || !is_calibrated_from(from, rec->path))
    fail(robot_file, "is calibrated from " + from.path + " (SHA-256 " + from.sha256.substr(0, 12) + "...), but " +
                         trace_file + " was recorded with " + recorded + (rec && rec->sha256 == from.sha256 ? ", changed since" : "") +
                         ": its controller is not the one this calibration was made for");
  check_calibration_geometry(robot_file, sim::load_robot(robot_file).model, rec->path);
  return rec->path;
}

bool is_calibrated_from(const FileRecord& from, const std::string& file) {
  return !from.none() && std::filesystem::is_regular_file(file) && sha256_file(file) == from.sha256;
}

std::string controller_of(const std::string& robot_file) {
  const FileRecord from = sim::calibrated_from(read_input_file(robot_file, InputKind::Yaml));
  if (from.none()) return robot_file;
  if (!is_calibrated_from(from, from.path))
    fail(robot_file, "is calibrated from " + from.path + " (SHA-256 " + from.sha256.substr(0, 12) + "...), which " +
                         (std::filesystem::exists(from.path) ? "has changed since" : "is gone") +
                         ": the controller its plant runs under cannot be loaded");
  check_calibration_geometry(robot_file, sim::load_robot(robot_file).model, from.path);
  return from.path;
}


void check_model_of_robot(const std::string& model_file, const sim::RobotModel& model, const std::string& robot_file,
                          const sim::RobotModel& robot, const std::string& robot_option) {
  // Gravity is the rig's, never identified: a model with another one (edited) predicts other
  // torques for the same motion. Only a calibrated plant has it in the camera's frame.
  const bool same_gravity = (model.gravity - robot.gravity).norm() <= 1e-9 * std::max(1.0, robot.gravity.norm());
  const int leg = sim::first_differing_leg(model, robot);
  if (leg < 0 && same_gravity) return;
  const FileRecord from = sim::calibrated_from(read_input_file(model_file, InputKind::Yaml));
  if (is_calibrated_from(from, robot_file)) {  // a calibrated plant of this robot file
    check_calibration_geometry(model_file, model, robot_file);
    return;
  }
  auto vec = [](const Vec3d& g) { return "[" + exact_number(g(0)) + ", " + exact_number(g(1)) + ", " + exact_number(g(2)) + "]"; };
  if (leg < 0)
    fail(model_file, "gravity is " + vec(model.gravity) + " m/s^2, but " + robot_file + " (" + robot_option + ") has " +
                         vec(robot.gravity) + ": a model of this robot has its gravity (the rig's, never identified); "
                         "edited since it was written?");
  fail(model_file, "is a model of another robot: geometry of leg " + std::to_string(leg + 1) + " differs from " +
                       robot_file + " (" + robot_option + ")" +
                       (from.none() ? std::string(", and its head names no robot file it was calibrated from")
                                    : "; it is calibrated from " + from.path + " (SHA-256 " + from.sha256.substr(0, 12) +
                                          "...), not from " + robot_file + " as it is now"));
}

void check_recorded_robot(const ExperimentSetup& s, const PoseTrace& t, const std::string& trace_file,
                          bool accept_mismatch) {
  if (s.robot_file.empty()) return;
  const std::string problem = robot_problem(s, t, trace_file);
  if (problem.empty()) return;
  if (!accept_mismatch)
    fail(trace_file, problem + "; pass --accept-robot-mismatch to fit it to " + s.robot_file + " anyway");
  std::cerr << "vcloe: warning: " << trace_file << ": " << problem << "; used anyway (--accept-robot-mismatch)\n";
}

void check_recorded_payload(const PoseTrace& t, const std::string& trace_file,
                            const std::optional<oe_ident::Payload>& payload, const std::string& payload_source) {
  if (!t.has_sidecar) return;  // nothing recorded to compare with
  const std::string sidecar = sidecar_path(trace_file);
  const std::optional<PayloadRecord>& recorded = t.metadata.payload;  // its form checked when read
  if (!payload) {
    if (recorded)
      fail(trace_file, "was recorded with a payload (" + sidecar + "); give it as --payload-trace, with the payload");
    return;
  }
  if (!recorded) {
    const std::string source = t.metadata.source.value_or("");
    if (source == "virtual" || source == "twin")
      fail(trace_file, "was recorded without a payload (" + sidecar + " records none), but is given as the run with the payload of " +
                           payload_source);
    return;
  }
  auto same = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); };
  if (!same(payload->mass, recorded->mass))
    fail(payload_source, "payload mass " + exact_number(payload->mass) + " kg disagrees with the " +
                             exact_number(recorded->mass) + " kg recorded in " + sidecar + " for the run of " + trace_file);
  for (int k = 0; k < 3; ++k)
    if (!same(payload->inertia(k), recorded->inertia(k)))
      fail(payload_source, std::string("payload inertia I") + "xyz"[k] + " " + exact_number(payload->inertia(k)) +
                               " kg*m^2 disagrees with the " + exact_number(recorded->inertia(k)) +
                               " kg*m^2 recorded in " + sidecar + " for the run of " + trace_file);
}

void warn_if_not_following(const PoseTrace& t, const std::string& path) {
  const TrackingError e = tracking_error(t, path);
  if (e.followed()) return;
  const bool angle = e.share_angle() >= e.share_position();
  std::cerr << std::setprecision(3) << "vcloe: warning: " << path << ": the robot did not follow the reference: "
            << (angle ? "angle" : "position") << " error up to "
            << (angle ? e.max_angle_rad * 1e3 : e.max_position_m * 1e3) << (angle ? " mrad" : " mm") << " at t = "
            << (angle ? e.time_angle_s : e.time_position_s) << " s, "
            << 100 * (angle ? e.share_angle() : e.share_position()) << " % of the reference's own motion (limit "
            << 100 * kMaxTrackingShare
            << " %): the reference is too fast for the drives, or the model is far from the robot; identification "
               "from this trace is unreliable\n";
}

void print_written(const std::string& path, const PoseTrace& t) {
  std::cout << "wrote " << path << " (" << t.size() << " poses, " << t.time.back() << " s) and " << sidecar_path(path)
            << "\n";
}

}  // namespace vcloe::rig
