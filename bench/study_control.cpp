// study_control: what the identified model is for, measured on the virtual robot (docs/control.md).
// For each random truth (hw::random_truth around config/robot.yaml, seeds FIRST...) and each of its
// random feasible references (excitation::random_feasible_trajectory, seeds 100 t + 1 ... per
// truth), the same reference run on the virtual robot (MuJoCo, its drives' firmware, friction,
// camera noise; rig::virtual_trace, as `vcloe run [--precorrection]` runs it):
//   - the visual servo alone;
//   - pre-corrected inside the outer loop (control/precorrect.hpp) with the TRUE parameters,
//     with the PRIORS, and with an identified model per truth if given (--identified PATTERN,
//     %d replaced by the truth's seed; --uncalibrated PATTERN: a second one, e.g. identified from
//     the drawn robot file where the first was identified from the calibrated one);
//   - the true pre-correction alone (zero outer gains: the drives' loop only);
// and prints the tracking RMS of the true and of the measured pose less the reference (mm, mrad,
// RMS over the three axes of each). Then, along the virtual robot's own motion under the servo
// alone, the RMS error of the predicted drive torques (control/predict.hpp) over the RMS torque,
// and of the platform joints' constraint forces over MuJoCo's, for the truth, priors and models.
//
// With --learn N (control/learn.hpp, workflow::learn_on_virtual_robot as `vcloe learn`) only: N trials
// per reference from the PRIORS' pre-correction (--identified's model if given, printed as "priors"),
// per trial the measured RMS (mm, mrad) over the noise.
//
//   build/bench/study_control [--first 1] [--truths 5] [--per-truth 2] [--duration 10] [--identified PATTERN]
//     [--uncalibrated PATTERN] [--first-reference 1] [--at-rest 0|1] [--seeds S1,S2,...] [--truth-file PATTERN]
//     [--learn N [--gain 0.5] [--cutoff 4] [--lead 0.02] [--law lead|inverse] [--loop servo|drives] [--bands 1]
//                [--noise-scale 1] [--start-coulomb-truth 0|1] [--friction 0|1 [--friction-viscous 0|1]]]
// With --learn it prints, per reference, the model's drives' loop (priors and truth: M_theta's
// diagonal, P at 2, 4, 8 Hz; control/drives_model.hpp) and the inverse law's condition
// max |P_truth / P_priors - 1| up to Q's cutoff, and the lead law's factor |1 - gamma Q e^{iwd} P_truth|
// per joint at 1-6 Hz (drives' loop alone, start pose); with --bands 1, per trial, the true error of each
// axis and joint in the bands < 1, 1-4, 4-10, > 10 Hz and the part that changed since the trial before,
// and the measured joint error (what the update sees, noise included) in the same bands, over the
// first second, and within 50 ms of each joint's reference velocity reversals against elsewhere;
// --noise-scale s multiplies the camera noise (s = 0.001: nearly noise-free, what learning does
// without it; the ratio printed is then to the scaled noise); --friction 1 learns each joint's
// friction after each trial (control/friction_estimate.hpp) and prints the estimate.
//
// --truth-file PATTERN (%d the seed): the truth is that file (`vcloe truth random --realistic`)
// with its rig departures (hw::load_virtual_rig); setup, controller and priors config/robot.yaml's,
// as `vcloe run --truth T --robot config/robot.yaml`. The "true" pose is the frame the camera sees,
// noise-free (rig::VirtualCamera::seen), which the loop servoes onto the reference. --seeds S1,...
// A calibrated model's pre-correction carries its marker frame and encoder zeros (control::precorrect),
// and each pre-corrected run starts with the robot standing at its first command (servo::start_hold).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "vcloe/control/drives_model.hpp"
#include "vcloe/control/precorrect.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/rotation.hpp"
#include "vcloe/core/rotation_difference.hpp"
#include "vcloe/hw/mujoco_model.hpp"
#include "vcloe/hw/truth_family.hpp"
#include "vcloe/hw/virtual_rig.hpp"
#include "vcloe/rig/setup.hpp"
#include "vcloe/rig/virtual_camera.hpp"
#include "vcloe/servo/loop.hpp"
#include "vcloe/workflow/learn.hpp"
#include "study_control_bands.hpp"

using namespace vcloe;

namespace {

struct StudyOptions {
  int first = 1, truths = 5, per_truth = 2;
  double duration = 10;
  std::string identified;  // pattern with %d, or empty
  std::string uncalibrated;  // a second identified model's pattern, or empty
  std::string truth_file;  // the truth file's pattern (realistic truths), or empty: hw::random_truth
  std::vector<int> seeds;  // the truths' seeds (default: first, first + 1, ...)
  int learn = 0;           // trials of iterative learning (0: the pre-correction study)
  control::LearningGains gains;
  workflow::LearningLoop loop = workflow::LearningLoop::servo;
  bool at_rest = false;    // references that start at rest (RandomTrajectoryOptions::start_at_rest)
  int first_reference = 1; // reference seeds 100 t + first_reference ...
  bool bands = false;      // with --learn: per trial, the true error's RMS per axis in frequency bands
  bool start_coulomb_truth = false;  // with --learn: the start's (priors') Coulomb friction replaced by the truth's
  double noise_scale = 1;  // with --learn: the camera noise times this (small: a nearly noise-free camera)
};

StudyOptions parse(int argc, char** argv) {
  StudyOptions o;
  for (int a = 1; a < argc; ++a) {
    const std::string k = argv[a];
    if (a + 1 >= argc) fail(k, "expected a value");
    const std::string v = argv[++a];
    if (k == "--truths") o.truths = std::stoi(v);
    else if (k == "--first") o.first = std::stoi(v);
    else if (k == "--per-truth") o.per_truth = std::stoi(v);
    else if (k == "--duration") o.duration = std::stod(v);
    else if (k == "--identified") o.identified = v;
    else if (k == "--uncalibrated") o.uncalibrated = v;
    else if (k == "--truth-file") o.truth_file = v;
    else if (k == "--seeds")  // S1,S2,...
      for (std::size_t p = 0; p < v.size(); p = std::min(v.find(',', p), v.size() - 1) + 1) o.seeds.push_back(std::stoi(v.substr(p)));
    else if (k == "--learn") o.learn = std::stoi(v);
    else if (k == "--gain") o.gains.gain = std::stod(v);
    else if (k == "--cutoff") o.gains.cutoff_hz = std::stod(v);
    else if (k == "--lead") o.gains.lead = std::stod(v);
    else if (k == "--law" && (v == "lead" || v == "inverse"))
      o.gains.law = v == "lead" ? control::LearningLaw::lead : control::LearningLaw::inverse;
    else if (k == "--loop" && (v == "servo" || v == "drives"))
      o.loop = v == "servo" ? workflow::LearningLoop::servo : workflow::LearningLoop::drives;
    else if (k == "--at-rest") o.at_rest = std::stoi(v) != 0;
    else if (k == "--first-reference") o.first_reference = std::stoi(v);
    else if (k == "--bands") o.bands = std::stoi(v) != 0;
    else if (k == "--start-coulomb-truth") o.start_coulomb_truth = std::stoi(v) != 0;
    else if (k == "--noise-scale" && std::stod(v) > 0) o.noise_scale = std::stod(v);
    else if (k == "--friction") o.gains.friction = std::stoi(v) != 0;
    else if (k == "--friction-viscous") o.gains.friction_viscous = std::stoi(v) != 0;
    else fail(k, "unknown option");
  }
  if (o.seeds.empty())
    for (int t = o.first; t < o.first + o.truths; ++t) o.seeds.push_back(t);
  return o;
}

// A truth: its robot file, its file's rig departures and name (none for hw::random_truth's).
struct Truth {
  sim::RobotFile file;
  hw::VirtualRig departures;
  std::string name;
};

std::string of_seed(const std::string& pattern, int seed) {
  char name[1024];
  std::snprintf(name, sizeof name, pattern.c_str(), seed);
  return name;
}

struct Rms {
  double true_mm = 0, true_mrad = 0, measured_mm = 0, measured_mrad = 0;
  double late_mm = 0, late_mrad = 0;  // true pose, from t = 1 s (after the start's transient)
};

// The true pose is the frame the camera sees, noise-free (the marker frame in the calibrated base
// frame: the pose itself for an in-class truth).
Rms tracking(const PoseTrace& t, const rig::ExperimentSetup& s, const Truth& truth) {
  const rig::VirtualCamera seen(truth.file.model, truth.departures, s.reference.clock, s.reference.start_pose,
                                [](const Vec6d& x) { return x; }, 0);
  Rms r;
  double late = 0;
  for (std::size_t j = 0; j < t.size(); ++j) {
    const Vec6d e = pose_difference(seen.seen(t.truth[j]), t.reference[j]), m = pose_difference(t.measured[j], t.reference[j]);
    r.true_mm += e.head<3>().squaredNorm(), r.true_mrad += e.tail<3>().squaredNorm();
    r.measured_mm += m.head<3>().squaredNorm(), r.measured_mrad += m.tail<3>().squaredNorm();
    if (t.time[j] >= 1.0) r.late_mm += e.head<3>().squaredNorm(), r.late_mrad += e.tail<3>().squaredNorm(), late += 1;
  }
  const double n = 3.0 * static_cast<double>(t.size());
  late = 3.0 * std::max(late, 1.0);
  return {1e3 * std::sqrt(r.true_mm / n),      1e3 * std::sqrt(r.true_mrad / n),     1e3 * std::sqrt(r.measured_mm / n),
          1e3 * std::sqrt(r.measured_mrad / n), 1e3 * std::sqrt(r.late_mm / late), 1e3 * std::sqrt(r.late_mrad / late)};
}

// One run of the setup on the truth, pre-corrected with `model` (none: the servo alone).
PoseTrace run(const rig::ExperimentSetup& s, const Truth& truth, const sim::RobotFile* model, bool outer) {
  rig::ExperimentSetup setup = s;
  if (!outer) {
    setup.experiment.outer.kp.setZero();
    setup.experiment.outer.ki.setZero();
    setup.experiment.outer.kd.setZero();
  }
  rig::VirtualRun vr;
  vr.seed = 7;
  vr.departures = truth.departures;
  if (model) {
    control::PreCorrection pc =
        control::precorrect(model->model, model->lambda, setup.reference.clock, control::motion_of(setup.trajectory));
    setup.reference.start_step = pc.command.front() - pc.theta.front();  // the robot stands at theta_d(0)
    try {  // what `vcloe run --precorrection` would refuse: run here all the same (virtual_trace has no rate limit)
      rig::check_command_followable(setup, pc.command, "the pre-correction");
    } catch (const Error& e) {
      std::printf("    (the robot side would refuse the next run: %s)\n", e.what());
    }
    setup.reference.command_correction = control::correction_of(setup.reference, setup.experiment.outer, pc.command);
  }
  return rig::virtual_trace(setup, truth.file, vr, truth.name);
}

// Along the virtual robot's motion under the servo alone, per model: the RMS error of the
// predicted drive torques over the RMS torque (the torques its drives held over each tick against
// the prediction at the tick's mean motion), then the same for the platform joints' constraint
// forces against MuJoCo's (its inverse dynamics at that motion, rigid: friction does not load them).
std::vector<double> torque_errors(const rig::ExperimentSetup& s, const Truth& t,
                                  const std::vector<const sim::RobotFile*>& models) {
  const sim::RobotFile& truth = t.file;
  hw::VirtualRobotOptions o;  // a truth file's robot stands where its drives hold the start, as in a run
  o.controller_hz = s.experiment.timing.controller_hz;
  if (!t.name.empty()) o = rig::virtual_robot_options(s, o, t.departures);
  hw::VirtualRobot robot(truth.model, truth.lambda, s.reference.start_pose, o);
  servo::VisualServo<double> outer(s.reference, s.experiment.outer);
  servo::ExactPose camera;
  std::vector<Vec6d> pose{robot.pose()}, twist{robot.twist()}, torque;
  auto record = [&](const servo::TickRecord&) {
    torque.push_back(robot.torque()), pose.push_back(robot.pose()), twist.push_back(robot.twist());
    return true;
  };
  const auto r = servo::run_loop<double>(robot, outer, camera, record);
  if (!r.ok) fail("virtual robot", r.failure);
  const double Tc = s.experiment.timing.controller_period();
  // MuJoCo's own constraint forces at the platform joints (its `connect` multipliers), every 10th tick.
  std::vector<std::string> adjusted;
  hw::MujocoRobot engine = hw::MujocoRobot::build(truth.model, hw::engine_consistent(truth.model, truth.lambda, adjusted));
  std::vector<double> out;
  for (const sim::RobotFile* m : models) {
    double err = 0, sum = 0, f_err = 0, f_sum = 0;
    for (std::size_t k = 0; k < torque.size(); ++k) {
      const control::MotionSample ms{0.5 * (pose[k] + pose[k + 1]), 0.5 * (twist[k] + twist[k + 1]),
                                     (twist[k + 1] - twist[k]) / Tc};
      control::LoadVector load;
      if (!control::drive_load(m->model, ms, m->lambda.head<sim::kNumXi>(), load)) fail("predict", "unreachable pose");
      err += (load.head<6>() - torque[k]).squaredNorm(), sum += torque[k].squaredNorm();
      if (k % 10) continue;
      Eigen::Matrix<double, 3, 6> f;
      engine.inverse_dynamics(ms.chi, ms.v, ms.v_dot, nullptr, &f);
      for (int i = 0; i < sim::kLegs; ++i)
        f_err += (load.segment<3>(control::force_row(i, 2, 0)) - f.col(i)).squaredNorm(), f_sum += f.col(i).squaredNorm();
    }
    out.push_back(std::sqrt(err / sum));
    out.push_back(std::sqrt(f_err / f_sum));
  }
  return out;
}

void print_rms(const char* label, const Rms& r, const Rms& alone) {
  std::printf("    %-22s true %8.4f mm %8.4f mrad  measured %8.4f mm %8.4f mrad  from 1 s %8.4f mm %8.4f mrad"
              "  alone/this %6.1f %6.1f (from 1 s %6.1f %6.1f)\n",
              label, r.true_mm, r.true_mrad, r.measured_mm, r.measured_mrad, r.late_mm, r.late_mrad,
              alone.true_mm / r.true_mm, alone.true_mrad / r.true_mrad, alone.late_mm / r.late_mm,
              alone.late_mrad / r.late_mrad);
}

// The model's drives' loop (the priors') beside the truth's, at the start pose: M_theta's
// diagonal, P at 2, 4, 8 Hz, friction and gains, and the inverse law's condition.
void print_drives(const rig::ExperimentSetup& s, const sim::RobotFile& priors, const sim::RobotFile& truth,
                  const StudyOptions& o) {
  const control::DrivesModel d = control::drives_model(priors.model, priors.lambda, s.reference);
  const control::DrivesModel dt = control::drives_model(truth.model, truth.lambda, s.reference);
  for (const control::DrivesModel* m : {&d, &dt}) {
    std::printf("      %s: m_theta", m == &d ? "priors" : "truth ");
    for (int i = 0; i < 6; ++i) std::printf(" %.3f", m->inertia[0](i, i));
    for (double f : {2.0, 4.0, 8.0}) {
      const std::complex<double> p = control::drives_response(*m, 0, 0, 2 * M_PI * f);
      std::printf("  P1(%.0f Hz) %.2f %.0f deg", f, std::abs(p), std::arg(p) * 180 / M_PI);
    }
    std::printf("\n");
  }
  std::printf("      Coulomb friction N m, priors / truth:");
  for (int i = 0; i < 6; ++i)
    std::printf(" %.2f/%.2f", priors.lambda(sim::coulomb_index(i)), truth.lambda(sim::coulomb_index(i)));
  std::printf("\n      viscous friction N m s/rad, priors / truth:");
  for (int i = 0; i < 6; ++i)
    std::printf(" %.2f/%.2f", priors.lambda(sim::viscous_index(i)), truth.lambda(sim::viscous_index(i)));
  std::printf("\n      drives' gains lp li ld, priors / truth: %.0f %.0f %.1f / %.0f %.0f %.1f\n", priors.lambda(sim::kGainP),
              priors.lambda(sim::kGainI), priors.lambda(sim::kGainD), truth.lambda(sim::kGainP), truth.lambda(sim::kGainI),
              truth.lambda(sim::kGainD));
  // The lead law's factor on the drives' loop alone, |1 - gamma Q(f) e^{i w d} P_truth(f)| (Q's zero-phase
  // magnitude 1 / (1 + (f / fc)^2n)), per joint at the start pose, at 1, 2, 3, 4, 6 Hz.
  std::printf("      |1 - gamma Q e^(iwd) P_truth| at 1 2 3 4 6 Hz, per joint:");
  for (int i = 0; i < 6; ++i) {
    std::printf("  j%d", i + 1);
    for (double f : {1.0, 2.0, 3.0, 4.0, 6.0}) {
      const double w = 2 * M_PI * f, qm = 1 / (1 + std::pow(f / o.gains.cutoff_hz, 2 * o.gains.order));
      const std::complex<double> g = control::drives_response(dt, 0, i, w) * std::polar(1.0, w * o.gains.lead);
      std::printf(" %.2f", std::abs(1.0 - o.gains.gain * qm * g));
    }
  }
  std::printf("\n");
  // The inverse law's condition (docs/control.md): |P / P^ - 1| < 1 wherever Q passes; its
  // largest over the joints, the frames and 0.1 Hz ... Q's cutoff.
  double worst = 0;
  for (std::size_t j = 0; j < d.inertia.size(); j += 10)
    for (int i = 0; i < 6; ++i)
      for (double f = 0.1; f <= o.gains.cutoff_hz; f += 0.1)
        worst = std::max(worst, std::abs(control::drives_response(dt, j, i, 2 * M_PI * f) /
                                         control::drives_response(d, j, i, 2 * M_PI * f) - 1.0));
  std::printf("      max |P_truth / P_priors - 1| up to %.1f Hz: %.3f\n", o.gains.cutoff_hz, worst);
}

}  // namespace

// Learning from the priors' pre-correction on one reference: a line per trial.
void learn_study(rig::ExperimentSetup s, const Truth& of, const sim::RobotFile& priors, const StudyOptions& o) {
  const sim::RobotFile& truth = of.file;
  rig::VirtualRun vr;
  vr.seed = 7;
  vr.departures = of.departures;
  vr.noise_sigma *= o.noise_scale;
  sim::RobotFile from = priors;  // the start's model: the priors (their Coulomb friction the truth's if asked)
  if (o.start_coulomb_truth)
    for (int i = 0; i < 6; ++i) from.lambda(sim::coulomb_index(i)) = truth.lambda(sim::coulomb_index(i));
  const control::PreCorrection pc = control::precorrect(from.model, from.lambda, s.reference.clock, control::motion_of(s.trajectory));
  const std::vector<Vec6d>& start = pc.command;
  s.reference.start_step = start.front() - pc.theta.front();  // the trials stand at the first command less it
  print_drives(s, priors, truth, o);
  std::vector<Vec6d> previous;
  int trial = 0;
  std::function<void(const PoseTrace&)> observe;
  if (o.bands)
    observe = [&](const PoseTrace& t) {
      std::printf("      trial %d\n", ++trial);
      bench::print_bands(s, t, previous);
      bench::print_measured(s, t);
    };
  auto progress = [](const workflow::LearnTrial& t) {  // the friction learnt, in words
    if (t.friction.empty()) return;
    std::printf("      after trial %d (%.2fx the noise), friction:\n", t.trial, t.over_noise);
    std::string line;
    for (const char c : t.friction)
      if (c == '\n') std::printf("        %s\n", line.c_str()), line.clear();
      else line += c;
    std::fflush(stdout);
  };
  const workflow::LearnOutcome l =
      workflow::learn_on_virtual_robot(s, truth, vr, start, o.gains, o.learn, o.loop, priors, progress, observe, of.name);
  std::printf("    learning (%s law, gain %.2f, Q %.1f Hz, lead %.3f s, %s), measured RMS mm / mrad / x noise [true mm / mrad] per trial:\n",
              o.gains.law == control::LearningLaw::inverse ? "inverse" : "lead", o.gains.gain, o.gains.cutoff_hz,
              o.gains.lead, o.loop == workflow::LearningLoop::servo ? "inside the servo" : "drives only");
  for (const workflow::LearnTrial& r : l.trials)  // (true: of E, which a marker frame off E is off by itself)
    std::printf("      %d: %.4f %.4f %.2f [%.4f %.4f]\n", r.trial, r.position_mm, r.angle_mrad, r.over_noise,
                r.true_position_mm, r.true_angle_mrad);
  std::printf("%s", l.stopped_improving ? "      (stopped improving)\n" : "");
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  try {
    const StudyOptions o = parse(argc, argv);
    const sim::RobotFile priors = sim::load_robot(std::string(VCLOE_SOURCE_DIR) + "/config/robot.yaml");
    const servo::ExperimentConfig experiment;
    for (const int t : o.seeds) {
      Truth truth;
      if (o.truth_file.empty()) {
        truth.file = hw::random_truth(priors, static_cast<std::uint64_t>(t));
      } else {
        truth.name = of_seed(o.truth_file, t);
        truth.file = sim::load_robot(truth.name, true);
        truth.departures = hw::load_virtual_rig(truth.name);
      }
      std::optional<sim::RobotFile> identified, uncalibrated;
      for (auto [pattern, model] : {std::pair{&o.identified, &identified}, std::pair{&o.uncalibrated, &uncalibrated}}) {
        if (pattern->empty()) continue;
        const std::string name = of_seed(*pattern, t);
        if (std::FILE* f = std::fopen(name.c_str(), "r")) {  // a truth whose identification failed has none
          std::fclose(f);
          *model = sim::load_robot(name);
        }
      }
      for (int n = o.first_reference; n < o.first_reference + o.per_truth; ++n) {
        excitation::RandomTrajectoryOptions ro;
        ro.duration = o.duration;
        ro.start_at_rest = o.at_rest;
        const auto seed = static_cast<std::uint64_t>(100 * t + n);
        const auto tr = excitation::random_feasible_trajectory(priors.model, seed, ro);
        const rig::ExperimentSetup s = rig::make_setup(priors, experiment, tr, "reference " + std::to_string(seed));
        std::printf("truth %d, reference seed %llu (%.0f s)\n", t, static_cast<unsigned long long>(seed), o.duration);
        if (o.learn > 0) {
          learn_study(s, truth, identified ? *identified : priors, o);  // from --identified's model if given
          continue;
        }
        auto rms = [&](const sim::RobotFile* model, bool outer) {
          return tracking(run(s, truth, model, outer), s, truth);
        };
        const Rms alone = rms(nullptr, true);
        print_rms("servo alone", alone, alone);
        print_rms("pre-corrected truth", rms(&truth.file, true), alone);
        print_rms("pre-corrected priors", rms(&priors, true), alone);
        if (identified) print_rms("pre-corrected ident.", rms(&*identified, true), alone);
        if (uncalibrated) print_rms("pre-corrected uncal.", rms(&*uncalibrated, true), alone);
        print_rms("truth, no outer loop", rms(&truth.file, false), alone);
        std::vector<const sim::RobotFile*> models{&truth.file, &priors};
        for (const auto* m : {&identified, &uncalibrated})
          if (*m) models.push_back(&**m);
        const std::vector<double> e = torque_errors(s, truth, models);
        std::printf("    RMS error / RMS of the virtual robot's drive torques, MuJoCo's platform joint forces: "
                    "truth %.4f %.4f  priors %.4f %.4f", e[0], e[1], e[2], e[3]);
        for (std::size_t m = 4, k = 0; m < e.size(); m += 2, ++k)
          std::printf("  %s %.4f %.4f", k == 0 && identified ? "identified" : "uncalibrated", e[m], e[m + 1]);
        std::printf("\n");
        std::fflush(stdout);
      }
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "study_control: %s\n", e.what());
    return 2;
  }
  return 0;
}
