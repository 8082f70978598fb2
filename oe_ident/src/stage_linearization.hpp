#pragma once
// The linearisation of the plant derivative at one RK4 stage, for the forward sensitivity
// recursion (sensitivity.cpp): f, df/dx, d v_dot/d tau and d v_dot/d delta through Xi
// (Li et al. 2019, eqs. 25, 29, 40). Private to oe_ident.

#include <vector>

#include <Eigen/Core>

#include "vcloe/sim/parameters.hpp"
#include "vcloe/sim/plant.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::oe_ident::detail {

// One non-zero of P's Xi rows: d Xi(xi) / d delta(column) = value.
struct XiEntry {
  int xi, column;
  double value;
};

std::vector<XiEntry> xi_entries(const Eigen::MatrixXd& P);

// Linearisation of the plant derivative f(x, tau; Xi) at one RK4 stage.
struct StageLinearization {
  sim::PlantState<double> f;                        // f itself
  Eigen::Matrix<double, 12, 12> A;                  // df/dx
  Mat6d B_tau;                                      // d v_dot / d tau = M^-1 J_ad^T (d chi_dot / d tau = 0)
  Eigen::Matrix<double, 6, Eigen::Dynamic> dvdot_P;  // d v_dot / d delta through Xi: -M^-1 Gamma(chi, v, v_dot) P_Xi
  Mat6d J_theta;                                     // d theta / d chi at the stage's pose (eq. 29)
};

// The stage's linearisation at state x under drive torques tau; false where the kinematics or
// dynamics are not defined there (a singular pose, a non-finite derivative).
bool linearize(const sim::RobotModel& model, const sim::XiVector<double>& xi, const std::vector<XiEntry>& P_xi,
               const sim::PlantState<double>& x, const Vec6d& tau, StageLinearization& out);

}  // namespace vcloe::oe_ident::detail
