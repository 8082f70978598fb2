#pragma once
// vcloe/servo/corrected_robot.hpp — a CommandedRobot whose position interface receives the loop's
// command plus a fixed per-tick correction (a pre-corrected or learnt command less the outer
// law's command on a perfect run; docs/control.md). The one place the correction is added: the
// twin (simulate_twin, the identification's sensitivities), the virtual robot and the live
// robot's side all drive it through here.
#include <string>
#include <vector>

#include "vcloe/core/rotation.hpp"
#include "vcloe/servo/reference.hpp"

namespace vcloe::servo {

// The command the position interface receives at tick k: U plus the tick's correction (none: U).
// CorrectedRobot's, and the live robot's side applies it through here too (rig robot serve).
template <typename T>
Vec6<T> corrected_command(const std::vector<Vec6d>& correction, std::size_t k, const Vec6<T>& U) {
  if (correction.empty()) return U;
  return U + correction[k].template cast<T>();
}

// The start hold: the command the drives hold before t = 0 — the outer law's start command
// (IK of the start pose, held until frame 0 arrives) plus the correction's first tick, i.e. a
// pre-corrected run's first command q(0) (control::correction_of), less the pre-correction's
// first-tick step (PreparedReference::start_step): for the model's own pre-correction the encoders
// that put its marker frame on the reference's start, theta_d(0); for a learnt command q_j(0) less
// that step, so learning's updates of the first tick move the start with it. The robot stands there
// before the run: the virtual robot and the twin are placed there, the rig's robot moves there
// before frame 0 (robot serve, --stand-at), and the safety monitor's rate limit counts from there
// (rig::check_command_followable). Without a correction, the reference's start command.
inline Vec6d start_hold(const PreparedReference& reference) {
  if (reference.command_correction.empty()) return reference.start_theta;
  return corrected_command<double>(reference.command_correction, 0, reference.start_theta) - reference.start_step;
}

template <class Robot, typename T = double>
class CorrectedRobot {
 public:
  // `correction`: one per controller tick; it and the robot must outlive this.
  CorrectedRobot(Robot& robot, const std::vector<Vec6d>& correction) : robot_(robot), correction_(correction) {}
  Vec6<T> pose() const { return robot_.pose(); }
  const std::string& failure() const { return failure_.empty() ? robot_.failure() : failure_; }
  bool step(const Vec6<T>& U) {
    if (tick_ >= correction_.size()) {
      failure_ = "the pre-correction ends at tick " + std::to_string(correction_.size()) + ", before the run";
      return false;
    }
    return robot_.step(corrected_command<T>(correction_, tick_++, U));
  }
  std::size_t tick() const { return tick_; }

 private:
  Robot& robot_;
  const std::vector<Vec6d>& correction_;
  std::size_t tick_ = 0;
  std::string failure_;
};

}  // namespace vcloe::servo
