// study_convergence: the step-size / integrator study of the two engines (docs/virtual-robot.md,
// "Convergence of the two engines"). For each truth and reference it runs, noise-free,
//   - the twin (servo::simulate_twin, RK4) at several substeps per 1 ms controller period,
//   - the virtual robot (MuJoCo, hw::VirtualRobot) at several timesteps, integrators and
//     loop-closure softness (solref in timesteps, solimp),
// each engine also at a reference step (its own step refined until it stops moving), and prints
// the RMS per channel (x y z mm, alpha beta gamma mrad) of: each engine against its own reference
// (its discretisation error), the two references against each other (the engines' model
// difference), and every MuJoCo setting against every twin setting (what identification sees as
// measured - twin(truth)), also as the largest ratio to the default camera noise. CPU seconds per
// run are this process's (std::clock).
//
//   build/bench/study_convergence [--truth default|random:SEED|far:SEED]... [--friction K]...
//       [--reference FILE]... [--duration S] [--substeps 1,2,4,8] [--twin-reference 32]
//       [--mujoco DT_MS:INTEGRATOR:SOLREF_TIMESTEPS:SOLIMP]... [--mujoco-reference ...]
// --friction K sets every joint's Coulomb and viscous coefficient of the truth to K x the priors'
// (config/robot.yaml). Defaults: the default truth, friction as drawn, both default trajectories.
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "vcloe/core/defaults.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/hw/truth_family.hpp"
#include "vcloe/rig/setup.hpp"

using namespace vcloe;

namespace {

const std::string kSource = VCLOE_SOURCE_DIR;

struct EngineSetting {
  std::string label;
  hw::MujocoOptions options;
};

struct StudyOptions {
  std::vector<std::string> truths, references;
  std::vector<double> friction;  // K x priors; 0: the truth's own
  double duration = 0;           // s: the first part of each reference only; 0: all of it
  std::vector<int> substeps{1, 2, 4, 8};
  int twin_reference = 32;
  std::vector<EngineSetting> mujoco;
  EngineSetting mujoco_reference;
};

EngineSetting parse_engine(const std::string& text) {
  // DT_MS:INTEGRATOR:SOLREF_TIMESTEPS:SOLIMP, e.g. 0.25:rk4:2:0.9999
  std::vector<std::string> f;
  std::stringstream ss(text);
  for (std::string s; std::getline(ss, s, ':');) f.push_back(s);
  if (f.size() != 4) fail("--mujoco " + text, "expected DT_MS:INTEGRATOR:SOLREF_TIMESTEPS:SOLIMP");
  EngineSetting e;
  e.label = text;
  e.options.timestep = std::stod(f[0]) * 1e-3;
  if (f[1] == "rk4") e.options.integrator = hw::MujocoIntegrator::rk4;
  else if (f[1] == "euler") e.options.integrator = hw::MujocoIntegrator::euler;
  else if (f[1] == "implicit") e.options.integrator = hw::MujocoIntegrator::implicit;
  else fail("--mujoco " + text, "integrator must be rk4, euler or implicit");
  e.options.solref_timesteps = std::stod(f[2]);
  e.options.solimp = std::stod(f[3]);
  return e;
}

std::vector<int> parse_ints(const std::string& text) {
  std::vector<int> v;
  std::stringstream ss(text);
  for (std::string s; std::getline(ss, s, ',');) v.push_back(std::stoi(s));
  return v;
}

StudyOptions parse(int argc, char** argv) {
  StudyOptions o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) fail(a, "expects a value");
    const std::string v = argv[++i];
    if (a == "--truth") o.truths.push_back(v);
    else if (a == "--reference") o.references.push_back(v);
    else if (a == "--friction") o.friction.push_back(std::stod(v));
    else if (a == "--duration") o.duration = std::stod(v);
    else if (a == "--substeps") o.substeps = parse_ints(v);
    else if (a == "--twin-reference") o.twin_reference = std::stoi(v);
    else if (a == "--mujoco") o.mujoco.push_back(parse_engine(v));
    else if (a == "--mujoco-reference") o.mujoco_reference = parse_engine(v);
    else fail(a, "unknown option (see the header of bench/study_convergence.cpp)");
  }
  if (o.truths.empty()) o.truths = {"default"};
  if (o.references.empty())
    o.references = {kSource + "/config/excitation-default.yaml", kSource + "/config/reference.yaml"};
  if (o.friction.empty()) o.friction = {0};
  if (o.mujoco.empty())
    for (const char* s : {"0.25:rk4:2:0.9999", "0.1:rk4:2:0.9999", "0.05:rk4:2:0.9999"})
      o.mujoco.push_back(parse_engine(s));
  if (o.mujoco_reference.label.empty()) o.mujoco_reference = parse_engine("0.025:rk4:2:0.9999");
  return o;
}

sim::RobotFile make_truth(const std::string& name, const sim::RobotFile& priors, double friction) {
  sim::RobotFile t;
  if (name == "default") t = sim::load_robot(defaults::truth_file());
  else if (name.rfind("random:", 0) == 0) t = hw::random_truth(priors, std::stoull(name.substr(7)));
  else if (name.rfind("far:", 0) == 0) {
    hw::TruthFamily f;
    f.far = true;
    t = hw::random_truth(priors, std::stoull(name.substr(4)), f);
  } else fail("--truth " + name, "expected default, random:SEED or far:SEED");
  if (friction > 0)
    for (int i = 0; i < sim::kLegs; ++i) {
      t.lambda(sim::coulomb_index(i)) = friction * priors.lambda(sim::coulomb_index(i));
      t.lambda(sim::viscous_index(i)) = friction * priors.lambda(sim::viscous_index(i));
    }
  return t;
}

struct Run {
  std::string label;
  std::vector<Vec6d> pose;
  double cpu = 0;
  std::string failure;  // a run that stopped (the twin diverged, the safety stop tripped)
};

template <typename F>
Run timed(const std::string& label, F&& f) {
  const std::clock_t c0 = std::clock();
  Run r{label, {}, 0, ""};
  try {
    r.pose = f();
  } catch (const Error& e) {
    r.failure = e.what();
  }
  r.cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
  return r;
}

Vec6d rms(const std::vector<Vec6d>& a, const std::vector<Vec6d>& b) {
  Vec6d s = Vec6d::Zero();
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t j = 0; j < n; ++j) s += (a[j] - b[j]).cwiseAbs2();
  return (s / double(n)).cwiseSqrt();
}

std::string row(const std::string& label, const Run& a, const Run& b) {
  if (!a.failure.empty() || !b.failure.empty())
    return "| " + label + " | stopped: " + (a.failure.empty() ? b.failure : a.failure) + " | | |";
  const Vec6d r = rms(a.pose, b.pose);
  const Vec6d sigma = defaults::camera_noise_sigma();
  char buf[256];
  std::snprintf(buf, sizeof buf, "| %s | %.4f / %.4f / %.4f | %.4f / %.4f / %.4f | %.2f |", label.c_str(), r(0) * 1e3,
                r(1) * 1e3, r(2) * 1e3, r(3) * 1e3, r(4) * 1e3, r(5) * 1e3, r.cwiseQuotient(sigma).maxCoeff());
  return buf;
}

Run twin_run(rig::ExperimentSetup s, const sim::RobotFile& truth, int substeps) {
  s.reference.clock.timing.substeps = substeps;
  return timed("twin RK4 x" + std::to_string(substeps), [&] { return rig::twin_trace(s, truth.lambda).measured; });
}

Run mujoco_run(const rig::ExperimentSetup& s, const sim::RobotFile& truth, const EngineSetting& e) {
  rig::VirtualRun run;
  run.robot.engine = e.options;
  run.noise_sigma.setZero();
  return timed("MuJoCo " + e.label, [&] { return rig::virtual_trace(s, truth, run, defaults::truth_file()).truth; });
}

void study_case(const StudyOptions& o, const rig::ExperimentSetup& s, const sim::RobotFile& truth) {
  std::vector<Run> twin, engine;
  for (int n : o.substeps) twin.push_back(twin_run(s, truth, n));
  const Run twin_ref = twin_run(s, truth, o.twin_reference);
  const Run twin_half = twin_run(s, truth, o.twin_reference / 2);
  for (const auto& e : o.mujoco) engine.push_back(mujoco_run(s, truth, e));
  const Run engine_ref = mujoco_run(s, truth, o.mujoco_reference);
  std::cout << "\n| run | RMS x / y / z (mm) | RMS alpha / beta / gamma (mrad) | max / noise |\n|---|---|---|---|\n";
  for (const Run& r : twin) std::cout << row(r.label + " - twin x" + std::to_string(o.twin_reference), r, twin_ref) << "\n";
  std::cout << row(twin_half.label + " - twin x" + std::to_string(o.twin_reference), twin_half, twin_ref)
            << "\n";
  for (const Run& r : engine) std::cout << row(r.label + " - " + engine_ref.label, r, engine_ref) << "\n";
  std::cout << row(engine_ref.label + " - twin x" + std::to_string(o.twin_reference), engine_ref, twin_ref)
            << "\n";
  engine.push_back(engine_ref);
  twin.push_back(twin_half);
  twin.push_back(twin_ref);
  for (const Run& e : engine)
    for (const Run& t : twin) std::cout << row(e.label + " - " + t.label, e, t) << "\n";
  std::cout << "\nCPU s per run:";
  for (const Run& r : twin) std::cout << " " << r.label << " " << r.cpu << ";";
  for (const Run& r : engine) std::cout << " " << r.label << " " << r.cpu << ";";
  std::cout << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const StudyOptions o = parse(argc, argv);
    const sim::RobotFile priors = sim::load_robot(defaults::robot_file());
    for (const std::string& name : o.truths)
      for (double k : o.friction) {
        const sim::RobotFile truth = make_truth(name, priors, k);
        for (const std::string& ref : o.references) {
          std::cout << "\n### truth " << name << (k > 0 ? ", friction " + std::to_string(k) + " x priors" : "")
                    << ", reference " << ref.substr(ref.find_last_of('/') + 1)
                    << (o.duration > 0 ? ", first " + std::to_string(o.duration) + " s" : "") << std::endl;
          try {
            excitation::FourierTrajectory tr = excitation::load_trajectory(ref);
            if (o.duration > 0) tr.duration = std::min(tr.duration, o.duration);
            const rig::ExperimentSetup s = rig::make_setup(
                sim::load_robot(defaults::robot_file()), servo::load_experiment(defaults::experiment_file()), tr, ref);
            study_case(o, s, truth);
          } catch (const Error& e) {
            std::cout << "not run: " << e.what() << std::endl;
          }
        }
      }
  } catch (const std::exception& e) {
    std::cerr << "study_convergence: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
