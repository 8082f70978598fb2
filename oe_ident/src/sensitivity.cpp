#include "vcloe/oe_ident/sensitivity.hpp"
#include "vcloe/sim/dynamics_direct.hpp"

#include <ceres/jet.h>

#include <atomic>
#include <thread>

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

// What the sensitivity pass needs from one controller tick of the nominal run.
struct TickRecord {
  int exposure = -1;           // frame exposed at this tick
  int update = -1;             // frame whose outer update happens at this tick
  bool outer_had_previous = false;
  bool inner_had_previous = false;
  Mat6d J_theta;               // d theta / d chi at the tick's pose (eq. 29)
  Vec6d e, e_dot, integral;    // inner PID error, its difference quotient, integral (eq. 31)
  Vec6d tau;
  std::vector<sim::PlantState<double>> stages;  // 4 per RK4 substep
};

void fail_trace(servo::LoopResult<double>& tr, double t, const std::string& why) {
  tr.ok = false;
  tr.failure_time = t;
  tr.failure = why + " at t = " + std::to_string(t) + " s";
}

}  // namespace

TwinSensitivity simulate_twin_sensitivity(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                                          const servo::PreparedReference& ref, const servo::OuterGains& gains,
                                          const Eigen::MatrixXd& P, int threads) {
  const int q = static_cast<int>(P.cols());
  const sim::XiVector<double> xi = lambda.head<sim::kNumXi>();
  const sim::XiVector<Jet> xi_jet = xi.cast<Jet>();  // constants: Xi directions use Gamma
  const Eigen::SparseMatrix<double> P_xi = P.topRows(sim::kNumXi).sparseView();
  const Eigen::RowVectorXd P_lp = P.row(sim::kGainP), P_li = P.row(sim::kGainI), P_ld = P.row(sim::kGainD);
  const servo::JointPidGains<double> g{lambda(sim::kGainP), lambda(sim::kGainI), lambda(sim::kGainD)};

  const servo::LoopTiming& tm = ref.timing;
  const double Tc = tm.controller_period(), Tcam = tm.camera_period(), h = Tc / tm.substeps;
  const int per_frame = tm.ticks_per_frame(), lag = tm.latency_ticks(), substeps = tm.substeps;
  const std::size_t frames = ref.exposure_times.size();
  threads = std::max(1, threads);

  TwinSensitivity out;
  servo::LoopResult<double>& tr = out.trace;

  // Nominal state of the loop (as simulate_twin).
  sim::PlantState<double> x = sim::make_state<double>(ref.start_pose, Vec6d::Zero());
  servo::OuterPid<double> outer;
  if (gains.literal && !ref.updates.empty()) outer.start_literal(gains, ref.updates.front(), ref.start_theta);
  Vec6d U = ref.start_theta;
  servo::InnerPid<double> inner;
  // Sensitivities (q columns each).
  Mat S_x = Mat::Zero(12, q), S_int = Mat::Zero(6, q), S_prev_meas = Mat::Zero(6, q), S_U = Mat::Zero(6, q);
  Mat S_I = Mat::Zero(6, q), S_U_prev = Mat::Zero(6, q), S_theta_prev = Mat::Zero(6, q);
  Mat K[4], S_stage(12, q), S_tau(6, q), S_e(6, q), S_theta(6, q);
  for (Mat& Ki : K) Ki.resize(12, q);
  // The drives start holding the robot at rest (servo::TwinRobot): integral I0 = tau_hold / li
  // with tau_hold = J_ad^-T Gamma(chi0, 0, 0) Xi (eqs. 23, 25), so
  // dI0 = (J_ad^-T Gamma0 dXi - I0 dli) / li.
  {
    sim::Kinematics<double> k0;
    if (!sim::compute_kinematics<double>(model, ref.start_pose, Vec6d::Zero(), k0)) {
      fail_trace(tr, 0.0, "the start pose is outside the workspace");
      return out;
    }
    sim::Regressor<double> Gamma0;
    sim::compute_regressor<double>(model, k0, Vec6d::Zero(), Vec6d::Zero(), Gamma0);
    const Eigen::Matrix<double, 6, sim::kNumXi> H = k0.J_ad().transpose().partialPivLu().solve(Gamma0);
    const Vec6d tau_hold = H * xi;
    inner.start_holding(g, tau_hold);
    if (g.li != 0) S_I = (H * P_xi - inner.integral * P_li) / g.li;
  }
  std::vector<Mat> S_measured;
  S_measured.reserve(frames);

  // The run is processed in chunks of ticks, in three passes: (1) the nominal loop, recording
  // what the sensitivities need; (2) the linearisations of every RK4 stage of the chunk, which
  // are independent of each other and run on `threads` cores; (3) the sensitivity recursion.
  constexpr int kChunk = 250;
  std::vector<TickRecord> rec(kChunk);
  std::vector<StageLinearization> lin(static_cast<std::size_t>(kChunk * 4 * substeps));
  for (int k0 = 0; k0 < ref.total_ticks; k0 += kChunk) {
    const int n = std::min(kChunk, ref.total_ticks - k0);
    // Pass 1: nominal.
    for (int i = 0; i < n; ++i) {
      const int k = k0 + i;
      TickRecord& r = rec[static_cast<std::size_t>(i)];
      r.exposure = r.update = -1;
      if (k % per_frame == 0 && static_cast<std::size_t>(k / per_frame) < frames) {
        r.exposure = k / per_frame;
        tr.true_pose.push_back(x.head<6>());
        tr.measured.push_back(x.head<6>());
        tr.command.push_back(U);
      }
      if (k >= lag && (k - lag) % per_frame == 0 && static_cast<std::size_t>((k - lag) / per_frame) < ref.updates.size()) {
        r.update = (k - lag) / per_frame;
        r.outer_had_previous = outer.has_previous;
        U = outer.update(gains, ref.updates[static_cast<std::size_t>(r.update)],
                         tr.measured[static_cast<std::size_t>(r.update)], Tcam);
        tr.command[static_cast<std::size_t>(r.update)] = U;
      }
      sim::Kinematics<double> kin;
      if (!sim::compute_geometry<double>(model, Vec6d(x.head<6>()), kin)) {
        fail_trace(tr, k * Tc, "twin left the workspace");
        out.d_pose.clear();
        return out;
      }
      sim::compute_jacobians<double>(model, Vec6d::Zero(), kin);
      const Vec6d theta = kin.theta();
      r.J_theta = sim::J_theta<double>(kin, Vec6d(x.head<6>()));
      r.inner_had_previous = inner.has_previous;
      r.e = U - theta;
      r.e_dot = r.inner_had_previous ? Vec6d(((U - inner.previous_command) - (theta - inner.previous_theta)) / Tc)
                                     : Vec6d::Zero();
      r.tau = inner.update(g, U, theta, Tc);
      r.integral = inner.integral;
      r.stages.resize(static_cast<std::size_t>(4 * substeps));
      for (int sub = 0; sub < substeps; ++sub) {
        const sim::PlantState<double> x0 = x;
        sim::PlantState<double> f[4];
        const double c[4] = {0.0, 0.5 * h, 0.5 * h, h};
        for (int st = 0; st < 4; ++st) {
          const sim::PlantState<double> xs = st == 0 ? x0 : sim::PlantState<double>(x0 + c[st] * f[st - 1]);
          r.stages[static_cast<std::size_t>(4 * sub + st)] = xs;
          if (!sim::plant_derivative<double>(model, xi, xs, r.tau, f[st])) {
            fail_trace(tr, (k + 1) * Tc, "twin left the workspace");
            out.d_pose.clear();
            return out;
          }
        }
        x = x0 + h / 6 * (f[0] + 2 * f[1] + 2 * f[2] + f[3]);
      }
    }
    // Pass 2: linearise every stage of the chunk, split over the cores.
    const int stages = n * 4 * substeps;
    std::atomic<bool> ok{true};
    auto work = [&](int part) {
      for (int idx = part; idx < stages && ok; idx += threads) {
        const TickRecord& r = rec[static_cast<std::size_t>(idx / (4 * substeps))];
        if (!linearize(model, xi, xi_jet, r.stages[static_cast<std::size_t>(idx % (4 * substeps))], r.tau,
                       lin[static_cast<std::size_t>(idx)]))
          ok = false;
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& t : pool) t.join();
    if (!ok) {
      fail_trace(tr, k0 * Tc, "twin linearisation failed");
      out.d_pose.clear();
      return out;
    }
    // Pass 3: the sensitivity recursion through controllers, hold and RK4.
    for (int i = 0; i < n; ++i) {
      const TickRecord& r = rec[static_cast<std::size_t>(i)];
      if (r.exposure >= 0) {
        out.d_pose.push_back(S_x.topRows<6>());
        S_measured.push_back(S_x.topRows<6>());
      }
      if (r.update >= 0) {
        // eq. (30): e = chi_d - m, e_dot = chi_dot_d - (m - m_prev)/Tcam, int += e Tcam.
        const servo::OuterReference& o = ref.updates[static_cast<std::size_t>(r.update)];
        const Mat& S_m = S_measured[static_cast<std::size_t>(r.update)];
        const Mat S_edot = r.outer_had_previous ? Mat(-(S_m - S_prev_meas) / Tcam) : Mat::Zero(6, q);
        S_int -= S_m * Tcam;
        S_U = o.J_theta * (gains.kd.asDiagonal() * S_edot - gains.kp.asDiagonal() * S_m +
                           gains.ki.asDiagonal() * S_int);
        S_prev_meas = S_m;
      }
      // eq. (31) with theta = IK(chi): d theta = J_theta d chi.
      S_theta.noalias() = r.J_theta * S_x.topRows<6>();
      S_e = S_U - S_theta;
      S_I += S_e * Tc;
      S_tau = g.lp * S_e + g.li * S_I;
      if (r.inner_had_previous) S_tau += g.ld / Tc * ((S_U - S_U_prev) - (S_theta - S_theta_prev));
      S_tau += r.e * P_lp + r.integral * P_li + r.e_dot * P_ld;
      S_U_prev = S_U;
      S_theta_prev = S_theta;
      for (int sub = 0; sub < substeps; ++sub) {
        const double c[4] = {0.0, 0.5 * h, 0.5 * h, h};
        for (int st = 0; st < 4; ++st) {
          const StageLinearization& L = lin[static_cast<std::size_t>((i * substeps + sub) * 4 + st)];
          if (st == 0) S_stage = S_x;
          else S_stage = S_x + c[st] * K[st - 1];
          K[st].noalias() = L.A * S_stage;
          K[st].noalias() += L.B_tau * S_tau;
          K[st].bottomRows<6>() += L.dvdot_dxi * P_xi;
        }
        S_x += h / 6 * (K[0] + 2 * K[1] + 2 * K[2] + K[3]);
      }
    }
  }
  return out;
}

}  // namespace vcloe::oe_ident
