// Drive torques and joint forces along a motion (predict.hpp).
#include "vcloe/control/predict.hpp"

#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/sim/dynamics.hpp"

namespace vcloe::control {

namespace {

using Mat36 = Eigen::Matrix<double, 3, 6>;

// The wrench a body needs, [m (c_ddot - g); I w_dot + w x I w], its twist J v and acceleration
// J v_dot + J_dot v (the terms sim::detail::add_body sums into M, C v and G).
Vec6d body_wrench(const Mat6d& J, const Mat6d& J_dot, double mass, const Mat3d& I, const MotionSample& s,
                  const Vec3d& gravity) {
  const Vec6d twist = J * s.v, accel = J * s.v_dot + J_dot * s.v;
  const Vec3d w = twist.tail<3>();
  Vec6d W;
  W.head<3>() = mass * (accel.head<3>() - gravity);
  W.tail<3>() = I * accel.tail<3>() + w.cross(I * w);
  return W;
}

// Per leg: the maps from A_dot to the crank angle rate (l / m) and to the two bodies' twists
// (K = J P^+, exact since each leg's Jacobians factor through P = [I, -[R a]x]).
struct LegMaps {
  std::array<Vec3d, sim::kLegs> dtheta_dA;
  std::array<Mat36, sim::kLegs> KaT, KbT;
};

LegMaps leg_maps(const sim::Kinematics<double>& k) {
  LegMaps m;
  for (int i = 0; i < sim::kLegs; ++i) {
    const auto& g = k.geometry[i];
    const auto& j = k.jacobians[i];
    Mat36 P;
    P << Mat3d::Identity(), -skew<double>(g.a);
    const Eigen::Matrix<double, 6, 3> P_pinv = P.transpose() * (P * P.transpose()).inverse();
    m.dtheta_dA[i] = g.l / g.m;
    m.KaT[i] = (j.J_a * P_pinv).transpose();
    m.KbT[i] = (j.J_b * P_pinv).transpose();
  }
  return m;
}

struct LegWrenches {
  std::array<Vec6d, sim::kLegs> crank, link;
  static LegWrenches zero() {
    LegWrenches w;
    w.crank.fill(Vec6d::Zero());
    w.link.fill(Vec6d::Zero());
    return w;
  }
};

// Rows 6.. of the load: each leg's f_B, f_T, f_A (predict.hpp) from the torque that reaches
// its crank and the wrenches its two bodies need.
void put_leg_forces(const LegMaps& maps, const Vec6d& tau_net, const LegWrenches& w, LoadVector& load) {
  for (int i = 0; i < sim::kLegs; ++i) {
    const Vec3d f_A = tau_net(i) * maps.dtheta_dA[i] - maps.KaT[i] * w.crank[i] - maps.KbT[i] * w.link[i];
    const Vec3d f_T = f_A + w.link[i].head<3>();
    const Vec3d f_B = f_T + w.crank[i].head<3>();
    load.segment<3>(force_row(i, 0, 0)) = f_B;
    load.segment<3>(force_row(i, 1, 0)) = f_T;
    load.segment<3>(force_row(i, 2, 0)) = f_A;
  }
}

LegWrenches leg_wrenches(const sim::RobotModel& model, const sim::Kinematics<double>& k, const MotionSample& s,
                         const sim::XiVector<double>& xi) {
  LegWrenches w;
  for (int i = 0; i < sim::kLegs; ++i) {
    const auto& g = k.geometry[i];
    const auto& j = k.jacobians[i];
    const auto p = [&](int b, int a) { return xi(b == 0 ? sim::wrench_index(i, a) : sim::link_index(i, a)); };
    w.crank[i] = body_wrench(j.J_a, j.J_a_dot, p(0, 0), sim::detail::wrench_inertia<double>(g, p(0, 1), p(0, 2), p(0, 3)),
                             s, model.gravity);
    w.link[i] = body_wrench(j.J_b, j.J_b_dot, p(1, 0), sim::detail::link_inertia<double>(g, p(1, 1), p(1, 2), p(1, 3)),
                            s, model.gravity);
  }
  return w;
}

bool kinematics_at(const sim::RobotModel& model, const MotionSample& s, sim::Kinematics<double>& k) {
  return sim::compute_kinematics<double>(model, s.chi, s.v, k);
}

}  // namespace

bool drive_load(const sim::RobotModel& model, const MotionSample& s, const sim::XiVector<double>& xi, LoadVector& load) {
  sim::Kinematics<double> k;
  if (!kinematics_at(model, s, k)) return false;
  sim::DynamicsTerms<double> d;
  sim::compute_dynamics_terms<double>(model, k, s.v, xi, d);
  const auto lu = k.J_ad().transpose().partialPivLu();
  const Vec6d tau_net = lu.solve(Vec6d(d.M * s.v_dot + d.Cv + d.G));  // eq. (23)
  load.head<6>() = tau_net + lu.solve(d.tau_f);                          // + the joints' friction (eq. 24)
  put_leg_forces(leg_maps(k), tau_net, leg_wrenches(model, k, s, xi), load);
  return true;
}

bool drive_load_jacobian(const sim::RobotModel& model, const MotionSample& s, LoadJacobian& A) {
  sim::Kinematics<double> k;
  if (!kinematics_at(model, s, k)) return false;
  sim::Regressor<double> Gamma;
  sim::compute_regressor<double>(model, k, s.v, s.v_dot, Gamma);
  const auto lu = k.J_ad().transpose().partialPivLu();
  const Eigen::Matrix<double, 6, sim::kNumXi> torques = lu.solve(Gamma);  // tau_a = J_ad^-T Gamma Xi (eq. 25)
  const LegMaps maps = leg_maps(k);
  A.setZero();
  A.topRows<6>() = torques;
  for (int c = 0; c < sim::kNumXi; ++c) {
    if (c >= sim::coulomb_index(0)) continue;  // friction acts about the crank's axis: no joint force
    sim::XiVector<double> unit = sim::XiVector<double>::Zero();
    unit(c) = 1.0;
    const LegWrenches w = c < sim::wrench_index(0, 0) ? LegWrenches::zero() : leg_wrenches(model, k, s, unit);
    LoadVector column = LoadVector::Zero();
    put_leg_forces(maps, torques.col(c), w, column);
    A.col(c).tail<kLoadSize - 6>() = column.tail<kLoadSize - 6>();
  }
  return true;
}

Prediction predict(const sim::RobotModel& model, const sim::XiVector<double>& xi, const SampledMotion& motion,
                   const XiCovariance* covariance) {
  Prediction out;
  out.period = motion.period;
  out.load.reserve(motion.samples.size());
  for (std::size_t n = 0; n < motion.samples.size(); ++n) {
    const MotionSample s = platform_motion(model, motion.samples[n]);  // the reference is the marker frame's
    LoadVector load;
    LoadJacobian A;
    if (!drive_load(model, s, xi, load) || (covariance && !drive_load_jacobian(model, s, A)))
      fail("predict", "the pose at t = " + exact_number(motion.time(n)) + " s is not reachable");
    out.load.push_back(load);
    if (covariance) out.sigma.push_back((A * *covariance * A.transpose()).diagonal().cwiseMax(0.0).cwiseSqrt());
  }
  return out;
}

Vec6d platform_wrench(const sim::RobotModel& model, const MotionSample& s, const sim::XiVector<double>& xi) {
  sim::Kinematics<double> k;
  if (!kinematics_at(model, s, k)) fail("predict", "pose not reachable");
  const Mat3d I = sim::detail::platform_inertia<double>(k.R, xi(1), xi(2), xi(3));
  return body_wrench(Mat6d::Identity(), Mat6d::Zero(), xi(sim::platform_index(0)), I, s, model.gravity);
}

}  // namespace vcloe::control
