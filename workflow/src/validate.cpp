// `vcloe validate` (validate.hpp).
#include "vcloe/workflow/validate.hpp"
#include "vcloe/core/sealed_json.hpp"

#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>

#include "vcloe/core/error.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/core/seed_range.hpp"
#include "vcloe/core/trace_compare.hpp"
#include "vcloe/oe_ident/config.hpp"
#include "vcloe/report/validation.hpp"
#include "vcloe/rig/setup.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::workflow {

namespace {
// The noise seed of trajectory i's payload run: its seed plus this (a second stream).
constexpr std::uint64_t kPayloadSeedOffset = 100000;
}  // namespace

std::optional<SettingProblem> ValidateOptions::problem() const {
  if (n < 1 || n > 1000)
    return SettingProblem{"--n", "--n: expected 1 to 1000 trajectories (each takes seconds, a minute with --reidentify), got " +
                                     std::to_string(n)};
  // Table 5 is a spread over the re-identifications: of one value it is undefined, not 0
  // (session 20's probe, T5: "std 0.0000e+00, rel std 0.00 %" for every parameter).
  if (reidentify && n < 2)
    return SettingProblem{"--n", "--n: expected at least 2 trajectories with --reidentify (the spread of the "
                                 "re-identified parameters over one is undefined), got " + std::to_string(n)};
  if (!(duration >= 1 && duration <= 600))
    return SettingProblem{"--duration", "--duration: expected 1 to 600 s per trajectory, got " + exact_number(duration)};
  // Trajectory i runs seed + i, its payload run seed + i + kPayloadSeedOffset (run_trajectory).
  if (auto p = seed_range_problem("--seed", seed, static_cast<std::uint64_t>(n), std::numeric_limits<std::uint64_t>::max() - 1,
                                  kPayloadSeedOffset))
    return p;
  return std::nullopt;
}

void ValidateOptions::validate(const std::string& where) const {
  throw_if(problem(), where);
  if (!out.empty())
    check_output_path(out, force,
                      {{model, "--model"}, {truth, "--truth"}, {priors, "--priors"}, {experiment, "--experiment"}, {config, "--config"}});
}

namespace {

// The files a validation reads, loaded once.
struct Loaded {
  sim::RobotFile model, truth;
  servo::ExperimentConfig experiment;
  std::optional<sim::RobotFile> priors;                      // with reidentify
  std::optional<oe_ident::IdentificationConfig> id_config;  // with reidentify
  hw::VirtualRig departures;                                 // the truth file's virtual_rig section
  // The robot file the runs' outer controller runs on: the model's own, or for a model of a
  // calibrated plant the file it was calibrated from (rig::controller_of).
  sim::RobotModel controller;
};

Loaded load(const ValidateOptions& o) {
  Loaded l{sim::load_robot(o.model), sim::load_robot(o.truth, true),
           o.experiment.empty() ? servo::ExperimentConfig{} : servo::load_experiment(o.experiment), std::nullopt,
           std::nullopt, hw::load_virtual_rig(o.truth), {}};
  l.controller = sim::load_robot(rig::controller_of(o.model)).model;
  // The model is of the robot drawn in --priors (what it was identified on; a truth's geometry may
  // depart from that drawing, --realistic and --unmodelled, a model's may not): the one check of
  // predict and precorrect, a calibration of that file accepted.
  rig::check_model_of_robot(o.model, l.model.model, o.priors, sim::load_robot(o.priors).model, "--priors");
  if (o.reidentify) {
    l.priors = sim::load_robot(o.priors);
    l.id_config = oe_ident::load_identification_config(o.config);
    if (l.id_config->options.anchor.kind == oe_ident::AnchorKind::Payload && !l.id_config->payload)
      fail(o.config, "the payload anchor needs 'payload'");
  }
  return l;
}

// One fresh trajectory: run on the virtual robot, compared with the twin of the model and of the
// truth; with reidentify, also fitted from the priors (with its payload run for that anchor).
report::ValidationTrajectory run_trajectory(const ValidateOptions& o, const Loaded& l, std::uint64_t seed,
                                            std::vector<oe_ident::IdentificationResult>& fits) {
  excitation::RandomTrajectoryOptions to;
  to.duration = o.duration;
  const excitation::FourierTrajectory traj = excitation::random_feasible_trajectory(l.controller, seed, to);
  const std::string name = "random trajectory (seed " + std::to_string(seed) + ")";
  const rig::ExperimentSetup setup = rig::make_setup(l.model, l.experiment, traj, name, &l.controller);
  // The floor: the twin of the truth itself (its geometry, encoder offsets and marker frame) under
  // the same controller.
  const rig::ExperimentSetup truth_setup = rig::make_setup(l.truth, l.experiment, traj, name, &l.controller);
  rig::VirtualRun vo;
  vo.seed = seed;
  vo.departures = l.departures;
  const PoseTrace measured = rig::virtual_trace(setup, l.truth, vo, o.truth);
  report::ValidationTrajectory row{seed, {}, {}, 0};
  row.model = report::AxesDifference::of(compare_traces(measured, rig::twin_trace(setup, l.model.lambda),
                                                        TraceColumns::Measured, TraceColumns::Measured, "measured", "twin"));
  row.noise_floor = report::AxesDifference::of(compare_traces(measured, rig::twin_trace(truth_setup, l.truth.lambda),
                                                              TraceColumns::Measured, TraceColumns::Measured, "measured",
                                                              "twin(truth)"));
  const auto a = row.model.rms(), f = row.noise_floor.rms();
  for (std::size_t c = 0; c < 6; ++c) row.worst_ratio = std::max(row.worst_ratio, a[c] / f[c]);
  if (!o.json && !o.quiet)
    std::cerr << "  " << name << ": worst axis " << std::setprecision(3) << row.worst_ratio << " x noise floor\n";
  if (!o.reidentify) return row;
  const rig::ExperimentSetup ps = rig::make_setup(*l.priors, l.experiment, traj, name);
  std::vector<oe_ident::Experiment> exps = {rig::to_experiment(ps, measured, name)};
  if (l.id_config->options.anchor.kind == oe_ident::AnchorKind::Payload) {
    rig::VirtualRun vp = vo;
    vp.seed = seed + kPayloadSeedOffset;
    const PoseTrace loaded = rig::virtual_trace(setup, l.truth, vp, o.truth, l.id_config->payload);
    exps.push_back(rig::to_experiment(ps, loaded, name + " with payload", l.id_config->payload));
  }
  fits.push_back(oe_ident::identify(l.priors->model, l.priors->lambda, l.experiment.outer, exps, l.id_config->options));
  if (!o.json && !o.quiet)
    std::cerr << "    re-identified: " << fits.back().identified_count << " parameters, " << std::setprecision(3)
              << fits.back().seconds << " s\n";
  return row;
}

// Table 5 form: each parameter's value across the re-identifications.
std::vector<report::ParameterVariation> variation(const std::vector<oe_ident::IdentificationResult>& fits,
                                                  const sim::LambdaVector<double>& model) {
  std::vector<report::ParameterVariation> out;
  const auto& reg = sim::parameter_registry();
  for (int k = 0; k < sim::kNumLambda; ++k) {
    double mean = 0, sq = 0;
    int identified = 0;
    for (const auto& f : fits) {
      mean += f.lambda(k) / static_cast<double>(fits.size());
      identified += f.parameters[static_cast<std::size_t>(k)].identified;
    }
    for (const auto& f : fits) sq += std::pow(f.lambda(k) - mean, 2);
    const double sd = fits.size() > 1 ? std::sqrt(sq / static_cast<double>(fits.size() - 1)) : 0.0;
    out.push_back({reg[static_cast<std::size_t>(k)].name, reg[static_cast<std::size_t>(k)].unit, model(k), mean, sd,
                   std::abs(mean) > 0 ? sd / std::abs(mean) : 0.0, identified, static_cast<int>(fits.size())});
  }
  return out;
}

void print_validation(const report::ValidationResult& v) {
  std::cout << std::fixed << std::setprecision(4)
            << "Validation on " << v.trajectories.size() << " fresh random feasible trajectories (Table 4 form)\n"
            << "RMS of measured - twin(model) | noise floor = measured - twin(truth), virtual rig only\n"
            << "  seed    x mm    y mm    z mm    a mrad  b mrad  g mrad | floor x  y  z mm, a  b  g mrad | worst/floor\n";
  for (const auto& r : v.trajectories) {
    const auto a = r.model.rms(), f = r.noise_floor.rms();
    std::cout << "  " << std::setw(5) << r.seed;
    for (std::size_t c = 0; c < 6; ++c) std::cout << std::setw(8) << std::setprecision(c < 3 ? 4 : 3) << a[c];
    std::cout << " |";
    for (std::size_t c = 0; c < 6; ++c) std::cout << std::setw(7) << std::setprecision(c < 3 ? 4 : 3) << f[c];
    std::cout << " | " << std::setprecision(2) << r.worst_ratio << "\n";
  }
  if (v.parameter_variation) {
    std::cout << "\nParameters across " << v.parameter_variation->front().runs << " re-identifications (Table 5 form)\n"
              << "  name        model          mean           std        rel std   identified\n";
    for (const auto& p : *v.parameter_variation) {
      if (p.identified_runs == 0) continue;
      std::cout << "  " << std::left << std::setw(8) << p.name << std::right << std::scientific << std::setprecision(4)
                << std::setw(14) << p.model << std::setw(14) << p.mean << std::setw(14) << p.std << std::fixed
                << std::setprecision(2) << std::setw(9) << 100 * p.rel_std << " %   " << p.identified_runs << "/" << p.runs
                << "\n";
    }
  }
  std::cout << std::setprecision(1) << "\n" << v.seconds << " s\n";
}

}  // namespace

void validate(const ValidateOptions& o) {
  o.validate();
  const auto start = std::chrono::steady_clock::now();
  const Loaded l = load(o);
  report::ValidationResult v{o.model, o.truth, 0, {}, 0, std::nullopt, file_record(o.model).sha256};
  std::vector<oe_ident::IdentificationResult> fits;
  for (int i = 0; i < o.n; ++i) {
    v.trajectories.push_back(run_trajectory(o, l, o.seed + static_cast<std::uint64_t>(i), fits));
    v.worst_ratio = std::max(v.worst_ratio, v.trajectories.back().worst_ratio);
  }
  if (!fits.empty()) v.parameter_variation = variation(fits, l.model.lambda);
  v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string text = sealed_json_text(report::to_json(v), o.out.empty() ? "validation result" : o.out);
  if (!o.out.empty()) write_file_atomically(o.out, text, o.force);
  if (o.json) std::cout << text;
  else print_validation(v);
}

}  // namespace vcloe::workflow
