#pragma once
// vcloe/oe_ident/sensitivity.hpp — the twin's pose trace and its exact derivative with respect
// to the identified parameters, by forward sensitivity of the discrete closed loop.
//
// The derivative is that of the very computation the twin does (controllers, zero-order hold
// and the RK4 map), so it matches central finite differences of simulate_twin to rounding.
// It exploits the model's structure: the dynamics is linear in Xi, so
//   d v_dot / d Xi = -M^-1 Gamma(chi, v, v_dot)            (eqs. 25, 40)
// costs one regressor per RK4 stage for all 67 inertial/friction directions at once; the
// state Jacobian d f / d [x; tau] comes from one ceres::Jet evaluation per stage; the PID
// gains enter through the inner law (eq. 31) directly. Directions are the columns of P:
// Lambda = Lambda0 + P * delta, so fixed, tied and log-scaled parameters cost nothing extra.
#include "vcloe/servo/twin.hpp"

namespace vcloe::oe_ident {

struct TwinSensitivity {
  servo::LoopResult<double> trace;   // same as simulate_twin<double>
  std::vector<Eigen::Matrix<double, 6, Eigen::Dynamic>> d_pose;  // per exposure: d chi_m / d delta (chi_m: trace.measured)
};

// P is 70 x q. The linearisations of the RK4 stages, the expensive part, are spread over
// `threads` cores. Returns trace.ok = false (and no derivatives) if the run fails.
// latency_offset (s): the twin's camera reads frame j at t_j - latency_offset, as
// servo::simulate_twin's; d_pose is then the derivative of `trace.measured` (the pose read,
// interpolated between ticks: servo/pose_history.hpp). offset_column >= 0: P's column there is
// zero and d_pose's is d chi_m / d latency_offset — its explicit part (-d chi / dt at the read)
// pushed through the outer law like the others (throws vcloe::Error if that column is not zero).
TwinSensitivity simulate_twin_sensitivity(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                                          const servo::PreparedReference& reference, const servo::OuterGains& gains,
                                          const Eigen::MatrixXd& P, int threads = 2, double latency_offset = 0,
                                          int offset_column = -1);

}  // namespace vcloe::oe_ident
