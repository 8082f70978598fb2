// `vcloe excite`: optimise a Fourier excitation trajectory by an observability criterion
// (seed 004 section 3.3) under the robot's limits, and write it for `run` / `simulate`
// (excitation::excite).
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "pose_plot.hpp"
#include "vcloe/excitation/workflows.hpp"

namespace vcloe::app {

void add_excite_command(CLI::App& app) {
  struct Options : excitation::ExciteOptions {
    std::string plot;
    bool json = false, quiet = false;
  };
  auto o = std::make_shared<Options>();
  o->robot = defaults::robot_file();
  o->config = defaults::excitation_file();
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
    o->seed_given = seed->count() > 0;
    o->validate();
    if (!o->plot.empty()) check_plot_path(o->plot, o->force, {o->robot, o->config, o->out});
    const excitation::ExciteRun run = excitation::excite(*o, o->quiet ? nullptr : &std::cerr);
    if (!o->plot.empty()) {
      PoseSeries s{"optimised (" + excitation::to_string(run.problem.criterion) + ")", {}, {}};
      for (double t = 0; t <= run.result.trajectory.duration + 1e-9; t += 0.02) {
        s.time.push_back(t);
        s.pose.push_back(run.result.trajectory.pose(t));
      }
      plot_pose_series({s}, o->plot, "Optimal excitation trajectory", o->force);
    }
    std::cout << run.report.print(o->json);
  });
}

}  // namespace vcloe::app
