#pragma once
// vcloe/servo/twin.hpp — the digital twin: the modeled inner joint PID (eq. 31) driving the
// virtual-work model (eq. 40), integrated with fixed-step RK4, inside the same visual-servo
// loop as the real robot. Parameters are Lambda (67, registry order) in any scalar type, so
// the identification can differentiate the simulated pose trace through ceres::Jet.
#include "vcloe/servo/loop.hpp"
#include "vcloe/sim/plant.hpp"

namespace vcloe::servo {

// The twin as a position-commanded robot (the Robot concept of run_visual_servo).
template <typename T>
class TwinRobot {
 public:
  TwinRobot(const sim::RobotModel& model, const sim::LambdaVector<T>& lambda, const LoopTiming& timing,
            const Vec6d& start_pose)
      : model_(model),
        xi_(lambda.template head<sim::kNumXi>()),
        gains_{lambda(sim::kGainP), lambda(sim::kGainI), lambda(sim::kGainD)},
        dt_(timing.controller_period()),
        substeps_(timing.substeps),
        x_(sim::make_state<T>(start_pose.cast<T>(), Vec6<T>::Zero())) {
    // The experiment starts with the robot standing at the start pose, its drives holding it
    // against gravity (docs/loop.md): the modeled drives' integrals carry this model's
    // holding torques. (prepare_reference has checked that the start pose is reachable.)
    Vec6<T> tau_hold;
    if (sim::holding_torques<T>(model_, Vec6<T>(x_.template head<6>()), xi_, tau_hold))
      pid_.start_holding(gains_, tau_hold);
  }

  Vec6<T> pose() const { return x_.template head<6>(); }
  const sim::PlantState<T>& state() const { return x_; }

  // One controller period: encoder angles by IK of the pose, inner PID torque, held over
  // `substeps` RK4 steps.
  bool step(const Vec6<T>& U) {
    Vec6<T> theta;
    if (!sim::inverse_kinematics<T>(model_, Vec6<T>(x_.template head<6>()), theta)) return false;
    const Vec6<T> tau = pid_.update(gains_, U, theta, dt_);
    return sim::integrate_held<T>(model_, xi_, tau, dt_ / substeps_, substeps_, x_);
  }

 private:
  const sim::RobotModel& model_;
  sim::XiVector<T> xi_;
  JointPidGains<T> gains_;
  double dt_;
  int substeps_;
  sim::PlantState<T> x_;
  InnerPid<T> pid_;
};

// Simulated pose trace at the exposure times of `ref`. A diverging or non-finite run returns
// ok = false with the time it failed; it never returns NaN poses as if they were valid.
template <typename T>
LoopResult<T> simulate_twin(const sim::RobotModel& model, const sim::LambdaVector<T>& lambda,
                            const PreparedReference& ref, const OuterGains& gains) {
  TwinRobot<T> twin(model, lambda, ref.timing, ref.start_pose);
  return run_visual_servo<T>(twin, ref, gains, [](int, const Vec6<T>& pose) { return pose; });
}

}  // namespace vcloe::servo
