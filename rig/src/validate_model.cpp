#include "vcloe/rig/validate_model.hpp"

#include <iomanip>
#include <sstream>

#include "vcloe/excitation/fourier.hpp"
#include "vcloe/hw/model_check.hpp"

namespace vcloe::rig {

namespace {

std::vector<double> axes(const Vec3d& v) { return {v(0), v(1), v(2)}; }

nlohmann::json to_json(const hw::ModelCheck& c, const ValidateModelOptions& o) {
  return {{"pos_max_mm", c.max_error.head<3>().maxCoeff() * 1e3},
          {"pos_rms_mm", c.rms_error.head<3>().maxCoeff() * 1e3},
          {"rot_max_mrad", c.max_error.tail<3>().maxCoeff() * 1e3},
          {"rot_rms_mrad", c.rms_error.tail<3>().maxCoeff() * 1e3},
          {"closure_max_mm", c.closure_max * 1e3},
          {"id_rel_err_max", c.id_rel_err_max},
          {"pos_max_mm_xyz", axes(c.max_error.head<3>() * 1e3)},
          {"pos_rms_mm_xyz", axes(c.rms_error.head<3>() * 1e3)},
          {"rot_max_mrad_abg", axes(c.max_error.tail<3>() * 1e3)},
          {"rot_rms_mrad_abg", axes(c.rms_error.tail<3>() * 1e3)},
          {"id_lsq_residual_max", c.id_lsq_residual_max},
          {"duration_s", o.duration},
          {"timestep_s", o.timestep},
          {"ours_us_per_step", c.ours_us_per_step},
          {"mujoco_us_per_step", c.mujoco_us_per_step},
          {"engine_adjustments", c.engine_adjustments},
          {"pass", c.pass}};
}

std::string to_text(const hw::ModelCheck& c, const hw::ModelCheckOptions& t, const ValidateModelOptions& o) {
  const Vec6d mx = c.max_error * 1e3, rms = c.rms_error * 1e3;
  std::ostringstream out;
  out << std::setprecision(3) << "validate-model: " << o.robot << " (" << o.duration
      << " s, joint PID at 1 kHz, both engines at " << o.timestep * 1e3 << " ms)\n"
      << "  pose divergence max / rms   x " << mx(0) << " / " << rms(0) << "  y " << mx(1) << " / " << rms(1) << "  z "
      << mx(2) << " / " << rms(2) << " mm   (target max <= " << t.pos_max_mm << ")\n"
      << "                              a " << mx(3) << " / " << rms(3) << "  b " << mx(4) << " / " << rms(4) << "  g "
      << mx(5) << " / " << rms(5) << " mrad (target max <= " << t.rot_max_mrad << ")\n"
      << "  MuJoCo loop closure max     " << c.closure_max * 1e3 << " mm (target <= " << t.closure_max_mm << ")\n"
      << "  inverse dynamics rel. error " << c.id_rel_err_max << " (target <= " << t.id_rel_err_max << ")\n"
      << "  cost per step               ours " << c.ours_us_per_step << " us, MuJoCo " << c.mujoco_us_per_step
      << " us\n"
      << "  engine adjustments          " << c.engine_adjustments.size()
      << " invisible moments changed so MuJoCo accepts the bodies\n"
      << (c.pass ? "PASS" : "FAIL: a target was missed") << "\n";
  return out.str();
}

}  // namespace

ModelValidation validate_model(const ValidateModelOptions& o) {
  const sim::RobotFile robot = sim::load_robot(o.robot);
  excitation::RandomTrajectoryOptions ro;
  ro.duration = o.duration;
  ro.f0 = 0.2;
  ro.harmonics = 3;
  const excitation::FourierTrajectory traj = excitation::random_feasible_trajectory(robot.model, o.seed, ro);
  hw::ModelCheckOptions mo;
  mo.duration = o.duration;
  mo.timestep = o.timestep;
  const hw::ModelCheck c = hw::check_against_mujoco(robot.model, robot.lambda, [&](double t) {
    const excitation::TrajectorySample s = traj.sample(t);
    return hw::MotionSample{s.chi, s.chi_dot, s.v, s.v_dot};
  }, mo);
  return {{to_json(c, o), to_text(c, mo, o)}, c.pass};
}

}  // namespace vcloe::rig
