// `vcloe learn`: iterative learning of the pre-corrected command on the virtual robot
// (workflow::learn_to_file; docs/control.md, "Iterative learning").
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/workflow/learn.hpp"

namespace vcloe::app {

namespace {

std::string indented(const std::string& lines) {
  std::string out = "    ";
  for (std::size_t i = 0; i < lines.size(); ++i) out += lines[i] == '\n' && i + 1 < lines.size() ? "\n    " : std::string(1, lines[i]);
  return out;
}

}  // namespace

void add_learn_command(CLI::App& app) {
  struct Options : workflow::LearnOptions {
    bool json = false;
    std::string loop_name = "servo";
    std::string law_name = "lead";
  };
  auto o = std::make_shared<Options>();
  o->robot = defaults::robot_file();
  o->truth = defaults::truth_file();
  o->experiment = defaults::experiment_file();
  CLI::App* cmd = app.add_subcommand(
      "learn", "Learn the pre-corrected command by repeating a reference on the virtual robot (iterative learning)");
  cmd->add_option("--reference", o->reference, "trajectory file, repeated each trial")->required();
  add_out_option(cmd, o->out, "the learnt command: a precorrection CSV and its sidecar")->required();
  cmd->add_option("--model", o->model, "start: precorrect with this model (default: --robot, the priors)");
  cmd->add_option("--precorrection", o->precorrection, "start: this precorrection file (vcloe precorrect)");
  cmd->add_option("--trials", o->trials, "at most this many trials")->capture_default_str();
  cmd->add_option("--gain", o->gains.gain, "learning gain, in (0, 2)")->capture_default_str();
  cmd->add_option("--cutoff", o->gains.cutoff_hz, "zero-phase low-pass (Q filter) cutoff (Hz)")->capture_default_str();
  cmd->add_option("--lead", o->gains.lead, "phase lead of the update (s): it is taken this much later in the trial")
      ->capture_default_str();
  cmd->add_option("--law", o->law_name,
                  "learning filter: 'lead' (gain x Q, taken --lead later) or 'inverse' (gain x Q x the inverse of the "
                  "drives' loop of --model, default the priors; with --lead 0)")
      ->check(CLI::IsMember({"lead", "inverse"}))
      ->capture_default_str();
  cmd->add_option("--loop", o->loop_name,
                  "where the trials run: 'servo' (inside the visual servo) or 'drives' (outer gains zero, the camera only "
                  "measures; the learnt command is then run with the outer gains zero)")
      ->check(CLI::IsMember({"servo", "drives"}))
      ->capture_default_str();
  cmd->add_flag("--friction", o->gains.friction,
               "after each trial, estimate each joint's Coulomb and viscous friction from what it measured and "
               "recompute the pre-correction with it (docs/control.md, \"Friction learnt\")");
  cmd->add_option("--truth", o->truth, "the virtual robot's truth file")->capture_default_str();
  cmd->add_option("--robot", o->robot, "robot file the reference is checked against")->capture_default_str();
  cmd->add_option("--experiment", o->experiment, "timing and outer controller")->capture_default_str();
  cmd->add_option("--seed", o->seed, "camera-noise seed of the first trial (trial j: seed + j - 1)")->capture_default_str();
  cmd->add_option("--noise-position", o->noise_position, "camera noise sigma per position channel (m)")->capture_default_str();
  cmd->add_option("--noise-angle", o->noise_angle, "camera noise sigma per angle channel (rad)")->capture_default_str();
  add_json_flag(cmd, o->json);
  add_force_flag(cmd, o->force);
  cmd->callback([o] {
    o->loop = o->loop_name == "drives" ? workflow::LearningLoop::drives : workflow::LearningLoop::servo;
    o->gains.law = o->law_name == "inverse" ? control::LearningLaw::inverse : control::LearningLaw::lead;
    auto progress = [o](const workflow::LearnTrial& t) {
      if (o->json) return;
      std::printf("trial %d: position %.4f mm, angle %.4f mrad RMS, %.2fx the camera noise\n", t.trial, t.position_mm,
                  t.angle_mrad, t.over_noise);
      if (!t.friction.empty()) std::printf("  friction after trial %d:\n%s", t.trial, indented(t.friction).c_str());
      std::fflush(stdout);
    };
    std::cout << workflow::learn_to_file(*o, progress).print(o->json);
  });
}

}  // namespace vcloe::app
