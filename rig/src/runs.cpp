#include "vcloe/rig/runs.hpp"

#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/rig/setup.hpp"

namespace vcloe::rig {

void SimulateOptions::validate() const {
  IoPlan(force).input(model, "--model").input(experiment, "--experiment").input(reference, "--reference")
      .input_trace(precorrection, "--precorrection").output_trace(out, "--out").check();
}

void simulate_to_file(const SimulateOptions& o) {
  o.validate();
  ExperimentSetup s = load_setup(o.model, o.experiment, o.reference);
  use_precorrection(s, o.precorrection);
  const PoseTrace t = twin_trace(s, s.lambda);
  write_trace(o.out, t, o.force);
  print_written(o.out, t);
  warn_if_not_following(t, o.out);
}

std::optional<SettingProblem> RunOptions::problem() const {
  if (auto p = defaults::camera_noise_problem(noise_position, noise_angle)) return p;
  return camera.problem();
}

void RunOptions::validate(const std::string& where) const {
  throw_if(problem(), where);
  // The outputs: the file system, so here and not in problem() (which stays pure).
  IoPlan(force).input(robot, "--robot").input(experiment, "--experiment").input(reference, "--reference")
      .input(truth, "--truth").input(camera.rig, "--camera-rig").input(camera.markers, "--camera-markers")
      .input_trace(precorrection, "--precorrection").output_trace(out, "--out").check();
}

void run_virtual_to_file(const RunOptions& o) {
  o.validate();
  ExperimentSetup s = load_setup(o.robot, o.experiment, o.reference);
  use_precorrection(s, o.precorrection);
  if (!o.precorrection.empty()) check_learnt_on(o.precorrection, o.truth, "the virtual robot this run drives (--truth)");
  const sim::RobotFile truth = sim::load_robot(o.truth, true);
  VirtualRun vo;
  vo.seed = o.seed;
  vo.departures = hw::load_virtual_rig(o.truth);
  vo.noise_sigma = defaults::camera_noise_sigma(o.noise_position, o.noise_angle);
  const auto add_camera_metadata = install_camera(o.camera, vo);
  PoseTrace t = virtual_trace(s, truth, vo, o.truth, o.payload);
  add_camera_metadata(t);
  write_trace(o.out, t, o.force);
  print_written(o.out, t);
  warn_if_not_following(t, o.out);
}

}  // namespace vcloe::rig
