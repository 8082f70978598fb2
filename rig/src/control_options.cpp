// control's options and its first step (rig/serve.hpp): what it reads and checks before it binds
// a socket or opens TRACE.partial, the step rig run calls for it before any role starts.
#include "vcloe/core/error.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/oe_ident/plausible.hpp"
#include "vcloe/rig/common.hpp"
#include "vcloe/rig/serve.hpp"
#include "vcloe/rig/setup.hpp"
#include "vcloe/servo/timing.hpp"

namespace vcloe::rig {

void ControlOptions::validate(const std::string& where) const {
  // The endpoints (an ipc path is looked at, lstat) and the outputs: the file system, so here
  // and not in problem(), which stays pure.
  throw_if(endpoints_problem(endpoints, "pks", "ps"), where);
  IoPlan(force).input(robot, "--robot").input(experiment, "--experiment").input(reference, "--reference")
      .input_trace(precorrection, "--precorrection").input(endpoints.keys, "a key of --keys").output_trace(out, "--out")
      .recording(out + ".partial", "the recording of --out while it runs").check();
  const double period = servo::load_experiment(experiment).timing.camera_period();
  throw_if(rig_times_problem(RigTimes{start_timeout, std::nullopt, std::nullopt, robot_timeout}, period, experiment),
           where);
}

// Everything control reads and checks before it binds a socket or opens TRACE.partial: the
// options and outputs, the setup, the pre-correction, the payload, the robot's command limits.
// run_control's first step and check_control's whole (rig run's check before any role starts).
ExperimentSetup prepare_control(const ControlOptions& o) {
  o.validate();
  ExperimentSetup s = load_setup(o.robot, o.experiment, o.reference);
  use_precorrection(s, o.precorrection);  // recorded in the trace's sidecar (the robot applies it)
  if (const std::string why = oe_ident::implausible_for_robot(s.lambda, o.robot, o.payload, "--payload-mass/--payload-inertia");
      !why.empty())
    throw Error(why);
  (void)robot_safety_limits(RobotServeOptions{}, s);  // the copy of the robot's command check Controller builds
  return s;
}

void check_control(const ControlOptions& o) { (void)prepare_control(o); }

}  // namespace vcloe::rig
