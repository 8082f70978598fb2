#include "vcloe/hw/model_check.hpp"

#include <chrono>
#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/core/rotation_difference.hpp"
#include "vcloe/hw/virtual_robot.hpp"
#include "vcloe/servo/twin.hpp"

namespace vcloe::hw {

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kControllerPeriod = 1e-3;  // the drives' PID at 1 kHz

// Runs a robot through the loop; returns its poses after every tick and the wall time.
template <typename Robot, typename Observer = servo::NoObserver>
std::vector<Vec6d> follow(Robot& robot, const servo::PreparedReference& ref, const std::string& engine, double& seconds,
                          Observer&& observe = {}) {
  servo::OuterGains zero;  // feedforward only: U = IK(chi_d)
  zero.kp.setZero();
  zero.ki.setZero();
  zero.kd.setZero();
  servo::VisualServo<double> controller(ref, zero);
  servo::ExactPose camera;
  const auto start = Clock::now();
  const servo::LoopResult<double> r = servo::run_loop<double>(robot, controller, camera, observe);
  seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!r.ok) fail("validate-model", engine + " " + r.failure);
  return r.true_pose;
}

}  // namespace

std::optional<SettingProblem> ModelCheckOptions::problem() const {
  // The command-line option and "<option>: <what>".
  auto bad = [](const std::string& option, const std::string& what) { return SettingProblem{option, option + ": " + what}; };
  if (!(duration > 0) || !std::isfinite(duration)) return bad("--duration", "expected a positive duration in s");
  const int sub = static_cast<int>(std::lround(kControllerPeriod / timestep));
  if (!(timestep > 0) || sub < 1 || std::abs(sub * timestep - kControllerPeriod) > 1e-12)
    return bad("--timestep", "must divide the 1 ms controller period");
  if (sub > 1000) return bad("--timestep", "expected at least 1 us (1000 steps per 1 ms controller period)");
  if (inverse_dynamics_samples < 1)
    return SettingProblem{"inverse_dynamics_samples", "validate-model: needs at least one inverse-dynamics sample"};
  return std::nullopt;
}

void ModelCheckOptions::validate(const std::string& where) const { throw_if(problem(), where); }

ModelCheck check_against_mujoco(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                                const Motion& motion, const ModelCheckOptions& o) {
  o.validate();
  ModelCheck out;
  sim::LambdaVector<double> rigid = engine_consistent(model, lambda, out.engine_adjustments);
  for (int i = 0; i < sim::kLegs; ++i) rigid(sim::coulomb_index(i)) = rigid(sim::viscous_index(i)) = 0;

  // One more tick than the duration: frame k is the pose after k ticks, k = 0 .. N.
  servo::LoopTiming timing;
  timing.controller_hz = timing.camera_hz = 1.0 / kControllerPeriod;
  timing.latency = 0;
  timing.substeps = static_cast<int>(std::lround(kControllerPeriod / o.timestep));
  const servo::PreparedReference ref =
      servo::prepare_reference(model, timing, o.duration + kControllerPeriod, [&](double t) {
        const MotionSample s = motion(t);
        return servo::ReferenceSample{s.chi, s.chi_dot};
      });
  const Vec6d start = ref.start_pose;

  double t_ours = 0, t_mj = 0;
  servo::TwinRobot<double> ours(model, rigid, timing, start, servo::TwinRobot<double>::Start::Unpowered);
  const std::vector<Vec6d> a = follow(ours, ref, "our model", t_ours);
  VirtualRobotOptions vo;
  vo.engine.timestep = o.timestep;
  vo.joint_friction = vo.start_holding = vo.safety_stop = false;
  VirtualRobot mj(model, rigid, start, vo);
  const std::vector<Vec6d> b = follow(mj, ref, "MuJoCo", t_mj, [&](const servo::TickRecord&) {
    out.closure_max = std::max(out.closure_max, mj.closure_error());
    return true;
  });

  const std::size_t n = a.size() - 1;
  Vec6d sum_sq = Vec6d::Zero();
  for (std::size_t k = 1; k <= n; ++k) {
    const Vec6d e = pose_difference(b[k], a[k]).cwiseAbs();  // angles as rotations: one pose at +-pi is no divergence
    out.max_error = out.max_error.cwiseMax(e);
    sum_sq += e.cwiseProduct(e);
  }
  out.rms_error = (sum_sq / static_cast<double>(n)).cwiseSqrt();
  const double steps = static_cast<double>(n) * timing.substeps;
  out.ours_us_per_step = 1e6 * t_ours / steps;
  out.mujoco_us_per_step = 1e6 * t_mj / steps;

  // Rigid inverse dynamics at states along the motion.
  MujocoRobot engine = MujocoRobot::build(model, rigid, start, MujocoOptions{o.timestep});
  const sim::XiVector<double> xi = rigid.head<sim::kNumXi>();
  for (int s = 0; s < o.inverse_dynamics_samples; ++s) {
    const double t = o.duration * (s + 0.5) / o.inverse_dynamics_samples;
    const MotionSample m = motion(t);
    sim::Kinematics<double> k;
    Vec6d tau_g;
    if (!sim::compute_kinematics<double>(model, m.chi, m.v, k) ||
        !sim::inverse_dynamics<double>(model, m.chi, m.v, m.v_dot, xi, tau_g))
      fail("validate-model", "the motion leaves the workspace at t = " + std::to_string(t) + " s");
    const Vec6d mine = sim::actuator_torques<double>(k, tau_g);
    double residual = 0;
    const Vec6d theirs = engine.inverse_dynamics(m.chi, m.v, m.v_dot, &residual);
    out.id_rel_err_max = std::max(out.id_rel_err_max, (mine - theirs).norm() / theirs.norm());
    out.id_lsq_residual_max = std::max(out.id_lsq_residual_max, residual);
  }
  out.pass = out.max_error.head<3>().maxCoeff() * 1e3 <= o.pos_max_mm &&
             out.max_error.tail<3>().maxCoeff() * 1e3 <= o.rot_max_mrad && out.id_rel_err_max <= o.id_rel_err_max &&
             out.closure_max * 1e3 <= o.closure_max_mm;
  return out;
}

}  // namespace vcloe::hw
