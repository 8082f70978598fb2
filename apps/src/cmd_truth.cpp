// `vcloe truth random`: a virtual robot the identification was not tuned on — a physically
// consistent truth drawn around the robot file of priors (hw::TruthFamily; docs/identification.md,
// "Truths it was not tuned on"). `--unmodelled` adds joint-centre and link-length tolerances the
// twin does not model.
#include <fstream>
#include <iostream>

#include "commands.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/hw/truth_family.hpp"

namespace vcloe::app {

void add_truth_command(CLI::App& app) {
  struct Options {
    std::string priors, out;
    std::uint64_t seed = 1;
    hw::TruthFamily family;
    bool force = false;
  };
  auto o = std::make_shared<Options>();
  o->priors = default_robot_file();
  CLI::App* truth = app.add_subcommand("truth", "Virtual robots to test the identification on");
  truth->require_subcommand(1);
  CLI::App* cmd = truth->add_subcommand("random", "Draw a physically consistent truth around the robot file of priors");
  cmd->add_option("--seed", o->seed, "the draw's seed")->required();
  cmd->add_option("--out", o->out, "robot file to write")->required();
  cmd->add_option("--priors", o->priors, "robot file of priors")->capture_default_str();
  CLI::Option* unmodelled =
      cmd->add_flag("--unmodelled", o->family.unmodelled,
                    "add effects the twin does not model: joint centres and link lengths off by up to --tolerance");
  cmd->add_option("--tolerance", o->family.tolerance, "with --unmodelled: geometric tolerance (m)")
      ->capture_default_str()
      ->needs(unmodelled);
  cmd->add_option("--platform-spread", o->family.platform, "platform mass and moments: relative spread")
      ->capture_default_str();
  cmd->add_option("--body-spread", o->family.bodies, "crank and link moments: relative spread per leg")
      ->capture_default_str();
  cmd->add_option("--gain-spread", o->family.gains, "drive gains: relative spread")->capture_default_str();
  cmd->add_flag("--force", o->force, "overwrite an existing file");
  cmd->callback([o] {
    if (const std::string why = o->family.first_invalid(); !why.empty()) fail("truth random", why);
    check_output_path(o->out, o->force, {o->priors});
    const sim::RobotFile truth = hw::random_truth(sim::load_robot(o->priors), o->seed, o->family);
    const hw::TruthFamily& f = o->family;
    std::ofstream out(o->out, std::ios::trunc);
    out << "# vcloe truth random --seed " << o->seed << (f.unmodelled ? " --unmodelled" : "") << " around "
        << o->priors << "\n# platform +-" << f.platform * 100 << " %, crank and link moments +-" << f.bodies * 100
        << " % per leg, friction " << f.friction_low << "-" << f.friction_high << " x per joint, gains +-"
        << f.gains * 100 << " %, masses of cranks and links as weighed (= priors)";
    if (f.unmodelled) out << ", joint centres and link lengths +-" << f.tolerance * 1e3 << " mm";
    out << "\n" << sim::robot_to_yaml(truth.model, truth.lambda);
    if (!out) fail(o->out, "cannot be written");
    std::cout << "wrote " << o->out << "\n";
  });
}

}  // namespace vcloe::app
