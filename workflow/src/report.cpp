// The HTML report's inputs computed and the report written (report.hpp).
#include "vcloe/workflow/report.hpp"
#include "vcloe/core/input_file.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "calibration_output.hpp"
#include "vcloe/calib/kinematic_model.hpp"
#include "vcloe/calib/static_trace.hpp"
#include "vcloe/control/motion.hpp"
#include "vcloe/control/predict.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/rig/checked_trace.hpp"
#include "vcloe/core/file_now.hpp"
#include "vcloe/core/provenance.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/excitation/optimizer.hpp"
#include "vcloe/report/html.hpp"
#include "vcloe/rig/setup.hpp"
#include "vcloe/workflow/control.hpp"

namespace vcloe::workflow {

namespace {

double observability_index(const rig::ExperimentSetup& s) {
  const excitation::ExcitationProblem p;
  Eigen::MatrixXd H;
  if (!excitation::stack_regressor(s.model, s.trajectory, p.regressor_period, H)) return 0;
  return excitation::evaluate_criteria(H, excitation::excited_columns(H, p.qr_eps).kept, p.scale_columns).observability_index;
}

// A file the report names, as read now, against the SHA-256 recorded in the report: the plots
// drawn from it must show what the tables were computed from.
void check_recorded_hash(const FileRecord& f, const std::string& what, const std::string& report_file) {
  if (f.none() || f.sha256.empty()) return;
  if (sha256_file(f.path) != f.sha256)
    fail(f.path, "has changed since " + report_file + " was written (its " + what +
                     ", SHA-256 differs from the one recorded there): the figures would show another " + what +
                     " than the tables; run vcloe identify again");
}

// The validation must be of the report's model (the same file), or its tables are of another.
void check_validation_model(const report::ValidationResult& v, const std::string& validation_file,
                            const report::ReportInputs& files) {
  std::error_code ec;
  if (v.model.empty() || files.model.none()) return;
  if (!v.model_sha256.empty() && !files.model.sha256.empty()) {  // the bytes validated against those identified
    std::string a = v.model_sha256;
    std::transform(a.begin(), a.end(), a.begin(), [](unsigned char c) { return std::tolower(c); });
    if (a != files.model.sha256)
      fail(validation_file, "is the validation of another model than " + files.model.path + " (the model of the "
                            "identification report; SHA-256 differs: re-identified or edited since it was validated?): "
                            "validate that model again");
    return;
  }
  if (std::filesystem::exists(v.model, ec) && std::filesystem::exists(files.model.path, ec)
          ? !std::filesystem::equivalent(v.model, files.model.path, ec)
          : std::filesystem::weakly_canonical(v.model, ec) != std::filesystem::weakly_canonical(files.model.path, ec))
    fail(validation_file, "is the validation of " + v.model + ", not of " + files.model.path +
                              " (the model of the identification report): give the validation of that model");
}

// What the report draws beside the identification was recorded on the robot its traces were: a
// validation's truth (a virtual robot), a tracking trace's sidecar, against the measured trace's
// (provenance_mismatch, the one check of recorded inputs that belong together).
void check_same_robot(const Provenance& drawn, const std::string& what, const report::ReportInputs& files) {
  if (files.measured.none()) return;
  const Provenance measured = provenance_of(read_trace(files.measured.path), files.measured.path);
  if (const auto m = provenance_mismatch(drawn, measured, Together::OneRobot))
    fail(drawn.file, "is " + what + " on another robot than the identification's: " + *m +
                         "; give one of the robot it was identified on");
}

void check_validation_robot(const report::ValidationResult& v, const std::string& validation_file,
                            const report::ReportInputs& files) {
  std::error_code ec;
  if (v.truth.empty() || !std::filesystem::is_regular_file(v.truth, ec)) return;  // a truth gone: cannot tell
  check_same_robot({validation_file, "virtual", file_record(v.truth), std::nullopt, std::nullopt}, "a validation", files);
}

// A file a result records, there still as it recorded it (core/file_now.hpp).
bool unchanged(const FileRecord& f) { return file_now(f) == FileNow::AsRecorded; }

// The model of a prediction shown beside the identification: still as the prediction recorded
// it (SHA-256), and of the identification's robot (its geometry: rig::check_model_of_robot).
void check_prediction_model(const FileRecord& model, const FileRecord& band, const std::string& prediction,
                            const report::ReportInputs& files) {
  // The band is drawn as "of its identification's covariance": that report, as it was (session 29's probe).
  if (!band.none() && !unchanged(band))
    fail(prediction + " (--prediction)", "draws its sigma band from " + band.path + " (SHA-256 " + band.sha256.substr(0, 12) +
                                             "…), which is gone or has changed since: the band is not that report's; run "
                                             "vcloe predict again");
  if (files.robot.none()) return;
  if (!unchanged(model))
    fail(prediction + " (--prediction)", "was computed with the model " + model.path + " (SHA-256 " +
                                             model.sha256.substr(0, 12) + "…), which is gone or has changed since: its "
                                             "robot cannot be checked; run vcloe predict again");
  rig::check_model_of_robot(model.path, sim::load_robot(model.path).model, files.robot.path,
                            sim::load_robot(files.robot.path).model, "the robot file of the identification");
}

// The report's numbers against the files it records (their hashes compared before): its values
// are the model's, its priors the robot file's; a hand-edited value drew a model not written.
void check_recorded_values(const report::IdentificationReport& rep, const std::string& file) {
  const report::ReportInputs& f = rep.inputs;
  report::check_values_of_file(rep, file, "value", sim::load_robot(f.model.path).lambda,
                               "the model it records, " + f.model.path + " (SHA-256 as recorded),");
  report::check_values_of_file(rep, file, "prior", sim::load_robot(f.robot.path).lambda,
                               "the robot file it records, " + f.robot.path + " (SHA-256 as recorded),");
}

// Each parameter's `key` (start, truth_in_gauge) against what `want` gives from the file it records.
void check_calibration_values(const report::CalibrationReport& c, const std::string& file, const char* key,
                              const calib::KinematicVector& want, const std::string& source) {
  for (int k = 0; k < calib::kKinematicParameters; ++k) {
    const report::CalibrationParameter& p = c.parameters[static_cast<std::size_t>(k)];
    const double got = std::string(key) == "start" ? p.start : p.truth_in_gauge.value_or(NAN);
    if (!(std::abs(got - want(k)) <= 1e-9 * (1 + std::abs(want(k)))))
      fail(file, "key 'parameters[" + std::to_string(k) + "]." + key + "' (" + p.name + "): " + exact_number(got) + ", but " +
                     source + " gives " + exact_number(want(k)) + ": the file does not describe it (edited since "
                     "written?); run vcloe calibrate kinematics again");
  }
}

// The starts of a calibration are the drawn geometry of the robot file it records
// (calib::nominal_parameters, as calibrate starts there), and its truth_in_gauge the truth file it
// records in the fit's gauge (detail::truth_in_gauge, the writer's), when those files are there unchanged.
void check_calibration_starts(const report::CalibrationReport& c, const std::string& file) {
  if (!unchanged(c.robot)) return;  // gone or replaced: check_calibration says which robot the calibration is of
  const sim::RobotModel drawn = sim::load_robot(c.robot.path).model;
  const calib::KinematicVector start = calib::nominal_parameters(drawn).vector();
  check_calibration_values(c, file, "start", start, "the robot file it records, " + c.robot.path + " (SHA-256 as recorded),");
  if (c.truth && c.camera_residual && unchanged(*c.truth))
    check_calibration_values(c, file, "truth_in_gauge",
                             detail::truth_in_gauge(drawn, start, sim::load_robot(c.truth->path).model, *c.camera_residual),
                             "the truth it records, " + c.truth->path + " (SHA-256 as recorded), in the fit's gauge");
}

// A calibration of the identification's robot file, or of the file that one was calibrated from
// (its head names it: the chain calibrate -> identify), fitted to the static-pose file it records,
// unchanged and holding as many poses, of the robot the identification's traces were recorded on.
void check_calibration(const report::CalibrationReport& c, const std::string& file, const report::ReportInputs& f,
                       const std::string& report_file) {
  const FileRecord from = sim::calibrated_from(read_input_file(f.robot.path, InputKind::Yaml));
  if (c.robot.sha256 != f.robot.sha256 && (from.none() || c.robot.sha256 != from.sha256))
    fail(file, "is a calibration of " + c.robot.path + " (SHA-256 " + c.robot.sha256.substr(0, 12) + "...), not of " +
                   f.robot.path + " (SHA-256 " + f.robot.sha256.substr(0, 12) + "...), the robot file of " + report_file +
                   (from.none() ? std::string() : ", nor of " + from.path + " that one was calibrated from") +
                   ": give the calibration of that robot");
  // Its data as recorded (session 21's probe, K2: a static-pose file edited since was drawn), and
  // measured on the identification's robot (a calibration of another virtual truth was drawn):
  // the checks the report's own inputs and a validation get.
  const FileNow poses_now = file_now(c.poses);  // gone: cannot tell
  if (poses_now == FileNow::Changed)
    fail(c.poses.path, "has changed since " + file + " was written (its static-pose file, SHA-256 differs from the "
                       "one recorded there): the calibration drawn is not of these poses; run vcloe calibrate "
                       "kinematics again");
  std::error_code ec;
  if (c.truth && !c.truth->none() && std::filesystem::is_regular_file(c.truth->path, ec))
    check_same_robot({file, "virtual", *c.truth, std::nullopt, std::nullopt}, "a kinematic calibration", f);
  check_calibration_starts(c, file);
  if (poses_now == FileNow::Gone) return;
  const calib::StaticTrace poses = calib::read_static_trace(c.poses.path);
  const std::size_t n = poses.poses.size();
  if (n != static_cast<std::size_t>(c.poses_used))
    fail(file, "key 'poses': " + std::to_string(c.poses_used) + ", but the static-pose file it records, " + c.poses.path +
                   " (SHA-256 as recorded), holds " + std::to_string(n) + " poses");
  std::vector<int> frames;
  for (const calib::StaticPose& p : poses.poses) frames.push_back(p.frames);
  report::check_residual_of_poses(c, file, frames);
}

// The drive torques along the excitation at the camera period: the identified model's with the
// report's sigma band, and the priors' (control::predict; docs/control.md).
report::TorqueSeries torque_series(const rig::ExperimentSetup& setup, const report::IdentificationReport& rep,
                                   const std::string& report_file) {
  const sim::RobotFile model = sim::load_robot(rep.inputs.model.path);
  const control::SampledMotion motion =
      control::sample_motion(control::motion_of(setup.trajectory), setup.experiment.timing.camera_period());
  const control::XiCovariance cov = xi_covariance(rep, report_file);
  const control::Prediction id = control::predict(model.model, model.lambda.head<sim::kNumXi>(), motion, &cov);
  const control::Prediction prior = control::predict(setup.model, setup.lambda.head<sim::kNumXi>(), motion);
  report::TorqueSeries t;
  for (std::size_t n = 0; n < id.load.size(); ++n) {
    t.time.push_back(static_cast<double>(n) * id.period);
    t.identified.push_back(id.load[n].head<6>());
    t.sigma.push_back(id.sigma[n].head<6>());
    t.priors.push_back(prior.load[n].head<6>());
  }
  return t;
}

// The first experiment re-run from the files named in the report's inputs.
report::ReportTraces report_traces(const report::IdentificationReport& rep, const std::string& report_file) {
  const report::ReportInputs& files = rep.inputs;
  const PoseTrace measured = rig::read_checked_trace(files.measured.path);
  rig::ExperimentSetup setup =
      rig::load_setup(files.robot.path, files.experiment ? files.experiment->path : "", files.reference.path,
                      rig::controller_of_run(files.robot.path, measured, files.measured.path));
  report::ReportTraces t;
  t.measured = measured;
  rig::use_recorded_precorrection(setup, t.measured, files.measured.path);  // the command its robot got
  t.before = rig::twin_trace(setup, setup.lambda);
  t.after = rig::twin_trace(setup, sim::load_robot(files.model.path).lambda);
  t.reference.name = "reference";
  for (double time = 0; time <= setup.trajectory.duration + 1e-9; time += 0.02) {
    t.reference.time.push_back(time);
    t.reference.pose.push_back(setup.trajectory.pose(time));
  }
  t.observability_index = observability_index(setup);
  t.torque = torque_series(setup, rep, report_file);
  return t;
}

}  // namespace

void ReportOptions::validate() const {
  // Loads are drawn beside the runs of their reference, the one check of which reference they are
  // along (probe 32, p11: without a run, a prediction along another reference was drawn as the tracked one).
  if (!tracking.prediction.empty() && tracking.servo_alone.empty() && tracking.precorrected.empty() && tracking.learnt.empty())
    fail("--prediction", "the loads are drawn beside the runs of their reference, checked to be along it: give the runs "
                         "(--servo-alone, --precorrected or --learnt)");
  IoPlan plan(force);
  plan.input(identification, "--identification").input(validation, "--validation").input(calibration, "--calibration");
  plan.input_trace(tracking.servo_alone, "--servo-alone").input_trace(tracking.precorrected, "--precorrected")
      .input_trace(tracking.learnt, "--learnt").input_trace(tracking.prediction, "--prediction");
  try {  // the files the report names are read too (the twin re-run); an unreadable report is said when read
    const report::ReportInputs f = report::read_identification_report(identification).inputs;
    plan.input(f.robot.path, "the robot file named in " + identification).input_trace(f.measured.path, "the trace named in " + identification)
        .input(f.reference.path, "the reference named in " + identification).input(f.model.path, "the model named in " + identification);
    if (f.experiment) plan.input(f.experiment->path, "the experiment named in " + identification);
  } catch (const Error&) {
  }
  report::plan_report(plan, out, "--out");
  plan.check();
}

void write_report(const ReportOptions& o) {
  o.validate();
  report::ReportInput in{o.identification, report::read_identification_report(o.identification), std::nullopt, "",
                         std::nullopt, {}, std::nullopt};
  const report::ReportInputs& f = in.identification.inputs;
  if (!o.validation.empty()) {
    in.validation = report::read_validation(o.validation);
    check_validation_model(*in.validation, o.validation, f);
    check_validation_robot(*in.validation, o.validation, f);
  }
  for (const auto& [entry, what] : {std::pair{&f.robot, "robot file"}, {&f.measured, "measured trace"},
                                    {&f.reference, "reference"}, {&f.model, "identified model"}})
    check_recorded_hash(*entry, what, o.identification);
  if (f.experiment) check_recorded_hash(*f.experiment, "experiment", o.identification);
  check_recorded_values(in.identification, o.identification);
  if (!o.calibration.empty()) {
    in.calibration_file = o.calibration;
    in.calibration = report::read_calibration_report(o.calibration);
    check_calibration(*in.calibration, o.calibration, f, o.identification);
  }
  if (!o.tracking.empty()) {  // read and checked to belong together before anything is drawn
    TrackingInputs t = read_tracking_inputs(o.tracking);
    for (const report::TrackingRun& r : t.runs) check_same_robot(provenance_of(r.trace, r.file), "a tracking run", f);
    if (t.loads) check_prediction_model(t.prediction_model, t.prediction_band, o.tracking.prediction, f);
    in.tracking = std::move(t.runs), in.loads = std::move(t.loads);
  }
  std::string html;
  try {  // a figure gnuplot could not draw (a file-size limit, a full TMPDIR) is named after it, under the report's name
    html = report::identification_report_html(in, report_traces(in.identification, o.identification));
  } catch (const Error& e) {
    fail(o.out, std::string("not written: ") + e.what());
  }
  write_file_atomically(o.out, html, o.force);
}

}  // namespace vcloe::workflow
