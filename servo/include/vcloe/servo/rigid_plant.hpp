#pragma once
// vcloe/servo/rigid_plant.hpp — the twin's plant: the virtual-work model of the robot (eq. 40)
// as a continuous state x = [chi; v_E] under held joint torques, advanced one controller period
// by `substeps` fixed RK4 steps (sim::integrate_held, Boost.Odeint). A TorquePlant.
#include <string>
#include <utility>
#include <vector>

#include "vcloe/servo/components.hpp"
#include "vcloe/servo/timing.hpp"
#include "vcloe/sim/plant.hpp"

namespace vcloe::servo {

template <typename T>
class RigidPlant {
 public:
  // Starts at rest at `start_pose`. `xi` are the inertial and friction parameters (Xi, eq. 25).
  RigidPlant(const sim::RobotModel& model, const sim::XiVector<T>& xi, const LoopTiming& timing,
             const Vec6<T>& start_pose)
      : model_(model),
        xi_(xi),
        h_(timing.controller_period() / timing.substeps),
        substeps_(timing.substeps),
        x_(sim::make_state<T>(start_pose, Vec6<T>::Zero())) {}

  const sim::RobotModel& model() const { return model_; }
  const sim::XiVector<T>& xi() const { return xi_; }
  Vec6<T> pose() const { return x_.template head<6>(); }
  const sim::PlantState<T>& state() const { return x_; }
  const std::string& failure() const { return failure_; }

  // Encoders: the crank angles of the current pose (IK, eq. 7).
  bool joint_angles(Vec6<T>& theta) const { return sim::inverse_kinematics<T>(model_, pose(), theta); }

  bool advance(const Vec6<T>& tau) {
    if (record_) stages_.clear();
    sim::PlantState<T> failed_at = x_;
    if (sim::integrate_held<T>(model_, xi_, tau, h_, substeps_, x_, record_ ? &stages_ : nullptr, &failed_at,
                               &derivative_))
      return true;
    failure_ = sim::describe_plant_failure(model_, values(failed_at), values(tau));
    return false;
  }

  // Why the current pose has no joint angles (the encoders' IK failed), as advance() reports.
  std::string describe_state(const Vec6<T>& tau) const { return sim::describe_plant_failure(model_, values(x_), values(tau)); }

  // With recording on, stages() holds the RK4 stage states of the last advance (4 per substep,
  // in order): what the forward sensitivities linearise.
  void record_stages(bool on) { record_ = on; }
  const std::vector<sim::PlantState<T>>& stages() const { return stages_; }

  // x_dot at every RK4 stage from `d` instead of the model's own (sim::StageDerivative; empty:
  // the model's). The forward sensitivities take it from their linearisation of the stage.
  void set_stage_derivative(sim::StageDerivative<T> d) { derivative_ = std::move(d); }

 private:
  template <int N>
  static Eigen::Matrix<double, N, 1> values(const Eigen::Matrix<T, N, 1>& v) {
    Eigen::Matrix<double, N, 1> d;
    for (int i = 0; i < N; ++i) d(i) = sim::scalar_value(v(i));
    return d;
  }

  const sim::RobotModel& model_;
  sim::XiVector<T> xi_;
  double h_;
  int substeps_;
  sim::PlantState<T> x_;
  bool record_ = false;
  std::vector<sim::PlantState<T>> stages_;
  sim::StageDerivative<T> derivative_;
  std::string failure_;
};

}  // namespace vcloe::servo
