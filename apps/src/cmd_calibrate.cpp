// `vcloe calibrate`: parent of `calibrate stereo` (cmd_calibrate_stereo.cpp), `calibrate base`
// (cmd_calibrate_base.cpp) and `calibrate kinematics` (cmd_calibrate_kinematics.cpp); exactly one of them must be given.
#include "commands.hpp"

namespace vcloe::app {

void add_calibrate_command(CLI::App& app) {
  CLI::App* calibrate = app.add_subcommand("calibrate", "Calibrate the stereo rig, the camera-to-base transform or the robot's kinematics");
  calibrate->require_subcommand(1);
  add_calibrate_stereo_command(*calibrate);
  add_calibrate_base_command(*calibrate);
  add_calibrate_kinematics_command(*calibrate);
}

}  // namespace vcloe::app
