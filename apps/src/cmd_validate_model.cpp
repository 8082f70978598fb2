// `vcloe validate-model`: our virtual-work model against an independent MuJoCo model of the
// same robot (rig::validate_model; Li et al. 2019 §4.1 did this with SimMechanics, Fig. 8).
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/rig/validate_model.hpp"

namespace vcloe::app {

void add_validate_model_command(CLI::App& app) {
  struct Options : rig::ValidateModelOptions {
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  o->robot = defaults::robot_file();
  CLI::App* cmd = app.add_subcommand(
      "validate-model",
      "Check our model against an independent MuJoCo model of the same robot: both follow the IK of the same\n"
      "smooth pose trajectory under the same discrete joint PID (robot file gains, 1 kHz, held torques, no\n"
      "friction); reports pose divergence, MuJoCo's loop-closure error and the agreement of the rigid inverse\n"
      "dynamics (ours vs mj_rne with the connect constraint Jacobians). Exit status 1 if a target is missed.");
  cmd->add_option("--robot", o->robot, "robot file")->capture_default_str();
  cmd->add_option("--duration", o->duration, "trajectory length (s)")->capture_default_str();
  cmd->add_option("--timestep", o->timestep, "integration step of both engines (s)")->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of the smooth trajectory")->capture_default_str();
  add_json_flag(cmd, o->json, "print the result as JSON");
  cmd->callback([o] {
    const rig::ModelValidation v = rig::validate_model(*o);
    std::cout << v.report.print(o->json);
    if (!v.pass) throw CommandExit{1};  // the status its help promises, no error line: the table said FAIL
  });
}

}  // namespace vcloe::app
