#pragma once
// Subcommand registration for the `vcloe` binary. Each add_*_command adds one subcommand
// to the app and sets its callback; the callback throws vcloe::Error on bad input.
#include <CLI/CLI.hpp>
#include <string>

#include "vcloe/core/defaults.hpp"

namespace vcloe::app {

// Thrown by a command that finished its work but ends with a non-zero exit status (identify's
// stuck fit, docs/identification.md): main returns `status` after the output is flushed.
struct CommandExit {
  int status = 0;
};

void add_validate_model_command(CLI::App& app);
void add_trajectory_command(CLI::App& app);
void add_excite_command(CLI::App& app);
void add_simulate_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_identify_command(CLI::App& app);
void add_validate_command(CLI::App& app);  // Tables 4 and 5 (cmd_validate.cpp)
void add_demo_command(CLI::App& app);      // excite -> run -> identify -> validate
void add_truth_command(CLI::App& app);     // `truth random` (cmd_truth.cpp)
void add_study_command(CLI::App& app);     // truths x (run, identify, validate) (cmd_study.cpp)
void add_study_merge_command(CLI::App& study);  // `study merge`, under `study` (cmd_study.cpp)
void add_report_command(CLI::App& app);    // the HTML report of an identification (cmd_report.cpp)
// The camera side (docs/vision.md). add_calibrate_command adds the `calibrate` parent and,
// under it, `stereo` and `base` through the two add_calibrate_*_command functions.
void add_calibrate_command(CLI::App& app);                 // cmd_calibrate.cpp
void add_calibrate_stereo_command(CLI::App& calibrate);    // cmd_calibrate_stereo.cpp
void add_calibrate_base_command(CLI::App& calibrate);      // cmd_calibrate_base.cpp
void add_calibrate_kinematics_command(CLI::App& calibrate);  // cmd_calibrate_kinematics.cpp
void add_render_command(CLI::App& app);                    // cmd_render.cpp
void add_measure_command(CLI::App& app);                   // cmd_measure.cpp
void add_filter_command(CLI::App& app);                    // cmd_filter.cpp
void add_seal_command(CLI::App& app);                      // cmd_seal.cpp
// The live rig (docs/protocol.md): `rig listen` and `rig run`, and the three roles.
void add_rig_command(CLI::App& app);                       // cmd_rig_listen.cpp: `rig listen`
void add_rig_run_command(CLI::App& rig);                   // cmd_rig_run.cpp
void add_rig_keys_command(CLI::App& rig);                  // cmd_rig_keys.cpp
void add_robot_command(CLI::App& app);                     // cmd_robot_serve.cpp: `robot serve`
void add_vision_command(CLI::App& app);                    // cmd_vision_serve.cpp: `vision serve`
void add_control_command(CLI::App& app);                   // cmd_control.cpp
// What the identified model is for (docs/control.md).
void add_predict_command(CLI::App& app);                   // cmd_predict.cpp
void add_kinematics_command(CLI::App& app);                // cmd_kinematics.cpp
void add_precorrect_command(CLI::App& app);                // cmd_precorrect.cpp
void add_learn_command(CLI::App& app);                     // cmd_learn.cpp

}  // namespace vcloe::app
