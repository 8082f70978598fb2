// `vcloe excite`: optimise a Fourier excitation trajectory by an observability criterion
// (Li et al. 2019 §3.3) under the robot's limits, and write it for `run` / `simulate`
// (excitation::excite).
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/excitation/pose_path.hpp"
#include "vcloe/report/gnuplot.hpp"
#include "vcloe/report/pose_plot.hpp"
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
  o->experiment = defaults::experiment_file();
  CLI::App* cmd = app.add_subcommand(
      "excite",
      "Optimise a Fourier excitation trajectory (eq. 37) by the observability index (eq. 39) under the joint-range,\n"
      "singularity and joint velocity/acceleration limits; report which parameters it cannot excite.");
  cmd->add_option("--robot", o->robot, "robot file")->capture_default_str();
  cmd->add_option("--config", o->config, "excitation settings (docs/excitation-file.md)")->capture_default_str();
  cmd->add_option("--experiment", o->experiment, "timing and outer controller the twin checks the motion in")
      ->capture_default_str();
  add_out_option(cmd, o->out, "trajectory YAML to write (read by run and simulate)")->required();
  const CLI::Option* seed = cmd->add_option("--seed", o->seed, "override the seed of the config");
  cmd->add_option("--plot", o->plot, "plot of the six pose components over time (.png, .svg, .pdf)");
  add_json_flag(cmd, o->json, "print the result as JSON");
  add_quiet_flag(cmd, o->quiet, "no live progress line");
  add_force_flag(cmd, o->force, "overwrite existing output files");
  cmd->callback([o, seed] {
    // Outputs checked before the optimisation (minutes): never one of the inputs, never into a
    // missing directory, never over an existing file without --force.
    o->seed_given = seed->count() > 0;
    o->validate();
    IoPlan plan(o->force);
    plan.input(o->robot, "--robot").input(o->config, "--config").input(o->experiment, "--experiment").output(o->out, "--out");
    report::plan_figure(plan, o->plot, "--plot");
    plan.check();
    const excitation::ExciteRun run = excitation::excite(*o, o->quiet ? nullptr : &std::cerr);
    if (!o->plot.empty()) {
      const std::string name = "optimised (" + excitation::to_string(run.problem.criterion) + ")";
      try {  // after the trajectory: a plot that fails says the trajectory is there
        report::plot_pose_series({report::sample_series(name, excitation::pose_path(run.result.trajectory))}, o->plot,
                                 "Optimal excitation trajectory");
      } catch (const Error& e) {
        throw Error(std::string(e.what()) + "; the trajectory " + o->out + " was written");
      }
    }
    std::cout << run.report.print(o->json);
  });
}

}  // namespace vcloe::app
