// `vcloe excite`: optimise a Fourier excitation trajectory by an observability criterion
// (seed 004 section 3.3) under the robot's limits, and write it for `run` / `simulate`.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "pose_plot.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/excitation/optimizer.hpp"

namespace vcloe::app {

void add_excite_command(CLI::App& app) {
  struct Options {
    std::string robot, config, out, plot;
    bool json = false, force = false, quiet = false;
    long seed = -1;
  };
  auto o = std::make_shared<Options>();
  o->robot = default_robot_file();
  o->config = default_config_dir() + "/excitation.yaml";
  CLI::App* cmd = app.add_subcommand(
      "excite",
      "Optimise a Fourier excitation trajectory (eq. 37) by the observability index (eq. 39) under the joint-range,\n"
      "singularity and joint velocity/acceleration limits; report which parameters it cannot excite.");
  cmd->add_option("--robot", o->robot, "robot file")->capture_default_str();
  cmd->add_option("--config", o->config, "excitation settings (docs/excitation-file.md)")->capture_default_str();
  cmd->add_option("--out", o->out, "trajectory YAML to write (read by run and simulate)")->required();
  const CLI::Option* seed = cmd->add_option("--seed", o->seed, "override the seed of the config");
  cmd->add_option("--plot", o->plot, "plot of the six pose components over time (.png, .svg, .pdf)");
  cmd->add_flag("--json", o->json, "print the result as JSON");
  cmd->add_flag("--quiet", o->quiet, "no live progress line");
  cmd->add_flag("--force", o->force, "overwrite existing output files");
  cmd->callback([o, seed] {
    // Outputs checked before the optimisation (minutes): never one of the inputs, never into a
    // missing directory, never over an existing file without --force.
    check_output_path(o->out, o->force, {o->robot, o->config});
    if (!o->plot.empty()) check_plot_path(o->plot, o->force, {o->robot, o->config, o->out});
    if (seed->count() > 0 && o->seed < 0) fail("--seed", "expected a non-negative seed, got " + std::to_string(o->seed));
    const sim::RobotModel robot = sim::load_robot(o->robot).model;
    excitation::ExcitationProblem problem =
        o->config.empty() ? excitation::ExcitationProblem{} : excitation::load_excitation_settings(o->config);
    if (o->seed >= 0) problem.seed = static_cast<std::uint64_t>(o->seed);
    const auto result = excitation::optimize_excitation(
        robot, problem, [&](const std::string& stage, int evaluations, double best) {
          if (!o->quiet)
            std::cerr << "\r  " << stage << " search: " << evaluations << " evaluations, best cost " << best << "   "
                      << std::flush;
        });
    if (!o->quiet) std::cerr << "\n";
    write_file_atomically(o->out, excitation::trajectory_to_yaml(result.trajectory), o->force);
    if (!o->plot.empty()) {
      PoseSeries s{"optimised (" + excitation::to_string(problem.criterion) + ")", {}, {}};
      for (double t = 0; t <= result.trajectory.duration + 1e-9; t += 0.02) {
        s.time.push_back(t);
        s.pose.push_back(result.trajectory.pose(t));
      }
      plot_pose_series({s}, o->plot, "Optimal excitation trajectory", o->force);
    }
    const auto& reg = sim::parameter_registry();
    nlohmann::json unexcited = nlohmann::json::array();
    for (const auto& u : result.columns.dropped) {
      nlohmann::json with = nlohmann::json::array();
      for (int k : u.combined_with) with.push_back(reg[k].name);
      unexcited.push_back({{"name", reg[u.parameter].name},
                           {"reason", u.zero_column ? "not excited" : "only as a combination"},
                           {"combined_with", with}});
    }
    if (o->json) {
      nlohmann::json j = {{"criterion", excitation::to_string(problem.criterion)},
                          {"initial", result.initial},
                          {"final", result.final},
                          {"evaluations", result.evaluations},
                          {"seconds", result.seconds},
                          {"unexcited_parameters", unexcited},
                          {"columns_used", result.columns.kept.size()},
                          {"observability_index", result.values.observability_index},
                          {"log_det", result.values.log_det},
                          {"condition_number", result.values.condition_number},
                          {"f0", result.trajectory.f0},
                          {"harmonics", result.trajectory.harmonics()},
                          {"seed", problem.seed},
                          {"max_abs_theta", result.feasibility.max_abs_theta},
                          {"out", o->out}};
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << "wrote " << o->out << "\n"
                << "  criterion            " << excitation::to_string(problem.criterion) << "\n"
                << "  initial (median of " << problem.baseline_trajectories << " random feasible) " << result.initial
                << "\n"
                << "  final                " << result.final << "  (x" << result.final / result.initial << ")\n"
                << "  O_in / log det / cond " << result.values.observability_index << " / " << result.values.log_det
                << " / " << result.values.condition_number << "\n"
                << "  evaluations          " << result.evaluations << " in " << result.seconds << " s\n"
                << "  columns used         " << result.columns.kept.size() << " of 64\n"
                << "  cannot excite        " << result.columns.describe() << "\n";
    }
  });
}

}  // namespace vcloe::app
