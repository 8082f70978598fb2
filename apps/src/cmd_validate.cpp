// `vcloe validate` (seed 004 Tables 4 and 5): an identified model against fresh random feasible
// trajectories run on the robot, and, with --reidentify, the spread of the parameters when each
// of those trajectories is used for identification. `vcloe demo`: the whole chain on the
// virtual rig (excite -> run -> identify -> validate), each step printed as the command a user
// would type.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>

#include "commands.hpp"
#include "vcloe/rig/setup.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/trace_compare.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/oe_ident/config.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::app {

namespace {

struct ValidateOptions {
  std::string model, truth, priors, experiment, config, out;
  int n = 10;
  unsigned seed = 1001;
  bool json = false, reidentify = false, force = false, quiet = false;

  void validate() const {
    if (n < 1 || n > 1000)
      fail("--n", "expected 1 to 1000 trajectories (each takes seconds, a minute with --reidentify), got " +
                      std::to_string(n));
    if (!out.empty()) check_output_path(out, force, {model, truth, priors, experiment, config});
  }
};

struct TrajectoryRow {
  unsigned seed = 0;
  TraceDifference model, floor;  // measured - twin(model), measured - twin(truth)
  double worst_ratio = 0;        // max over axes of model RMS / floor RMS
};

std::array<double, 6> rms6(const TraceDifference& d) {
  return {d.rms_mm[0], d.rms_mm[1], d.rms_mm[2], d.rms_mrad[0], d.rms_mrad[1], d.rms_mrad[2]};
}

nlohmann::json axes_json(const TraceDifference& d) {
  return {{"rms_mm", d.rms_mm}, {"rms_mrad", d.rms_mrad}, {"max_mm", d.max_mm}, {"max_mrad", d.max_mrad}};
}

void run_validate(const ValidateOptions& o) {
  o.validate();
  const auto start = std::chrono::steady_clock::now();
  const sim::RobotFile model = sim::load_robot(o.model);
  const sim::RobotFile truth = sim::load_robot(o.truth, true);
  const servo::ExperimentConfig experiment =
      o.experiment.empty() ? servo::ExperimentConfig{} : servo::load_experiment(o.experiment);
  std::optional<sim::RobotFile> priors;
  std::optional<oe_ident::IdentificationConfig> id_config;
  if (o.reidentify) {
    priors = sim::load_robot(o.priors);
    id_config = oe_ident::load_identification_config(o.config);
    if (id_config->options.anchor.kind == oe_ident::AnchorKind::Payload && !id_config->payload)
      fail(o.config, "the payload anchor needs 'payload'");
  }

  std::vector<TrajectoryRow> rows;
  std::vector<oe_ident::IdentificationResult> fits;
  for (int i = 0; i < o.n; ++i) {
    TrajectoryRow row;
    row.seed = o.seed + static_cast<unsigned>(i);
    const excitation::FourierTrajectory traj = excitation::random_feasible_trajectory(model.model, row.seed);
    const std::string name = "random trajectory (seed " + std::to_string(row.seed) + ")";
    const rig::ExperimentSetup setup = rig::make_setup(model, experiment, traj, name);
    rig::VirtualRun vo;
    vo.seed = row.seed;
    const PoseTrace measured = rig::virtual_trace(setup, truth, vo, o.truth);
    row.model = compare_traces(measured, rig::twin_trace(setup, model.lambda), TraceColumns::Measured, TraceColumns::Measured,
                               "measured", "twin");
    row.floor = compare_traces(measured, rig::twin_trace(setup, truth.lambda), TraceColumns::Measured,
                               TraceColumns::Measured, "measured", "twin(truth)");
    const auto a = rms6(row.model), f = rms6(row.floor);
    for (int c = 0; c < 6; ++c) row.worst_ratio = std::max(row.worst_ratio, a[c] / f[c]);
    if (!o.json && !o.quiet)
      std::cerr << "  " << name << ": worst axis " << std::setprecision(3) << row.worst_ratio << " x noise floor\n";
    if (o.reidentify) {
      // The same trajectory as an identification experiment (with its payload run when the
      // anchor asks for one), from the priors.
      const rig::ExperimentSetup ps = rig::make_setup(*priors, experiment, traj, name);
      std::vector<oe_ident::Experiment> exps = {rig::to_experiment(ps, measured, name)};
      if (id_config->options.anchor.kind == oe_ident::AnchorKind::Payload) {
        rig::VirtualRun vp = vo;
        vp.seed = row.seed + 100000;
        const PoseTrace loaded = rig::virtual_trace(setup, truth, vp, o.truth, id_config->payload);
        exps.push_back(rig::to_experiment(ps, loaded, name + " with payload", id_config->payload));
      }
      fits.push_back(oe_ident::identify(priors->model, priors->lambda, experiment.outer, exps, id_config->options));
      if (!o.json && !o.quiet)
        std::cerr << "    re-identified: " << fits.back().identified_count << " parameters, "
                  << std::setprecision(3) << fits.back().seconds << " s\n";
    }
    rows.push_back(row);
  }

  // Table 5 form: each parameter's value across the re-identifications.
  nlohmann::json variation = nlohmann::json::array();
  const auto& reg = sim::parameter_registry();
  if (!fits.empty())
    for (int k = 0; k < sim::kNumLambda; ++k) {
      double mean = 0, sq = 0;
      int identified = 0;
      for (const auto& f : fits) {
        mean += f.lambda(k) / static_cast<double>(fits.size());
        identified += f.parameters[static_cast<std::size_t>(k)].identified;
      }
      for (const auto& f : fits) sq += std::pow(f.lambda(k) - mean, 2);
      const double sd = fits.size() > 1 ? std::sqrt(sq / static_cast<double>(fits.size() - 1)) : 0.0;
      variation.push_back({{"name", reg[static_cast<std::size_t>(k)].name},
                           {"unit", reg[static_cast<std::size_t>(k)].unit},
                           {"model", model.lambda(k)},
                           {"mean", mean},
                           {"std", sd},
                           {"rel_std", std::abs(mean) > 0 ? sd / std::abs(mean) : 0.0},
                           {"identified_runs", identified},
                           {"runs", static_cast<int>(fits.size())}});
    }

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  {
    nlohmann::json j;
    j["model"] = o.model;
    j["truth"] = o.truth;
    j["seconds"] = seconds;
    nlohmann::json t = nlohmann::json::array();
    double worst = 0;
    for (const auto& r : rows) {
      t.push_back({{"seed", r.seed}, {"model", axes_json(r.model)}, {"noise_floor", axes_json(r.floor)},
                   {"worst_ratio", r.worst_ratio}});
      worst = std::max(worst, r.worst_ratio);
    }
    j["trajectories"] = t;
    j["worst_ratio"] = worst;
    if (!fits.empty()) j["parameter_variation"] = variation;
    if (!o.out.empty()) write_file_atomically(o.out, j.dump(2) + "\n", o.force);
    if (o.json) {
      std::cout << j.dump(2) << "\n";
      return;
    }
  }
  std::cout << std::fixed << std::setprecision(4)
            << "Validation on " << rows.size() << " fresh random feasible trajectories (Table 4 form)\n"
            << "RMS of measured - twin(model) | noise floor = measured - twin(truth), virtual rig only\n"
            << "  seed    x mm    y mm    z mm    a mrad  b mrad  g mrad | floor x  y  z mm, a  b  g mrad | worst/floor\n";
  for (const auto& r : rows) {
    const auto a = rms6(r.model), f = rms6(r.floor);
    std::cout << "  " << std::setw(5) << r.seed;
    for (int c = 0; c < 6; ++c) std::cout << std::setw(8) << std::setprecision(c < 3 ? 4 : 3) << a[c];
    std::cout << " |";
    for (int c = 0; c < 6; ++c) std::cout << std::setw(7) << std::setprecision(c < 3 ? 4 : 3) << f[c];
    std::cout << " | " << std::setprecision(2) << r.worst_ratio << "\n";
  }
  if (!fits.empty()) {
    std::cout << "\nParameters across " << fits.size() << " re-identifications (Table 5 form)\n"
              << "  name        model          mean           std        rel std   identified\n";
    for (const auto& v : variation) {
      if (v["identified_runs"].get<int>() == 0) continue;
      std::cout << "  " << std::left << std::setw(8) << v["name"].get<std::string>() << std::right << std::scientific
                << std::setprecision(4) << std::setw(14) << v["model"].get<double>() << std::setw(14)
                << v["mean"].get<double>() << std::setw(14) << v["std"].get<double>() << std::fixed
                << std::setprecision(2) << std::setw(9) << 100 * v["rel_std"].get<double>() << " %   "
                << v["identified_runs"].get<int>() << "/" << v["runs"].get<int>() << "\n";
    }
  }
  std::cout << std::setprecision(1) << "\n" << seconds << " s\n";
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto o = std::make_shared<ValidateOptions>();
  o->truth = default_config_dir() + "/truth.yaml";
  o->priors = default_robot_file();
  o->config = default_config_dir() + "/identify.yaml";
  o->experiment = default_config_dir() + "/experiment.yaml";
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Validate an identified model on fresh random feasible trajectories run on the virtual robot: per-axis RMS\n"
      "against the noise floor (Table 4 form); with --reidentify, the spread of the parameters when each\n"
      "trajectory is used for identification (Table 5 form).");
  cmd->add_option("--model", o->model, "identified robot file (vcloe identify --out)")->required();
  cmd->add_option("--n", o->n, "number of trajectories")->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of the first trajectory (then +1, +2, ...)")->capture_default_str();
  cmd->add_option("--truth", o->truth, "the virtual robot's truth file")->capture_default_str();
  cmd->add_option("--experiment", o->experiment, "timing and outer controller")->capture_default_str();
  cmd->add_flag("--reidentify", o->reidentify, "identify on each trajectory too (about a minute each)");
  cmd->add_option("--priors", o->priors, "robot file with the priors (for --reidentify)")->capture_default_str();
  cmd->add_option("--config", o->config, "identification settings (for --reidentify)")->capture_default_str();
  cmd->add_flag("--json", o->json, "print the result as JSON");
  cmd->add_option("--out", o->out, "also write the JSON result to this file (for vcloe report)");
  cmd->add_flag("--quiet", o->quiet, "no progress line per trajectory");
  cmd->add_flag("--force", o->force, "overwrite an existing --out file");
  cmd->callback([o] { run_validate(*o); });
}

}  // namespace vcloe::app
