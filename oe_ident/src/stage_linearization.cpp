#include "stage_linearization.hpp"

#include <ceres/jet.h>

#include "vcloe/sim/dynamics_direct.hpp"

namespace vcloe::oe_ident::detail {

using Jet = ceres::Jet<double, 12>;
using Mat = Eigen::MatrixXd;

std::vector<XiEntry> xi_entries(const Mat& P) {
  std::vector<XiEntry> out;
  for (int c = 0; c < P.cols(); ++c)
    for (int k = 0; k < sim::kNumXi; ++k)
      if (P(k, c) != 0) out.push_back({k, c, P(k, c)});
  return out;
}

// With r(chi, v, v_dot, tau) = ID(chi, v, v_dot) - J_ad^T tau = 0 defining v_dot (eq. 40):
//   dv_dot = -M^-1 (dr/dchi dchi + dr/dv dv + Gamma dXi) + M^-1 J_ad^T dtau.
// dr/d[chi; v] is one Jet evaluation of the closure-vector inverse dynamics (no M, no
// factorisation inside the Jets); the rest reuses the nominal M factorisation.
// [[gnu::flatten]]: every call inside (the ceres::Jet arithmetic of the closure-vector inverse
// dynamics) is inlined; GCC 12 otherwise leaves the Jet operations as calls. The 70-parameter
// Jacobian of the 20 s run: 32.5 -> 22.7 G instructions (callgrind), about 30 % less time.
// Not under AddressSanitizer: instrumenting the one flattened function took GCC 12 more than
// 30 minutes (docs/robustness.md, "Sanitizers").
#if defined(__SANITIZE_ADDRESS__)  // GCC
#define VCLOE_FLATTEN
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)  // clang (the fuzz build)
#define VCLOE_FLATTEN
#endif
#endif
#ifndef VCLOE_FLATTEN
#define VCLOE_FLATTEN [[gnu::flatten]]
#endif
// And compiled twice on x86-64 with GCC: for AVX2 and for the baseline, the loader picking the
// one the CPU runs (function multi-versioning). A ceres::Jet<12>'s derivative part is 12
// doubles: three AVX2 registers instead of six SSE2 ones. No FMA in either version, so both give
// the same numbers (each derivative component is computed element by element, in the same
// order; identify's reports are bit for bit those of before). One stage's linearisation:
// 19.3 -> 14.3 us of CPU (docs/identification.md, "Speed").
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define VCLOE_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define VCLOE_VECTOR_CLONES
#endif
VCLOE_VECTOR_CLONES VCLOE_FLATTEN bool linearize(const sim::RobotModel& model, const sim::XiVector<double>& xi,
               const std::vector<XiEntry>& P_xi, const sim::PlantState<double>& x, const Vec6d& tau,
               StageLinearization& out) {
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
  out.J_theta = sim::J_theta<double>(k, chi);
  if (!out.f.allFinite()) return false;

  Vec6<Jet> chi_j, v_j;
  for (int i = 0; i < 6; ++i) {
    chi_j(i) = Jet(chi(i), i);
    v_j(i) = Jet(v(i), 6 + i);
  }
  Vec6<Jet> r;  // v_dot, Xi and tau enter as constants (doubles): Jet-by-double products
  if (!sim::inverse_dynamics_direct<Jet, double>(model, chi_j, v_j, v_dot, xi, r, &tau)) return false;
  const Vec3<Jet> phi_dot = euler_rate_jacobian<Jet>(chi_j(3), chi_j(4)).inverse() * v_j.tail<3>();  // eq. (2)
  Eigen::Matrix<double, 6, 12> dr;
  for (int i = 0; i < 6; ++i) dr.row(i) = r(i).v.transpose();
  out.A.setZero();
  out.A.block<3, 3>(0, 6).setIdentity();
  for (int i = 0; i < 3; ++i) out.A.row(3 + i) = phi_dot(i).v.transpose();
  out.A.bottomRows<6>() = -M.solve(dr);
  out.B_tau = M.solve(J_ad.transpose());
  sim::Regressor<double> Gamma;
  sim::compute_regressor<double>(model, k, v, v_dot, Gamma);  // eq. (25)
  // -M^-1 Gamma P_xi: the product over P_xi's non-zeros (a few per column) into the stage's own
  // matrix, in the order of Eigen's sparse product, so the numbers are those of -M.solve(Gamma) *
  // P_xi to the bit — without its temporary and its generic kernel. (Scaling Gamma's columns
  // before the solve instead changed the last bits, and on one truth the fit's path: 19 -> 13
  // identified, docs/identification.md "Speed".)
  const sim::Regressor<double> Y = -M.solve(Gamma);
  out.dvdot_P.setZero();
  for (const XiEntry& e : P_xi) out.dvdot_P.col(e.column) += e.value * Y.col(e.xi);
  return true;
}

}  // namespace vcloe::oe_ident::detail
