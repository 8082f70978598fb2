#pragma once
// vcloe/servo/components.hpp — what the loop composes, as C++20 concepts, and the pose sources.
//
//   CommandedRobot  the plant side as the outer loop sees it: a joint position command U held
//                   for one controller period (drives included). The twin (twin.hpp), the
//                   virtual robot (hw/) and a remote robot all are one.
//   TorquePlant     a continuous plant under held joint torques, integrated by fixed-step RK4
//                   (the twin's rigid body, rigid_plant.hpp); modeled drives make it a robot.
//   PoseSource      the camera: what it reports for frame j given the true pose at its exposure.
#include <concepts>
#include <cstdint>
#include <functional>
#include <random>
#include <string>

#include "vcloe/core/rotation.hpp"

namespace vcloe::servo {

template <typename R, typename T>
concept CommandedRobot = requires(R& robot, const R& c, const Vec6<T>& U) {
  { c.pose() } -> std::convertible_to<Vec6<T>>;     // true platform pose chi (m, rad)
  { robot.step(U) } -> std::same_as<bool>;          // one controller period; false: it stopped
  { c.failure() } -> std::convertible_to<std::string>;  // why it stopped
};

template <typename P, typename T>
concept TorquePlant = requires(P& plant, const P& c, const Vec6<T>& tau, Vec6<T>& theta) {
  { c.pose() } -> std::convertible_to<Vec6<T>>;
  { c.joint_angles(theta) } -> std::same_as<bool>;  // the encoders
  { plant.advance(tau) } -> std::same_as<bool>;     // one controller period with tau held
  { c.failure() } -> std::convertible_to<std::string>;
};

template <typename S, typename T>
concept PoseSource = requires(S& source, int frame, const Vec6<T>& true_pose) {
  { source.measure(frame, true_pose) } -> std::convertible_to<Vec6<T>>;
};

// A pose source whose frame j is not taken at its nominal exposure: a camera whose true latency
// differs from the one the controller assumes (docs/virtual-robot.md), so frame j was really
// exposed before or after t_j, but before it arrives. The loop shows it the robot's pose after
// every tick (the pose at the tick's end) and reads frame j out when it arrives (frames the run
// ends before, after the last tick); measure() at the nominal exposure is then a placeholder.
template <typename S, typename T>
concept LateReadout = PoseSource<S, T> && requires(S& source, int tick, int frame, const Vec6<T>& pose) {
  source.after_tick(tick, pose);
  { source.readout(frame) } -> std::convertible_to<Vec6<T>>;
};

// The twin's camera: the pose itself.
struct ExactPose {
  template <typename T>
  Vec6<T> measure(int, const Vec6<T>& pose) const {
    return pose;
  }
};

// The twin's camera on a robot whose measured frame is not E (sim::RobotModel::marker_frame): the
// pose of the marker frame, T_OE T_EM (pose_of_attached, the virtual robot's camera's
// composition). A zero marker frame reports the pose itself, bit for bit ExactPose's.
struct MarkerPose {
  Vec6d marker_frame = Vec6d::Zero();
  template <typename T>
  Vec6<T> measure(int, const Vec6<T>& pose) const {
    return pose_of_attached<T>(pose, marker_frame);
  }
};

// A tracker with independent Gaussian noise per channel (optical-CMM level by default:
// 20 um, 50 urad, docs/virtual-robot.md), seeded: the same seed gives the same noise.
class GaussianPoseNoise {
 public:
  explicit GaussianPoseNoise(const Vec6d& sigma, std::uint64_t seed) : sigma_(sigma), rng_(seed) {}
  Vec6d measure(int, const Vec6d& pose) {
    Vec6d m = pose;
    for (int c = 0; c < 6; ++c)
      if (sigma_(c) > 0) m(c) += std::normal_distribution<double>(0.0, sigma_(c))(rng_);
    return m;
  }

 private:
  Vec6d sigma_;
  std::mt19937_64 rng_;
};

// Any measurement function of the true pose (e.g. the stereo pose pipeline, composed in apps/).
struct PoseFunction {
  std::function<Vec6d(const Vec6d&)> f;
  Vec6d measure(int, const Vec6d& pose) const { return f(pose); }
};

}  // namespace vcloe::servo
