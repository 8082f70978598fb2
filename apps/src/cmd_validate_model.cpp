// `vcloe validate-model`: our virtual-work model against an independent MuJoCo model of the
// same robot (seed 004 section 4.1 did this with SimMechanics, Fig. 8).
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/hw/mujoco_model.hpp"
#include "vcloe/servo/controllers.hpp"
#include "vcloe/sim/plant.hpp"

namespace vcloe::app {

namespace {

struct Targets {
  double pos_max_mm = 0.05, rot_max_mrad = 0.1, id_rel_err_max = 1e-6, closure_max_mm = 0.01;
};

}  // namespace

void add_validate_model_command(CLI::App& app) {
  struct Options {
    std::string robot;
    double duration = 10.0;
    double timestep = 0.25e-3;
    std::uint64_t seed = 2;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  o->robot = default_robot_file();
  CLI::App* cmd = app.add_subcommand(
      "validate-model",
      "Check our model against an independent MuJoCo model of the same robot: both follow the IK of the same\n"
      "smooth pose trajectory under the same discrete joint PID (robot file gains, 1 kHz, held torques, no\n"
      "friction); reports pose divergence, MuJoCo's loop-closure error and the agreement of the rigid inverse\n"
      "dynamics (ours vs mj_rne with the connect constraint Jacobians). Exit status 1 if a target is missed.");
  cmd->add_option("--robot", o->robot, "robot file")->capture_default_str();
  cmd->add_option("--duration", o->duration, "trajectory length (s)")->capture_default_str();
  cmd->add_option("--timestep", o->timestep, "integration step of both engines (s)")->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of the smooth trajectory")->capture_default_str();
  cmd->add_flag("--json", o->json, "print the result as JSON");
  cmd->callback([o] {
    using Clock = std::chrono::steady_clock;
    const sim::RobotModel loaded = sim::load_robot(o->robot);
    std::vector<std::string> adjustments;
    const sim::RobotModel model = hw::engine_consistent(loaded, adjustments);
    const double Tc = 1e-3;
    const int sub = static_cast<int>(std::lround(Tc / o->timestep));
    if (sub < 1 || std::abs(sub * o->timestep - Tc) > 1e-12)
      fail("--timestep", "must divide the 1 ms controller period");
    hw::MujocoOptions mo;
    mo.timestep = o->timestep;

    excitation::RandomTrajectoryOptions ro;
    ro.duration = o->duration;
    ro.f0 = 0.2;
    ro.harmonics = 3;
    const excitation::FourierTrajectory traj = excitation::random_feasible_trajectory(model, o->seed, ro);
    const Vec6d start = traj.pose(0);
    hw::MujocoRobot mj = hw::MujocoRobot::build(model, start, mo);

    sim::XiVector<double> xi = model.xi();  // rigid comparison: no friction in either engine
    for (int i = 0; i < sim::kLegs; ++i) xi(sim::coulomb_index(i)) = xi(sim::viscous_index(i)) = 0;
    const servo::JointPidGains<double> g{model.lambda(sim::kGainP), model.lambda(sim::kGainI),
                                         model.lambda(sim::kGainD)};
    servo::InnerPid<double> pid_ours, pid_mj;
    sim::PlantState<double> x = sim::make_state<double>(start, Vec6d::Zero());

    Vec6d max_err = Vec6d::Zero(), sum_sq = Vec6d::Zero();
    double closure = 0, t_ours = 0, t_mj = 0;
    const int ticks = static_cast<int>(std::lround(o->duration / Tc));
    for (int k = 0; k < ticks; ++k) {
      Vec6d U, theta;
      if (!sim::inverse_kinematics<double>(model, traj.pose(k * Tc), U))
        fail("validate-model", "reference not reachable");
      if (!sim::inverse_kinematics<double>(model, Vec6d(x.head<6>()), theta))
        fail("validate-model", "our model left the workspace at t = " + std::to_string(k * Tc) + " s");
      const Vec6d tau = pid_ours.update(g, U, theta, Tc);
      const Vec6d tau_mj = pid_mj.update(g, U, mj.joint_angles(), Tc);
      auto c0 = Clock::now();
      if (!sim::integrate_held<double>(model, xi, tau, o->timestep, sub, x))
        fail("validate-model", "our model diverged at t = " + std::to_string(k * Tc) + " s");
      auto c1 = Clock::now();
      if (!mj.step(tau_mj, sub)) fail("validate-model", "MuJoCo diverged at t = " + std::to_string(k * Tc) + " s");
      auto c2 = Clock::now();
      t_ours += std::chrono::duration<double>(c1 - c0).count();
      t_mj += std::chrono::duration<double>(c2 - c1).count();
      const Vec6d e = (mj.platform_pose() - x.head<6>()).cwiseAbs();
      max_err = max_err.cwiseMax(e);
      sum_sq += e.cwiseProduct(e);
      closure = std::max(closure, mj.closure_error());
    }
    const Vec6d rms = (sum_sq / ticks).cwiseSqrt();

    // Rigid inverse dynamics at states along the trajectory.
    double id_err = 0, id_residual = 0;
    for (int n = 0; n < 50; ++n) {
      const excitation::TrajectorySample s = traj.sample(o->duration * (n + 0.5) / 50);
      sim::Kinematics<double> k;
      sim::compute_kinematics<double>(model, s.chi, s.v, k);
      Vec6d tau_g;
      sim::inverse_dynamics<double>(model, s.chi, s.v, s.v_dot, xi, tau_g);
      const Vec6d ours = sim::actuator_torques<double>(k, tau_g);
      double residual = 0;
      const Vec6d theirs = mj.inverse_dynamics(s.chi, s.v, s.v_dot, &residual);
      id_err = std::max(id_err, (ours - theirs).norm() / theirs.norm());
      id_residual = std::max(id_residual, residual);
    }

    const Targets tg;
    const double pos_max = max_err.head<3>().maxCoeff() * 1e3, pos_rms = rms.head<3>().maxCoeff() * 1e3;
    const double rot_max = max_err.tail<3>().maxCoeff() * 1e3, rot_rms = rms.tail<3>().maxCoeff() * 1e3;
    const double closure_mm = closure * 1e3;
    const double steps = static_cast<double>(ticks) * sub;
    const bool pass = pos_max <= tg.pos_max_mm && rot_max <= tg.rot_max_mrad && id_err <= tg.id_rel_err_max &&
                      closure_mm <= tg.closure_max_mm;
    auto axis = [](const Vec3d& v) { return std::vector<double>{v(0), v(1), v(2)}; };
    if (o->json) {
      nlohmann::json j = {{"pos_max_mm", pos_max},
                          {"pos_rms_mm", pos_rms},
                          {"rot_max_mrad", rot_max},
                          {"rot_rms_mrad", rot_rms},
                          {"closure_max_mm", closure_mm},
                          {"id_rel_err_max", id_err},
                          {"pos_max_mm_xyz", axis(max_err.head<3>() * 1e3)},
                          {"pos_rms_mm_xyz", axis(rms.head<3>() * 1e3)},
                          {"rot_max_mrad_abg", axis(max_err.tail<3>() * 1e3)},
                          {"rot_rms_mrad_abg", axis(rms.tail<3>() * 1e3)},
                          {"id_lsq_residual_max", id_residual},
                          {"duration_s", o->duration},
                          {"timestep_s", o->timestep},
                          {"ours_us_per_step", 1e6 * t_ours / steps},
                          {"mujoco_us_per_step", 1e6 * t_mj / steps},
                          {"engine_adjustments", adjustments},
                          {"pass", pass}};
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << std::setprecision(3) << "validate-model: " << o->robot << " (" << o->duration
                << " s, joint PID at 1 kHz, both engines at " << o->timestep * 1e3 << " ms)\n"
                << "  pose divergence max / rms   x " << max_err(0) * 1e3 << " / " << rms(0) * 1e3 << "  y "
                << max_err(1) * 1e3 << " / " << rms(1) * 1e3 << "  z " << max_err(2) * 1e3 << " / " << rms(2) * 1e3
                << " mm   (target max <= " << tg.pos_max_mm << ")\n"
                << "                              a " << max_err(3) * 1e3 << " / " << rms(3) * 1e3 << "  b "
                << max_err(4) * 1e3 << " / " << rms(4) * 1e3 << "  g " << max_err(5) * 1e3 << " / " << rms(5) * 1e3
                << " mrad (target max <= " << tg.rot_max_mrad << ")\n"
                << "  MuJoCo loop closure max     " << closure_mm << " mm (target <= " << tg.closure_max_mm << ")\n"
                << "  inverse dynamics rel. error " << id_err << " (target <= " << tg.id_rel_err_max << ")\n"
                << "  cost per step               ours " << 1e6 * t_ours / steps << " us, MuJoCo "
                << 1e6 * t_mj / steps << " us\n"
                << "  engine adjustments          " << adjustments.size()
                << " invisible moments changed so MuJoCo accepts the bodies\n"
                << (pass ? "PASS" : "FAIL: a target was missed") << "\n";
    }
    if (!pass) throw CLI::RuntimeError(1);
  });
}

}  // namespace vcloe::app
