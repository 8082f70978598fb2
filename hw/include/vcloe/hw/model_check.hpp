#pragma once
// vcloe/hw/model_check.hpp — our virtual-work model against the independent MuJoCo model of the
// same robot (Li et al. 2019 §4.1 did this with SimMechanics, Fig. 8): `vcloe validate-model`.
//
// Both engines, no friction, drives starting unpowered, follow IK of the same smooth motion
// under the same discrete joint PID (the robot's gains): the one loop (servo::run_loop) with the
// camera at the controller rate, no latency and zero outer gains, so U_k = IK(chi_d(k Tc)).
// Also compares the rigid inverse dynamics (ours vs mj_rne with the connect constraints).
#include <functional>
#include <string>
#include <vector>

#include "vcloe/sim/robot.hpp"

namespace vcloe::hw {

struct MotionSample {
  Vec6d chi, chi_dot, v, v_dot;  // pose, its rate, platform twist and its rate (eq. 2)
};
using Motion = std::function<MotionSample(double t)>;

struct ModelCheckOptions {
  double duration = 10.0;       // s
  double timestep = 0.25e-3;    // integration step of both engines (s), divides the 1 ms period
  int inverse_dynamics_samples = 50;
  // Targets (docs/model.md): pose divergence, loop closure, inverse dynamics.
  double pos_max_mm = 0.05, rot_max_mrad = 0.1, closure_max_mm = 0.01, id_rel_err_max = 1e-6;
  void validate() const;  // throws vcloe::Error naming the option
};

struct ModelCheck {
  Vec6d max_error = Vec6d::Zero(), rms_error = Vec6d::Zero();  // |MuJoCo - ours| per axis (m, rad)
  double closure_max = 0;          // MuJoCo's loop-closure error (m)
  double id_rel_err_max = 0;       // |ours - MuJoCo| / |MuJoCo| of the actuator torques
  double id_lsq_residual_max = 0;  // MuJoCo's least-squares residual of the constraint forces
  double ours_us_per_step = 0, mujoco_us_per_step = 0;
  std::vector<std::string> engine_adjustments;  // invisible moments changed so MuJoCo loads
  bool pass = false;
};

ModelCheck check_against_mujoco(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                                const Motion& motion, const ModelCheckOptions& options);

}  // namespace vcloe::hw
