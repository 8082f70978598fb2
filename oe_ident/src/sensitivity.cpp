#include "vcloe/oe_ident/sensitivity.hpp"
#include "vcloe/sim/dynamics_direct.hpp"

#include <ceres/jet.h>

#include <Eigen/SparseCore>

namespace vcloe::oe_ident {

namespace {

using Jet = ceres::Jet<double, 12>;
using Mat = Eigen::MatrixXd;

// Linearisation of the plant derivative f(x, tau; Xi) at one RK4 stage.
struct StageLinearization {
  sim::PlantState<double> f;                        // f itself
  Eigen::Matrix<double, 12, 12> A;                  // df/dx
  Eigen::Matrix<double, 12, 6> B_tau;               // df/dtau
  Eigen::Matrix<double, 6, sim::kNumXi> dvdot_dxi;  // -M^-1 Gamma(chi, v, v_dot)
};

// With r(chi, v, v_dot, tau) = ID(chi, v, v_dot) - J_ad^T tau = 0 defining v_dot (eq. 40):
//   dv_dot = -M^-1 (dr/dchi dchi + dr/dv dv + Gamma dXi) + M^-1 J_ad^T dtau.
// dr/d[chi; v] is one Jet evaluation of the closure-vector inverse dynamics (no M, no
// factorisation inside the Jets); the rest reuses the nominal M factorisation.
bool linearize(const sim::RobotModel& model, const sim::XiVector<double>& xi, const sim::XiVector<Jet>& xi_jet,
               const sim::PlantState<double>& x, const Vec6d& tau, StageLinearization& out) {
  const Vec6d chi = x.head<6>(), v = x.tail<6>();
  sim::Kinematics<double> k;
  if (!sim::compute_kinematics<double>(model, chi, v, k)) return false;
  sim::DynamicsTerms<double> d;
  sim::compute_dynamics_terms<double>(model, k, v, xi, d);
  const Eigen::LDLT<Mat6d> M(d.M);
  const Mat6d J_ad = k.J_ad();
  const Vec6d v_dot = M.solve(J_ad.transpose() * tau - d.Cv - d.G - d.tau_f);  // eq. (40)
  const Mat3d Je_inv = euler_rate_jacobian<double>(chi(3), chi(4)).inverse();
  out.f << v.head<3>(), Je_inv * v.tail<3>(), v_dot;
  if (!out.f.allFinite()) return false;

  Vec6<Jet> chi_j, v_j;
  for (int i = 0; i < 6; ++i) {
    chi_j(i) = Jet(chi(i), i);
    v_j(i) = Jet(v(i), 6 + i);
  }
  Vec6<Jet> r;
  const Vec6<Jet> tau_j = tau.cast<Jet>();
  if (!sim::inverse_dynamics_direct<Jet>(model, chi_j, v_j, v_dot.cast<Jet>(), xi_jet, r, &tau_j)) return false;
  const Vec3<Jet> phi_dot = euler_rate_jacobian<Jet>(chi_j(3), chi_j(4)).inverse() * v_j.tail<3>();  // eq. (2)
  Eigen::Matrix<double, 6, 12> dr;
  for (int i = 0; i < 6; ++i) dr.row(i) = r(i).v.transpose();
  out.A.setZero();
  out.A.block<3, 3>(0, 6).setIdentity();
  for (int i = 0; i < 3; ++i) out.A.row(3 + i) = phi_dot(i).v.transpose();
  out.A.bottomRows<6>() = -M.solve(dr);
  out.B_tau.topRows<6>().setZero();
  out.B_tau.bottomRows<6>() = M.solve(J_ad.transpose());
  sim::Regressor<double> Gamma;
  sim::compute_regressor<double>(model, k, v, v_dot, Gamma);  // eq. (25)
  out.dvdot_dxi = -M.solve(Gamma);
  return true;
}

}  // namespace

TwinSensitivity simulate_twin_sensitivity(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                                          const servo::PreparedReference& ref, const servo::OuterGains& gains,
                                          const Eigen::MatrixXd& P) {
  const int q = static_cast<int>(P.cols());
  const sim::XiVector<double> xi = lambda.head<sim::kNumXi>();
  const sim::XiVector<Jet> xi_jet = xi.cast<Jet>();  // constants: Xi directions use Gamma
  const Eigen::SparseMatrix<double> P_xi = P.topRows(sim::kNumXi).sparseView();
  const Eigen::RowVectorXd P_lp = P.row(sim::kGainP), P_li = P.row(sim::kGainI), P_ld = P.row(sim::kGainD);
  const double lp = lambda(sim::kGainP), li = lambda(sim::kGainI), ld = lambda(sim::kGainD);

  const servo::LoopTiming& tm = ref.timing;
  const double Tc = tm.controller_period(), Tcam = tm.camera_period(), h = Tc / tm.substeps;
  const int per_frame = tm.ticks_per_frame(), lag = tm.latency_ticks();
  const std::size_t frames = ref.exposure_times.size();

  TwinSensitivity out;
  servo::LoopResult<double>& tr = out.trace;

  // Nominal state and its sensitivities (each row block: d/d delta, q columns).
  sim::PlantState<double> x = sim::make_state<double>(ref.start_pose, Vec6d::Zero());
  Mat S_x = Mat::Zero(12, q);
  // Outer PID (eq. 30).
  servo::OuterPid<double> outer;
  Mat S_int = Mat::Zero(6, q), S_prev_meas = Mat::Zero(6, q);
  if (gains.literal && !ref.updates.empty()) outer.start_literal(gains, ref.updates.front(), ref.start_theta);
  Vec6d U = ref.start_theta;
  Mat S_U = Mat::Zero(6, q);
  // Inner PID (eq. 31).
  servo::InnerPid<double> inner;
  const servo::JointPidGains<double> g{lp, li, ld};
  Mat S_I = Mat::Zero(6, q), S_U_prev = Mat::Zero(6, q), S_theta_prev = Mat::Zero(6, q);
  std::vector<Mat> S_measured;
  S_measured.reserve(frames);

  StageLinearization L[4];
  Mat K[4], S_stage(12, q);
  for (Mat& Ki : K) Ki.resize(12, q);
  for (int k = 0; k < ref.total_ticks; ++k) {
    if (k % per_frame == 0) {
      const std::size_t j = static_cast<std::size_t>(k / per_frame);
      if (j < frames) {
        tr.true_pose.push_back(x.head<6>());
        tr.measured.push_back(x.head<6>());
        tr.command.push_back(U);
        out.d_pose.push_back(S_x.topRows<6>());
        S_measured.push_back(S_x.topRows<6>());
      }
    }
    if (k >= lag && (k - lag) % per_frame == 0) {
      const std::size_t j = static_cast<std::size_t>((k - lag) / per_frame);
      if (j < ref.updates.size()) {
        const servo::OuterReference& o = ref.updates[j];
        // e = chi_d - m, e_dot = chi_dot_d - (m - m_prev)/Tcam, int += e Tcam.
        const Mat S_e = -S_measured[j];
        const Mat S_edot = outer.has_previous ? Mat(-(S_measured[j] - S_prev_meas) / Tcam) : Mat::Zero(6, q);
        S_int += S_e * Tcam;
        S_prev_meas = S_measured[j];
        U = outer.update(gains, o, tr.measured[j], Tcam);
        S_U = o.J_theta * (gains.kp.asDiagonal() * S_e + gains.kd.asDiagonal() * S_edot + gains.ki.asDiagonal() * S_int);
        tr.command[j] = U;
      }
    }
    // Inner PID: theta = IK(chi), d theta = J_theta d chi (eq. 29).
    sim::Kinematics<double> kin;
    if (!sim::compute_geometry<double>(model, Vec6d(x.head<6>()), kin)) {
      tr.ok = false;
      tr.failure_time = k * Tc;
      tr.failure = "twin left the workspace at t = " + std::to_string(tr.failure_time) + " s";
      out.d_pose.clear();
      return out;
    }
    sim::compute_jacobians<double>(model, Vec6d::Zero(), kin);
    const Vec6d theta = kin.theta();
    const Mat S_theta = sim::J_theta<double>(kin, Vec6d(x.head<6>())) * S_x.topRows<6>();
    const bool had_previous = inner.has_previous;
    const Vec6d e = U - theta;
    const Vec6d e_dot = had_previous ? Vec6d(((U - inner.previous_command) - (theta - inner.previous_theta)) / Tc)
                                     : Vec6d::Zero();
    const Vec6d tau = inner.update(g, U, theta, Tc);
    const Mat S_e = S_U - S_theta;
    S_I += S_e * Tc;
    const Mat S_edot = had_previous ? Mat(((S_U - S_U_prev) - (S_theta - S_theta_prev)) / Tc) : Mat::Zero(6, q);
    S_U_prev = S_U;
    S_theta_prev = S_theta;
    Mat S_tau = lp * S_e + li * S_I + ld * S_edot;
    S_tau += e * P_lp + inner.integral * P_li + e_dot * P_ld;

    // RK4 with tau held, and its exact derivative.
    for (int s = 0; s < tm.substeps; ++s) {
      const sim::PlantState<double> x0 = x;
      sim::PlantState<double> xs = x0;
      const double c[4] = {0.0, 0.5 * h, 0.5 * h, h};
      S_stage = S_x;
      for (int st = 0; st < 4; ++st) {
        if (st > 0) {
          xs = x0 + c[st] * L[st - 1].f;
          S_stage = S_x + c[st] * K[st - 1];
        }
        if (!linearize(model, xi, xi_jet, xs, tau, L[st])) {
          tr.ok = false;
          tr.failure_time = k * Tc;
          tr.failure = "twin left the workspace at t = " + std::to_string(tr.failure_time) + " s";
          out.d_pose.clear();
          return out;
        }
        K[st].noalias() = L[st].A * S_stage;
        K[st].noalias() += L[st].B_tau * S_tau;
        K[st].bottomRows<6>() += L[st].dvdot_dxi * P_xi;
      }
      x = x0 + h / 6 * (L[0].f + 2 * L[1].f + 2 * L[2].f + L[3].f);
      S_x += h / 6 * (K[0] + 2 * K[1] + 2 * K[2] + K[3]);
      if (!x.allFinite()) {
        tr.ok = false;
        tr.failure_time = (k + 1) * Tc;
        tr.failure = "twin state became non-finite at t = " + std::to_string(tr.failure_time) + " s";
        out.d_pose.clear();
        return out;
      }
    }
  }
  return out;
}

}  // namespace vcloe::oe_ident
