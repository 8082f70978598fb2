#include "vcloe/rig/static_measurement.hpp"

#include <cmath>

#include "vcloe/calib/kinematic_model.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/servo/components.hpp"
#include "vcloe/sim/kinematics.hpp"

namespace vcloe::rig {

namespace {

struct Measurer {
  const StaticMeasurementOptions& o;
  const sim::RobotModel& drawn;
  hw::VirtualRobot& robot;
  calib::Rigid<double> camera, marker;
  servo::GaussianPoseNoise noise;
  int tick = 0;

  void step(const Vec6d& U, std::size_t pose) {
    if (!robot.step(U))
      fail("static pose " + std::to_string(pose + 1), "the virtual robot stopped " + std::to_string(tick / o.controller_hz) +
                                                         " s into the measurement: " + robot.failure());
    ++tick;
  }
  // One pose: move, hold, measure. Returns the mean pose and fills the record.
  void pose(const Vec6d& from, const Vec6d& to, std::size_t k, calib::StaticTrace& t) {
    const int move = static_cast<int>(std::lround(o.move_s * o.controller_hz));
    const int hold = static_cast<int>(std::lround((o.settle_s + o.measure_s) * o.controller_hz));
    const int settle = static_cast<int>(std::lround(o.settle_s * o.controller_hz));
    // A straight line in pose space (the drawn robot's IK), not in joint space: a joint-space line
    // between two good poses can pass a parallel singularity.
    const calib::KinematicVector x = calib::nominal_parameters(drawn).vector();
    Vec6d chi_from, chi_to, unused;
    const bool line = calib::static_pose(drawn, x, from, chi_from, unused) && calib::static_pose(drawn, x, to, chi_to, unused);
    // The drawn robot's encoder zeros, to command a pose in encoder angles. The virtual robot applies
    // the truth's itself: its drives close eq. (31) on the encoder (true angle + offset).
    const Vec6d drawn_offsets = sim::encoder_offsets(drawn);
    for (int n = 1; n <= move; ++n) {
      const double s = 0.5 - 0.5 * std::cos(M_PI * n / move);
      Vec6d U = from + (to - from) * s, theta;
      if (line && n < move && sim::inverse_kinematics<double>(drawn, Vec6d(chi_from + (chi_to - chi_from) * s), theta))
        U = theta + drawn_offsets;
      step(U, k);
    }
    const int every = static_cast<int>(std::lround(o.controller_hz / o.camera_hz));
    int last_moving = 0, frames = 0;
    Vec6d sum = Vec6d::Zero(), sum2 = Vec6d::Zero(), encoders = Vec6d::Zero(), previous = robot.joint_angles();
    for (int n = 1; n <= hold; ++n) {
      step(to, k);
      const Vec6d encoder = robot.joint_angles();
      if ((encoder - previous).cwiseAbs().maxCoeff() * o.controller_hz > o.settled_rate) last_moving = n;
      previous = encoder;
      if (n <= settle || tick % every != 0) continue;
      const Vec6d measured = noise.measure(tick, (camera * calib::Rigid<double>::of(robot.pose()) * marker).pose());
      sum += measured, sum2 += measured.cwiseAbs2(), encoders += encoder, ++frames;
    }
    calib::StaticPose p;
    p.frames = frames;
    p.measured = sum / frames;
    p.joints = encoders / frames;
    p.scatter = frames > 1 ? Vec6d(((sum2 - frames * p.measured.cwiseAbs2()) / (frames - 1)).cwiseMax(0).cwiseSqrt())
                           : Vec6d::Zero();
    t.command.push_back(to);
    t.poses.push_back(p);
    t.settled_s.push_back(last_moving == hold ? NAN : last_moving / o.controller_hz);
  }
};

}  // namespace

calib::StaticTrace measure_static_poses(const sim::RobotFile& truth, const sim::RobotModel& drawn,
                                        const std::vector<Vec6d>& commands, const StaticMeasurementOptions& o) {
  if (!(o.move_s > 0 && o.settle_s >= 0 && o.measure_s > 0 && o.camera_hz > 0 && o.controller_hz >= o.camera_hz))
    fail("static measurement", "move and measure times must be positive, the settle time non-negative and the "
                               "controller rate at least the camera rate");
  if (std::lround(o.measure_s * o.camera_hz) < 2) fail("static measurement", "the measure time gives fewer than two frames");
  hw::VirtualRobotOptions ro = o.robot;
  ro.controller_hz = o.controller_hz;
  hw::VirtualRobot robot(truth.model, truth.lambda, truth.model.home, ro);
  Measurer m{o, drawn, robot, calib::Rigid<double>::of(o.camera_to_base),
             calib::Rigid<double>::of(truth.model.marker_frame), servo::GaussianPoseNoise(o.noise_sigma, o.seed)};
  Vec6d at = robot.joint_angles();  // the encoders where the robot stands (at home)
  calib::StaticTrace t;
  for (std::size_t k = 0; k < commands.size(); ++k) {
    m.pose(at, commands[k], k, t);
    at = commands[k];
  }
  t.info.source = "virtual";
  t.info.software = defaults::software_version();
  t.info.camera_hz = o.camera_hz, t.info.move_s = o.move_s, t.info.settle_s = o.settle_s, t.info.measure_s = o.measure_s;
  t.info.seed = o.seed;
  t.info.noise_sigma = o.noise_sigma;
  return t;
}

}  // namespace vcloe::rig
