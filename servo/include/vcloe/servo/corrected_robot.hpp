#pragma once
// vcloe/servo/corrected_robot.hpp — a CommandedRobot whose position interface receives the loop's
// command plus a fixed per-tick correction (a pre-corrected or learnt command less the outer
// law's command on a perfect run; docs/control.md). The one place the correction is added: the
// twin (simulate_twin, the identification's sensitivities), the virtual robot and the live
// robot's side all drive it through here.
#include <string>
#include <vector>

#include "vcloe/core/rotation.hpp"

namespace vcloe::servo {

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
    const Vec6<T> command = U + correction_[tick_++].template cast<T>();
    return robot_.step(command);
  }
  std::size_t tick() const { return tick_; }

 private:
  Robot& robot_;
  const std::vector<Vec6d>& correction_;
  std::size_t tick_ = 0;
  std::string failure_;
};

}  // namespace vcloe::servo
