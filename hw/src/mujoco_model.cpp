#include "vcloe/hw/mujoco_model.hpp"

#include <mujoco/mujoco.h>

#include <Eigen/QR>
#include <cmath>
#include <cstring>
#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/sim/kinematics.hpp"

namespace vcloe::hw {

namespace {

// MuJoCo's default error handler waits for Enter and exits; ours throws.
thread_local std::string last_warning;
void on_error(const char* msg) { throw Error(std::string("MuJoCo: ") + msg); }
void on_warning(const char* msg) { last_warning = msg; }
void install_handlers() {
  mju_user_error = on_error;
  mju_user_warning = on_warning;
}

using Quat = Eigen::Quaterniond;

std::string num(double x) { return exact_number(x); }
std::string vec(const Vec3d& v) { return num(v.x()) + " " + num(v.y()) + " " + num(v.z()); }

// The platform's inertial element: MuJoCo takes a body's inertia at its centre of mass. Lambda's
// platform moments are about E (its first moments m c place the centre at c in E), so with c != 0
// the tensor about c, I_E - m (|c|^2 1 - c c^T), is written in full (sim::platform_inertia_at_com).
std::string platform_inertial(const sim::LambdaVector<double>& L) {
  const std::string mass = num(L(sim::platform_index(0)));
  if (L.segment<3>(sim::first_moment_index(0)) == Vec3d::Zero())
    return "<inertial pos=\"" + vec(Vec3d::Zero()) + "\" mass=\"" + mass + "\" diaginertia=\"" + num(L(1)) + " " + num(L(2)) + " " +
           num(L(3)) + "\"/>";
  const Mat3d I = sim::platform_inertia_at_com(L);
  return "<inertial pos=\"" + vec(sim::platform_com(L)) + "\" mass=\"" + mass + "\" fullinertia=\"" + num(I(0, 0)) +
         " " + num(I(1, 1)) + " " + num(I(2, 2)) + " " + num(I(0, 1)) + " " + num(I(0, 2)) + " " + num(I(1, 2)) + "\"/>";
}
std::string quat(const Mat3d& R) {
  const Quat q(R);
  return num(q.w()) + " " + num(q.x()) + " " + num(q.y()) + " " + num(q.z());
}
Mat3d from_mj_quat(const mjtNum* q) { return Quat(q[0], q[1], q[2], q[3]).normalized().toRotationMatrix(); }
void to_mj_quat(const Mat3d& R, mjtNum* q) {
  const Quat u(R);
  q[0] = u.w();
  q[1] = u.x();
  q[2] = u.y();
  q[3] = u.z();
}

// Crank frame at angle theta: x along the crank, z along the axis (docs/model.md).
Mat3d crank_frame(const sim::Leg& leg, double theta) {
  const Vec3d x0 = leg.wrench.normalized();
  Mat3d R0;
  R0 << x0, leg.axis.cross(x0), leg.axis;
  return Eigen::AngleAxisd(theta, leg.axis).toRotationMatrix() * R0;
}

// Link frame with z along l: the written frame carried by the minimal rotation to the new l.
Mat3d link_frame(const Mat3d& written, const Vec3d& lhat) {
  return Quat::FromTwoVectors(written.col(2), lhat).toRotationMatrix() * written;
}

Mat3d initial_link_frame(const Vec3d& lhat, const Vec3d& axis) {
  Vec3d x = axis.cross(lhat);
  if (x.norm() < 1e-9) x = lhat.unitOrthogonal();
  x.normalize();
  Mat3d R;
  R << x, lhat.cross(x), lhat;
  return R;
}

const char* integrator_name(MujocoIntegrator i) {
  switch (i) {
    case MujocoIntegrator::euler: return "Euler";
    case MujocoIntegrator::implicit: return "implicit";
    case MujocoIntegrator::rk4: break;
  }
  return "RK4";
}

}  // namespace

sim::LambdaVector<double> engine_consistent(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                                            std::vector<std::string>& adjustments) {
  sim::LambdaVector<double> out = lambda;
  const auto& reg = sim::parameter_registry();
  for (int i = 0; i < sim::kLegs; ++i) {
    // Crank: only Iz about its axis matters; raise the smaller of Ix, Iy until Ix + Iy >= Iz
    // (MuJoCo's only requirement: the triangle inequalities).
    const int ix = sim::wrench_index(i, 1), iy = sim::wrench_index(i, 2);
    const double Iz = out(sim::wrench_index(i, 3));
    if (out(ix) + out(iy) < Iz) {
      const int idx = out(ix) <= out(iy) ? ix : iy, other = idx == ix ? iy : ix;
      const double v = (Iz - out(other)) * 1.001;
      adjustments.push_back(reg[idx].name + " " + num(out(idx)) + " -> " + num(v) +
                            " kg*m^2 (invisible: the crank only turns about its axis)");
      out(idx) = v;
    }
    // Link: spin inertia never enters; lower it to satisfy Iz <= Ix + Iy.
    const int iz = sim::link_index(i, 3);
    const double bound = 0.99 * (out(sim::link_index(i, 1)) + out(sim::link_index(i, 2)));
    if (out(iz) > bound) {
      adjustments.push_back(reg[iz].name + " " + num(out(iz)) + " -> " + num(bound) +
                            " kg*m^2 (invisible: links do not spin)");
      out(iz) = bound;
    }
  }
  // What remains inconsistent is visible to the dynamics: refuse rather than change it.
  for (const auto& s : sim::check_physical_consistency(out))
    if (s.find("triangle") != std::string::npos || s.find("mass must") != std::string::npos ||
        s.find("inertia must") != std::string::npos)
      fail(model.source.empty() ? "robot" : model.source, "not loadable by MuJoCo: " + s);
  return out;
}

struct MujocoRobot::Impl {
  sim::RobotModel model;
  MujocoOptions options;
  std::string xml;
  mjModel* m = nullptr;
  mjData* d = nullptr;
  Vec6d theta_written = Vec6d::Zero();
  std::array<Mat3d, sim::kLegs> link_written;
  int platform_body = -1;
  std::array<int, sim::kLegs> crank_body{}, link_body{}, hinge_qpos{}, hinge_dof{}, ball_qpos{}, ball_dof{};
  int free_qpos = 0, free_dof = 0;

  ~Impl() {
    if (d) mj_deleteData(d);
    if (m) mj_deleteModel(m);
  }
};

MujocoRobot::MujocoRobot(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MujocoRobot::~MujocoRobot() = default;
MujocoRobot::MujocoRobot(MujocoRobot&&) noexcept = default;
MujocoRobot& MujocoRobot::operator=(MujocoRobot&&) noexcept = default;

MujocoRobot MujocoRobot::build(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                               const MujocoOptions& options) {
  return build(model, lambda, model.home, options);
}

// Compiles impl.xml with MuJoCo and finds the bodies, joints and their state addresses.
void MujocoRobot::load_compiled(Impl& model_data) {
  Impl* impl = &model_data;
  mjVFS vfs;
  mj_defaultVFS(&vfs);
  if (mj_makeEmptyFileVFS(&vfs, "model.xml", static_cast<int>(impl->xml.size())) != 0)
    fail("MuJoCo model", "cannot create the in-memory model file");
  const int idx = mj_findFileVFS(&vfs, "model.xml");
  std::memcpy(vfs.filedata[idx], impl->xml.data(), impl->xml.size());
  char error[1000] = "";
  impl->m = mj_loadXML("model.xml", &vfs, error, sizeof error);
  mj_deleteVFS(&vfs);
  if (!impl->m) fail("MuJoCo model", std::string("MuJoCo rejected the generated model: ") + error);
  impl->d = mj_makeData(impl->m);
  if (!impl->d) fail("MuJoCo model", "cannot allocate mjData");

  auto id = [&](mjtObj type, const std::string& name) {
    const int v = mj_name2id(impl->m, type, name.c_str());
    if (v < 0) fail("MuJoCo model", "missing " + name);
    return v;
  };
  impl->platform_body = id(mjOBJ_BODY, "platform");
  const int fj = id(mjOBJ_JOINT, "platform");
  impl->free_qpos = impl->m->jnt_qposadr[fj];
  impl->free_dof = impl->m->jnt_dofadr[fj];
  for (int i = 0; i < sim::kLegs; ++i) {
    impl->crank_body[i] = id(mjOBJ_BODY, "crank" + std::to_string(i));
    impl->link_body[i] = id(mjOBJ_BODY, "link" + std::to_string(i));
    const int h = id(mjOBJ_JOINT, "theta" + std::to_string(i)), b = id(mjOBJ_JOINT, "ball" + std::to_string(i));
    impl->hinge_qpos[i] = impl->m->jnt_qposadr[h];
    impl->hinge_dof[i] = impl->m->jnt_dofadr[h];
    impl->ball_qpos[i] = impl->m->jnt_qposadr[b];
    impl->ball_dof[i] = impl->m->jnt_dofadr[b];
  }
}

MujocoRobot MujocoRobot::build(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda, const Vec6d& pose,
                               const MujocoOptions& o) {
  install_handlers();
  const auto issues = sim::check_physical_consistency(lambda);
  for (const auto& s : issues)
    if (s.find("triangle") != std::string::npos || s.find("mass must") != std::string::npos ||
        s.find("inertia must") != std::string::npos)
      fail(model.source.empty() ? "robot" : model.source,
           "MuJoCo needs physically consistent bodies (use engine_consistent): " + s);
  if (!(o.timestep > 0)) fail("MuJoCo options", "timestep must be positive");

  auto impl = std::make_unique<Impl>();
  impl->model = model;
  impl->options = o;
  sim::Kinematics<double> k;
  int failing = -1;
  if (!sim::compute_geometry<double>(model, pose, k, &failing))
    fail("MuJoCo model", "pose not reachable (leg " + std::to_string(failing + 1) + ")");
  impl->theta_written = k.theta();

  // The model is written at a closed pose: MuJoCo anchors each `connect` from qpos0.
  const auto& L = lambda;
  const double solref = o.solref_timesteps * o.timestep;
  std::ostringstream x;
  x << "<mujoco model=\"vcloe-" << model.name << "\">\n"
    << "  <compiler angle=\"radian\" inertiafromgeom=\"false\"/>\n"
    << "  <option timestep=\"" << num(o.timestep) << "\" integrator=\"" << integrator_name(o.integrator)
    << "\" gravity=\"" << vec(model.gravity) << "\">\n    <flag contact=\"disable\"/>\n  </option>\n"
    << "  <size njmax=\"40\" nconmax=\"1\"/>\n  <worldbody>\n";
  const Mat3d R = rotation_of<double>(pose);
  x << "    <body name=\"platform\" pos=\"" << vec(pose.head<3>()) << "\" quat=\"" << quat(R) << "\">\n"
    << "      <freejoint name=\"platform\"/>\n"
    << "      " << platform_inertial(L) << "\n    </body>\n";
  for (int i = 0; i < sim::kLegs; ++i) {
    const sim::Leg& leg = model.legs[i];
    const auto& g = k.geometry[i];
    const Mat3d Rw = crank_frame(leg, g.theta);
    const Mat3d Rl = initial_link_frame(g.l.normalized(), leg.axis);
    impl->link_written[i] = Rl;
    const double r = leg.wrench.norm(), Ll = leg.link_length;
    x << "    <body name=\"crank" << i << "\" pos=\"" << vec(leg.base_joint) << "\" quat=\"" << quat(Rw) << "\">\n"
      << "      <joint name=\"theta" << i << "\" type=\"hinge\" axis=\"0 0 1\" pos=\"0 0 0\"/>\n"
      << "      <inertial pos=\"" << num(model.wrench_com * r) << " 0 0\" mass=\"" << num(L(sim::wrench_index(i, 0)))
      << "\" diaginertia=\"" << num(L(sim::wrench_index(i, 1))) << " " << num(L(sim::wrench_index(i, 2))) << " "
      << num(L(sim::wrench_index(i, 3))) << "\"/>\n"
      << "      <body name=\"link" << i << "\" pos=\"" << num(r) << " 0 0\" quat=\"" << quat(Rw.transpose() * Rl)
      << "\">\n"
      << "        <joint name=\"ball" << i << "\" type=\"ball\" pos=\"0 0 0\"/>\n"
      << "        <inertial pos=\"0 0 " << num(model.link_com * Ll) << "\" mass=\"" << num(L(sim::link_index(i, 0)))
      << "\" diaginertia=\"" << num(L(sim::link_index(i, 1))) << " " << num(L(sim::link_index(i, 2))) << " "
      << num(L(sim::link_index(i, 3))) << "\"/>\n      </body>\n    </body>\n";
  }
  x << "  </worldbody>\n  <equality>\n";
  for (int i = 0; i < sim::kLegs; ++i)
    x << "    <connect body1=\"link" << i << "\" body2=\"platform\" anchor=\"0 0 "
      << num(model.legs[i].link_length) << "\" solref=\"" << num(solref) << " 1\" solimp=\"" << num(o.solimp) << " "
      << num(o.solimp) << " 0.001\"/>\n";
  x << "  </equality>\n</mujoco>\n";
  impl->xml = x.str();

  load_compiled(*impl);
  MujocoRobot robot(std::move(impl));
  robot.set_state(pose, Vec6d::Zero());
  return robot;
}

const std::string& MujocoRobot::xml() const { return impl_->xml; }
double MujocoRobot::timestep() const { return impl_->m->opt.timestep; }
double MujocoRobot::time() const { return impl_->d->time; }

void MujocoRobot::set_state(const Vec6d& chi, const Vec6d& v) {
  Impl& s = *impl_;
  sim::Kinematics<double> k;
  if (!sim::compute_kinematics<double>(s.model, chi, v, k)) fail("MuJoCo state", "pose not reachable");
  const Mat3d R = rotation_of<double>(chi);
  mjtNum* qpos = s.d->qpos;
  mjtNum* qvel = s.d->qvel;
  for (int c = 0; c < 3; ++c) qpos[s.free_qpos + c] = chi(c);
  to_mj_quat(R, qpos + s.free_qpos + 3);
  const Vec3d omega_local = R.transpose() * v.tail<3>();
  for (int c = 0; c < 3; ++c) {
    qvel[s.free_dof + c] = v(c);  // linear velocity of the body origin (E), world frame
    qvel[s.free_dof + 3 + c] = omega_local(c);
  }
  for (int i = 0; i < sim::kLegs; ++i) {
    const auto& g = k.geometry[i];
    const auto& j = k.jacobians[i];
    const sim::Leg& leg = s.model.legs[i];
    qpos[s.hinge_qpos[i]] = g.theta - s.theta_written(i);
    qvel[s.hinge_dof[i]] = j.theta_dot;
    const Mat3d Rw = crank_frame(leg, g.theta);
    const Mat3d rel_written = crank_frame(leg, s.theta_written(i)).transpose() * s.link_written[i];
    const Mat3d Rl = link_frame(s.link_written[i], g.l.normalized());
    to_mj_quat((Rw * rel_written).transpose() * Rl, qpos + s.ball_qpos[i]);
    const Vec3d omega1 = j.theta_dot * leg.axis;
    const Vec3d omega2 = j.J_b.bottomRows<3>() * v;
    const Vec3d rel = Rl.transpose() * (omega2 - omega1);  // ball qvel: child-frame axes
    for (int c = 0; c < 3; ++c) qvel[s.ball_dof[i] + c] = rel(c);
  }
  mj_forward(s.m, s.d);
}

bool MujocoRobot::step(const Vec6d& tau, int steps) {
  Impl& s = *impl_;
  mju_zero(s.d->qfrc_applied, s.m->nv);
  for (int i = 0; i < sim::kLegs; ++i) s.d->qfrc_applied[s.hinge_dof[i]] = tau(i);
  for (int n = 0; n < steps; ++n) {
    const int bad = s.d->warning[mjWARN_BADQACC].number;
    mj_step(s.m, s.d);
    if (s.d->warning[mjWARN_BADQACC].number != bad) return false;  // MuJoCo reset the state
  }
  for (int i = 0; i < s.m->nq; ++i)
    if (!std::isfinite(s.d->qpos[i])) return false;
  return true;
}

Vec6d MujocoRobot::platform_pose() const {
  const Impl& s = *impl_;
  Vec6d chi;
  for (int c = 0; c < 3; ++c) chi(c) = s.d->qpos[s.free_qpos + c];
  chi.tail<3>() = euler_xyz(from_mj_quat(s.d->qpos + s.free_qpos + 3));
  return chi;
}

Vec6d MujocoRobot::platform_twist() const {
  const Impl& s = *impl_;
  const Mat3d R = from_mj_quat(s.d->qpos + s.free_qpos + 3);
  Vec6d v;
  for (int c = 0; c < 3; ++c) v(c) = s.d->qvel[s.free_dof + c];
  v.tail<3>() = R * Vec3d(s.d->qvel[s.free_dof + 3], s.d->qvel[s.free_dof + 4], s.d->qvel[s.free_dof + 5]);
  return v;
}

Vec6d MujocoRobot::joint_angles() const {
  Vec6d q;
  for (int i = 0; i < sim::kLegs; ++i) q(i) = impl_->theta_written(i) + impl_->d->qpos[impl_->hinge_qpos[i]];
  return q;
}

Vec6d MujocoRobot::joint_velocities() const {
  Vec6d q;
  for (int i = 0; i < sim::kLegs; ++i) q(i) = impl_->d->qvel[impl_->hinge_dof[i]];
  return q;
}

double MujocoRobot::closure_error() const {
  const Impl& s = *impl_;
  double worst = 0;
  const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> Rp(s.d->xmat + 9 * s.platform_body);
  const Eigen::Map<const Vec3d> Ep(s.d->xpos + 3 * s.platform_body);
  for (int i = 0; i < sim::kLegs; ++i) {
    const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> Rl(s.d->xmat + 9 * s.link_body[i]);
    const Eigen::Map<const Vec3d> T(s.d->xpos + 3 * s.link_body[i]);
    const Vec3d A_link = T + Rl * Vec3d(0, 0, s.model.legs[i].link_length);
    const Vec3d A_platform = Ep + Rp * s.model.legs[i].platform_joint;
    worst = std::max(worst, (A_link - A_platform).norm());
  }
  return worst;
}

Vec6d MujocoRobot::inverse_dynamics(const Vec6d& chi, const Vec6d& v, const Vec6d& v_dot, double* residual,
                                    Eigen::Matrix<double, 3, 6>* platform_joint_forces) {
  Impl& s = *impl_;
  set_state(chi, v);  // mj_forward: positions, velocities, com quantities
  sim::Kinematics<double> k;
  sim::compute_kinematics<double>(s.model, chi, v, k);
  const int nv = s.m->nv;
  mjtNum* qacc = s.d->qacc;
  const Mat3d R = rotation_of<double>(chi);
  const Vec3d alpha_local = R.transpose() * v_dot.tail<3>();  // d/dt (R^T w) = R^T w_dot
  for (int c = 0; c < 3; ++c) {
    qacc[s.free_dof + c] = v_dot(c);
    qacc[s.free_dof + 3 + c] = alpha_local(c);
  }
  for (int i = 0; i < sim::kLegs; ++i) {
    const auto& g = k.geometry[i];
    const auto& j = k.jacobians[i];
    const sim::Leg& leg = s.model.legs[i];
    const double theta_ddot = j.J_ad.dot(v_dot) + j.J_ad_dot.dot(v);
    qacc[s.hinge_dof[i]] = theta_ddot;
    const Mat3d Rl = link_frame(s.link_written[i], g.l.normalized());
    const Vec3d omega1 = j.theta_dot * leg.axis, omega1_dot = theta_ddot * leg.axis;
    const Vec3d omega2 = j.J_b.bottomRows<3>() * v;
    const Vec3d omega2_dot = j.J_b.bottomRows<3>() * v_dot + j.J_b_dot.bottomRows<3>() * v;
    // qvel_ball = R_L^T (w2 - w1)  =>  qacc_ball = R_L^T (w2_dot - w1_dot + w2 x w1).
    const Vec3d a = Rl.transpose() * (omega2_dot - omega1_dot + omega2.cross(omega1));
    for (int c = 0; c < 3; ++c) qacc[s.ball_dof[i] + c] = a(c);
  }
  Eigen::VectorXd rne(nv);
  mj_rne(s.m, s.d, 1, rne.data());  // M qacc + bias (gravity, Coriolis)

  // M qacc + c = B tau + J_c^T lambda, with J_c the connect Jacobians at A_i.
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(nv, 6 + 3 * sim::kLegs);
  for (int i = 0; i < sim::kLegs; ++i) A(s.hinge_dof[i], i) = 1.0;
  Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor> jl(3, nv), jp(3, nv);
  const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> Rp(s.d->xmat + 9 * s.platform_body);
  const Eigen::Map<const Vec3d> Ep(s.d->xpos + 3 * s.platform_body);
  for (int i = 0; i < sim::kLegs; ++i) {
    const Vec3d point = Ep + Rp * s.model.legs[i].platform_joint;
    mj_jac(s.m, s.d, jl.data(), nullptr, point.data(), s.link_body[i]);
    mj_jac(s.m, s.d, jp.data(), nullptr, point.data(), s.platform_body);
    A.block(0, 6 + 3 * i, nv, 3) = (jl - jp).transpose();
  }
  const Eigen::VectorXd sol = A.colPivHouseholderQr().solve(rne);
  if (residual) *residual = (A * sol - rne).norm() / std::max(rne.norm(), 1e-300);
  // J_c^T lambda = (J_link - J_platform)^T lambda: lambda acts on the link at A_i, -lambda on the platform.
  if (platform_joint_forces)
    for (int i = 0; i < sim::kLegs; ++i) platform_joint_forces->col(i) = -sol.segment<3>(6 + 3 * i);
  return sol.head<6>();
}

}  // namespace vcloe::hw
