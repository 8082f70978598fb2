// `vcloe truth random`: a virtual robot the identification was not tuned on — a physically
// consistent truth drawn around the robot file of priors (hw::write_random_truth;
// docs/identification.md, "Truths it was not tuned on"). `--unmodelled` adds joint-centre and
// link-length tolerances and backlash the twin does not model; `--realistic` the departures a
// real rig has (docs/virtual-robot.md, "Departures").
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/hw/truth_family.hpp"

namespace vcloe::app {

void add_truth_command(CLI::App& app) {
  auto o = std::make_shared<hw::RandomTruthOptions>();
  o->priors = defaults::robot_file();
  CLI::App* truth = app.add_subcommand("truth", "Virtual robots to test the identification on");
  truth->require_subcommand(1);
  CLI::App* cmd = truth->add_subcommand("random", "Draw a physically consistent truth around the robot file of priors");
  cmd->add_option("--seed", o->seed, "the draw's seed")->required();
  add_out_option(cmd, o->out, "robot file to write")->required();
  cmd->add_option("--priors", o->priors, "robot file of priors")->capture_default_str();
  CLI::Option* unmodelled =
      cmd->add_flag("--unmodelled", o->family.unmodelled,
                    "add effects the twin does not model: joint centres and link lengths off by up to --tolerance");
  cmd->add_option("--tolerance", o->family.tolerance, "with --unmodelled: geometric tolerance (m)")
      ->capture_default_str()
      ->needs(unmodelled);
  cmd->add_option("--backlash", o->family.backlash, "with --unmodelled: backlash of every drive (rad, full play)")
      ->capture_default_str()
      ->needs(unmodelled);
  add_realistic_options(cmd, o->family);
  sets_keys(cmd->add_option("--platform-spread", o->family.platform, "platform mass and moments: relative spread"),
            {"platform"})
      ->capture_default_str();
  sets_keys(cmd->add_option("--body-spread", o->family.bodies, "crank and link moments: relative spread per leg"),
            {"bodies"})
      ->capture_default_str();
  sets_keys(cmd->add_option("--gain-spread", o->family.gains, "drive gains: relative spread"), {"gains"})
      ->capture_default_str();
  CLI::Option* far = cmd->add_flag("--far", o->family.far,
                                   "priors far off: platform mass, moments, friction and gains each scaled by one "
                                   "factor log-uniform in [--far-low, --far-high]");
  cmd->add_option("--far-low", o->family.far_low, "with --far: the smallest factor")->capture_default_str()->needs(far);
  cmd->add_option("--far-high", o->family.far_high, "with --far: the largest factor")->capture_default_str()->needs(far);
  add_force_flag(cmd, o->force, "overwrite an existing file");
  cmd->callback([o] {
    std::cout << hw::write_random_truth(*o).text;
  });
}

}  // namespace vcloe::app
