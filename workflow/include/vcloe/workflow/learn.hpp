#pragma once
// `vcloe learn` (docs/control.md, "Iterative learning"): a reference repeated on the virtual
// robot through the run path of `vcloe run` (rig::virtual_trace), the pre-corrected command
// updated after each trial by the learning law of control/learn.hpp, progress per trial, stopped
// when the error stops improving (control::stopped_improving) or after --trials; the best trial's
// command saved in the precorrection file format (for run/simulate/rig run --precorrection).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "vcloe/control/friction_estimate.hpp"
#include "vcloe/control/learn.hpp"
#include "vcloe/core/defaults.hpp"
#include "vcloe/core/report.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/rig/setup.hpp"

namespace vcloe::workflow {

struct LearnTrial {
  int trial = 0;                      // 1, 2, ...
  double position_mm = 0, angle_mrad = 0;  // RMS of measured - reference, per axis over the three
  double over_noise = 0;              // the larger of the two over the camera's sigma
  double true_position_mm = 0, true_angle_mrad = 0;  // the same of the true pose (the virtual robot's own)
  // With LearningGains::friction: each joint's friction estimated from this trial (the next
  // trial's pre-correction is computed with it), in words (control::describe); empty otherwise.
  std::string friction;
  control::FrictionEstimate friction_estimate{};
};

struct LearnOutcome {
  std::vector<LearnTrial> trials;
  std::size_t best = 0;              // index of the trial with the smallest over_noise
  std::vector<Vec6d> command;        // that trial's command (per tick)
  bool stopped_improving = false;
};

// Where the trials run: inside the visual servo (its outer loop closed around the camera on every
// trial, the learnt command added inside it), or on the drives' loop alone (the outer gains zero
// during the trials: the learnt command is the feedforward, the camera only measures —
// Abdellatif & Heimann 2006 §5.2.1). docs/control.md, "Iterative learning".
enum class LearningLoop { servo, drives };

// The setup a trial runs with: `setup` itself (servo), or with its outer gains zero (drives).
rig::ExperimentSetup trial_setup(const rig::ExperimentSetup& setup, LearningLoop loop);

// Trials on the virtual robot from `start` (one command per tick); `model` is the model of the
// inverse law (gains.law == inverse: its drives' loop, control::drives_model) and of the friction
// learnt (gains.friction: its Xi and gains, its friction the start). Trial j runs with camera noise
// seed run.seed + j (fresh noise each repetition, as on a robot). `progress` sees each trial,
// `observe` each trial's trace (the measurements: bench/study_control's error bands);
// setup.reference.start_step is the start's first-tick step: each trial's robot stands at its
// command's first tick less it (servo::start_hold), so learning's updates of the first tick move
// the start with them;
// `truth_file` names the truth in messages ("the virtual robot of tt.yaml").
LearnOutcome learn_on_virtual_robot(const rig::ExperimentSetup& setup, const sim::RobotFile& truth,
                                    const rig::VirtualRun& run, const std::vector<Vec6d>& start,
                                    const control::LearningGains& gains, int trials, LearningLoop loop,
                                    const sim::RobotFile& model,
                                    const std::function<void(const LearnTrial&)>& progress = {},
                                    const std::function<void(const PoseTrace&)>& observe = {},
                                    const std::string& truth_file = "");

struct LearnOptions {
  std::string robot, truth, experiment, reference, out;
  std::string model;          // the start: precorrect with this model (default: the robot file's priors)
  std::string precorrection;  // or the start: a precorrection file for this reference
  int trials = 10;
  control::LearningGains gains;
  LearningLoop loop = LearningLoop::servo;  // --loop servo|drives
  std::uint64_t seed = 1;
  double noise_position = defaults::kCameraNoisePosition, noise_angle = defaults::kCameraNoiseAngle;
  bool force = false;

  // --trials >= 1, the gains (control::LearningGains::validate), the camera noise, --model and
  // --precorrection not both, then the inputs and outputs (IoPlan).
  void validate() const;
};
Report learn_to_file(const LearnOptions& options, const std::function<void(const LearnTrial&)>& progress = {});

}  // namespace vcloe::workflow
