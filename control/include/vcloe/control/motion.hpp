#pragma once
// vcloe_control — what an identified model is for (issue #26; Abdellatif & Heimann 2006 §5,
// Gnad et al. 2024): the drive torques and the joints' constraint forces a motion needs
// (predict.hpp), and the joint command that makes drives we cannot open produce them
// (precorrect.hpp: nonlinear pre-correction through the inverse of the drives' law, eq. 31).
// Built on sim's dynamics and regressor and servo's drive law and clock; nothing above them.
//
// motion.hpp: the desired motion as the control side reads it — pose, twist and twist rate at
// any time (an excitation::FourierTrajectory, or any path with the same sample()).
#include <functional>
#include <vector>

#include "vcloe/core/rotation.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::control {

struct MotionSample {
  Vec6d chi = Vec6d::Zero();    // pose (m, rad)
  Vec6d v = Vec6d::Zero();      // platform twist [h_dot; omega] (eq. 2)
  Vec6d v_dot = Vec6d::Zero();  // its rate (eq. 38)
};

struct Motion {
  double duration = 0;  // s
  std::function<MotionSample(double t)> sample;
};

// Any path with a duration and sample(t).{chi, v, v_dot} (excitation::FourierTrajectory). The
// path must outlive the motion.
template <class Path>
  requires requires(const Path& p) {
    p.duration;
    p.sample(0.0).chi;
    p.sample(0.0).v;
    p.sample(0.0).v_dot;
  }
Motion motion_of(const Path& path) {
  return {path.duration, [&path](double t) {
            const auto s = path.sample(t);
            return MotionSample{s.chi, s.v, s.v_dot};
          }};
}

// The motion of E that keeps the model's marker frame (sim::RobotModel::marker_frame) on
// `marker`: a reference is the pose of the frame the camera measures and the loop servoes onto
// it. The pose T_OM T_EM^-1 (sim::platform_pose_of_marker), the same angular velocity and rate,
// and E's origin off the marker's by -R_E r (r: the marker's origin in E), so
//   h_dot_E = h_dot_M - omega x R_E r,   h_ddot_E = h_ddot_M - omega_dot x R_E r - omega x (omega x R_E r).
// Without a marker frame, `marker` itself, bit for bit.
MotionSample platform_motion(const sim::RobotModel& model, const MotionSample& marker);

// Samples of `motion` every `period` from 0 to its duration (the last at or before it).
struct SampledMotion {
  double period = 0;
  std::vector<MotionSample> samples;
  double time(std::size_t i) const { return static_cast<double>(i) * period; }
};
SampledMotion sample_motion(const Motion& motion, double period);

}  // namespace vcloe::control
