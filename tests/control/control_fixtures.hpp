#pragma once
// Shared fixtures of the control/ specifications: the robot's priors and truth, random references
// and truths, and runs on the virtual robot recorded tick by tick.
#include <cmath>
#include <string>
#include <vector>

#include "vcloe/control/precorrect.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/hw/truth_family.hpp"
#include "vcloe/hw/virtual_robot.hpp"
#include "vcloe/servo/loop.hpp"
#include "vcloe/servo/twin.hpp"

namespace vcloe::control_test {

inline const sim::RobotFile& priors() {
  static const sim::RobotFile f = sim::load_robot(std::string(VCLOE_SOURCE_DIR) + "/config/robot.yaml");
  return f;
}
inline const sim::RobotFile& truth() {
  static const sim::RobotFile f = sim::load_robot(std::string(VCLOE_SOURCE_DIR) + "/config/truth.yaml");
  return f;
}

inline excitation::FourierTrajectory random_reference(std::uint64_t seed, double duration) {
  excitation::RandomTrajectoryOptions o;
  o.duration = duration;
  return excitation::random_feasible_trajectory(priors().model, seed, o);
}

// The virtual robot's state at every tick of a loop run: poses and twists before each tick
// (one more than ticks) and the drives' torque held over each.
struct TickLog {
  std::vector<Vec6d> pose, twist, torque;
};

struct VirtualRunResult {
  servo::LoopResult<double> loop;
  TickLog log;
};

// The loop on the virtual robot (truth, exact camera), pre-corrected by `correction` if given.
inline VirtualRunResult run_on_virtual_robot(const servo::PreparedReference& ref, const sim::RobotFile& truth_file,
                                             const servo::OuterGains& gains, const std::vector<Vec6d>* correction) {
  hw::VirtualRobotOptions o;
  o.controller_hz = ref.clock.timing.controller_hz;
  hw::VirtualRobot robot(truth_file.model, truth_file.lambda, ref.start_pose, o);
  servo::VisualServo<double> outer(ref, gains);
  servo::ExactPose camera;
  VirtualRunResult out;
  out.log.pose.push_back(robot.pose());
  out.log.twist.push_back(robot.twist());
  auto record = [&](const servo::TickRecord&) {
    out.log.torque.push_back(robot.torque());
    out.log.pose.push_back(robot.pose());
    out.log.twist.push_back(robot.twist());
    return true;
  };
  if (correction) {
    control::PrecorrectedRobot<hw::VirtualRobot> corrected(robot, *correction);
    out.loop = servo::run_loop<double>(corrected, outer, camera, record);
  } else {
    out.loop = servo::run_loop<double>(robot, outer, camera, record);
  }
  return out;
}

// RMS over the exposures from time `from` on of the true pose less the reference, per axis:
// positions (m), angles (rad).
struct TrackingRms {
  double position = 0, angle = 0;
};
inline TrackingRms tracking_rms(const servo::PreparedReference& ref, const servo::LoopResult<double>& r,
                                double from = 0) {
  double p = 0, a = 0, n = 0;
  for (std::size_t j = 0; j < r.true_pose.size(); ++j) {
    if (ref.exposure_times[j] < from) continue;
    const Vec6d e = r.true_pose[j] - ref.reference_at_exposure[j];
    p += e.head<3>().squaredNorm() / 3, a += e.tail<3>().squaredNorm() / 3, n += 1;
  }
  return {std::sqrt(p / std::max(n, 1.0)), std::sqrt(a / std::max(n, 1.0))};
}

}  // namespace vcloe::control_test
