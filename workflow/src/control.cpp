// `vcloe predict` and `vcloe precorrect` (control.hpp).
#include "vcloe/workflow/control.hpp"

#include <cmath>
#include <filesystem>
#include <sstream>

#include "vcloe/control/precorrect.hpp"
#include "vcloe/control/precorrection_file.hpp"
#include "vcloe/control/prediction_file.hpp"
#include "vcloe/core/defaults.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/series_size.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/rig/setup.hpp"

namespace vcloe::workflow {

namespace {

std::string report_of(const std::string& model) { return model + ".report.json"; }

// The setup (reference checked against the robot's limits before anything) and the model, which
// must be of the same robot.
struct Loaded {
  rig::ExperimentSetup setup;
  sim::RobotFile model;
};

Loaded load(const std::string& model, const std::string& robot, const std::string& experiment,
            const std::string& reference, bool prepare_loop) {
  Loaded l{rig::load_setup(robot, experiment, reference, "", prepare_loop), sim::load_robot(model)};
  rig::check_model_of_robot(model, l.model.model, robot, l.setup.model, "--robot");
  return l;
}

const char* const kJointNames[3] = {"B", "T", "A"};

// The summary: per drive RMS and largest torque and sigma; per joint kind the largest force.
Report predict_summary(const control::Prediction& p, const std::string& band) {
  Report r;
  std::ostringstream t;
  t << "drive   RMS (N*m)   max |tau| (N*m)   max sigma (N*m)\n";
  nlohmann::json drives = nlohmann::json::array();
  for (int i = 0; i < 6; ++i) {
    double sum = 0, top = 0, sig = 0;
    for (std::size_t n = 0; n < p.load.size(); ++n) {
      const double tau = p.load[n](control::torque_row(i));
      sum += tau * tau, top = std::max(top, std::abs(tau));
      if (!p.sigma.empty()) sig = std::max(sig, p.sigma[n](control::torque_row(i)));
    }
    const double rms = std::sqrt(sum / static_cast<double>(p.load.size()));
    // Without a band no sigma was computed: n/a, not 0 (probe 33, p02).
    t << "  " << i + 1 << "     " << fixed(rms, 3) << "       " << fixed(top, 3) << "            "
      << (p.sigma.empty() ? std::string("n/a") : fixed(sig, 4)) << "\n";
    drives.push_back({{"rms", rms}, {"max", top}, {"max_sigma", p.sigma.empty() ? nlohmann::json() : nlohmann::json(sig)}});
  }
  nlohmann::json forces = nlohmann::json::object();
  for (int j = 0; j < 3; ++j) {
    double top = 0;
    for (const auto& load : p.load)
      for (int i = 0; i < 6; ++i) top = std::max(top, load.segment<3>(control::force_row(i, j, 0)).norm());
    t << "largest force in the " << kJointNames[j] << " joints: " << fixed(top, 1) << " N\n";
    forces[kJointNames[j]] = top;
  }
  t << band << "\n";
  r.text = t.str();
  r.json = {{"drives", drives}, {"max_joint_force", forces}, {"band", band}, {"samples", p.load.size()}};
  return r;
}

}  // namespace

control::XiCovariance xi_covariance(const report::IdentificationReport& rep, const std::string& file) {
  if (rep.parameters.size() != static_cast<std::size_t>(sim::kNumLambda))
    fail(file, "expected the " + std::to_string(sim::kNumLambda) + " parameters of the registry");
  control::XiCovariance C = control::XiCovariance::Zero();
  for (int i = 0; i < sim::kNumXi; ++i) {
    C(i, i) = rep.parameters[i].sigma * rep.parameters[i].sigma;
    if (!std::isfinite(C(i, i)))  // a variance beyond a double would write inf into every band
      fail(file, "key 'parameters[" + std::to_string(i) + "].sigma': " + exact_number(rep.parameters[i].sigma) +
                     " squared is beyond a double; expected a sigma whose variance is a number");
  }
  const auto& names = rep.correlation.parameters;
  for (std::size_t a = 0; a < names.size(); ++a)
    for (std::size_t b = 0; b < names.size(); ++b) {
      const int i = sim::parameter_index(names[a]), j = sim::parameter_index(names[b]);
      if (i < 0 || j < 0) fail(file, "key 'correlation.parameters': unknown parameter '" + names[i < 0 ? a : b] + "'");
      if (i < sim::kNumXi && j < sim::kNumXi && i != j)
        C(i, j) = rep.correlation.matrix[a][b] * rep.parameters[i].sigma * rep.parameters[j].sigma;
    }
  return C;
}

void PredictOptions::validate() const {
  if (!(period >= 0) || !std::isfinite(period)) fail("--period", "expected a non-negative number of seconds, got " + exact_number(period));
  IoPlan(force).input(model, "--model").input(robot, "--robot").input(experiment, "--experiment")
      .input(reference, "--reference").output_trace(out, "--out").check();  // the CSV and its sidecar
}

Predicted compute_prediction(const PredictOptions& o, bool band) {
  o.validate();
  const Loaded l = load(o.model, o.robot, o.experiment, o.reference, false);  // no loop: its latency is no matter
  const double duration = l.setup.trajectory.duration;
  if (o.period > 0 && !(o.period <= duration))  // one sample, t = 0, would pass for the whole reference
    fail("--period", "expected at most the reference's duration, " + exact_number(duration) + " s of " + o.reference +
                         ", got " + exact_number(o.period) + " s");
  // Each sample: the motion, the loads and their sigma (the prediction and its file), their CSV text (the one bound of a series).
  constexpr double kBytesPerSample =
      sizeof(control::MotionSample) + 4 * sizeof(control::LoadVector) + (1 + 2 * control::kLoadSize) * 25.0;
  if (o.period > 0) throw_if(series_size_problem("--period", duration, o.period, kBytesPerSample, o.reference), "");
  Predicted out;
  out.band = "no uncertainty band: " + report_of(o.model) + " not found";
  if (band) {
    const report::IdentificationReport rep = report::read_identification_report(report_of(o.model));
    if (rep.inputs.model.sha256 != sha256_file(o.model))
      fail(report_of(o.model), "is the report of another model (its SHA-256 of the model differs from " + o.model + ")");
    report::check_values_of_file(rep, report_of(o.model), "value", l.model.lambda, "the model it records, " + o.model + ",");
    out.covariance = xi_covariance(rep, report_of(o.model));
    out.band = "sigma: the identification's, propagated linearly through the regressor (" + report_of(o.model) + ")";
  }
  const double period = o.period > 0 ? o.period : l.setup.experiment.timing.camera_period();
  const control::SampledMotion motion = control::sample_motion(control::motion_of(l.setup.trajectory), period);
  out.prediction = control::predict(l.model.model, l.model.lambda.head<sim::kNumXi>(), motion,
                                    out.covariance ? &*out.covariance : nullptr);
  return out;
}

Report predict_to_file(const PredictOptions& o) {
  const bool band = std::filesystem::exists(report_of(o.model));
  const Predicted d = compute_prediction(o, band);
  const control::Prediction& p = d.prediction;
  if (!o.out.empty()) {
    control::PredictionFile f = control::prediction_file(p);
    f.model = file_record(o.model), f.robot = file_record(o.robot), f.reference = file_record(o.reference);
    f.experiment = file_record(o.experiment), f.band = d.covariance ? file_record(report_of(o.model)) : FileRecord{};
    f.software_version = defaults::software_version();
    control::write_prediction(o.out, f, o.force);
  }
  Report r = predict_summary(p, d.band);
  if (!o.out.empty())
    r.text += "wrote " + o.out + " and " + sidecar_path(o.out) + " (" + std::to_string(p.load.size()) + " samples)\n";
  return r;
}

void PrecorrectOptions::validate() const {
  IoPlan(force).input(model, "--model").input(robot, "--robot").input(experiment, "--experiment")
      .input(reference, "--reference").output_trace(out, "--out").check();
}

Report precorrect_to_file(const PrecorrectOptions& o) {
  o.validate();
  const Loaded l = load(o.model, o.robot, o.experiment, o.reference, true);
  // The model's drive gains first: a law without an inverse, or one so weak that the command it
  // asks for is beyond the robot, is the model's (its drive_pid), not the reference's.
  const std::string gains = o.model + ": key 'drive_pid'";
  const servo::DriveGains<double> drives = servo::drive_gains<double>(l.model.lambda);
  control::check_drives_invertible(drives, l.setup.experiment.timing.controller_period(), gains);
  const control::PreCorrection pc =
      control::precorrect(l.model.model, l.model.lambda, l.setup.reference.clock, control::motion_of(l.setup.trajectory));
  rig::ExperimentSetup at = l.setup;  // the robot stands at theta_d(0) (servo::start_hold)
  if (!pc.command.empty()) at.reference.start_step = pc.command.front() - pc.theta.front();
  rig::check_command_followable(at, pc.command,
                                gains + " (lp " + exact_number(drives.lp) + ", li " + exact_number(drives.li) +
                                    ", ld " + exact_number(drives.ld) + ") asks for a command along " + o.reference + " that the robot cannot follow");
  control::PrecorrectionFile f;
  f.controller_hz = l.setup.experiment.timing.controller_hz;
  f.command = pc.command;
  f.model = file_record(o.model), f.robot = file_record(o.robot), f.reference = file_record(o.reference);
  f.experiment = file_record(o.experiment);
  f.software_version = defaults::software_version();
  control::write_precorrection(o.out, f, o.force);
  double top = 0;
  for (std::size_t k = 0; k < pc.command.size(); ++k) top = std::max(top, (pc.command[k] - pc.theta[k]).cwiseAbs().maxCoeff());
  // The robot is brought to theta_d(0) before the run (servo::start_hold): how far that is from the
  // reference's start command (a calibrated model's kinematics, docs/control.md).
  const double start = pc.theta.empty() ? 0 : (pc.theta.front() - l.setup.reference.start_theta).cwiseAbs().maxCoeff();
  Report r;
  r.text = "wrote " + o.out + " and " + sidecar_path(o.out) + " (" + std::to_string(pc.command.size()) +
           " ticks); largest pre-correction " + fixed(top * 1e3, 2) + " mrad; the robot stands at the reference's start on this model, " +
           fixed(start * 1e3, 2) + " mrad from the reference's start command\n";
  r.json = {{"out", o.out}, {"ticks", pc.command.size()}, {"max_correction_mrad", top * 1e3}, {"start_offset_mrad", start * 1e3}};
  return r;
}

}  // namespace vcloe::workflow
