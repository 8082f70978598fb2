#pragma once
// The virtual rig's camera path (docs/virtual-robot.md, "Departures"): what the camera of a
// virtual run really reports of the robot — the pose of the marker frame (RobotModel::
// marker_frame), not of E; expressed in the base frame `calibrate base` found, off the true one
// by hw::VirtualRig::camera_from_base_error; exposed when the true latency says (the configured
// latency plus hw::VirtualRig::latency_offset and a Gaussian jitter per frame), the pose
// interpolated between controller ticks; then measured by the camera model (Gaussian noise or
// the stereo pipeline). A servo::LateReadout pose source: the one loop reads frame j out when
// it arrives, so an exposure after the nominal one is seen too.
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "vcloe/hw/virtual_rig.hpp"
#include "vcloe/servo/pose_history.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::rig {

class VirtualCamera {
 public:
  // clock: the experiment's schedule; start_pose: where the robot stands before the run;
  // camera: the camera model on the pose it sees; seed: of the latency jitter (a stream apart
  // from the camera noise's).
  VirtualCamera(const sim::RobotModel& truth, const hw::VirtualRig& rig, const servo::TickClock& clock,
                const Vec6d& start_pose, std::function<Vec6d(const Vec6d&)> camera, std::uint64_t seed);

  Vec6d measure(int, const Vec6d& pose) const { return pose; }  // a placeholder until read out
  void after_tick(int tick, const Vec6d& pose) { history_.after_tick(tick, pose); }
  Vec6d readout(int frame);

  // The pose the camera sees of true platform pose chi: the marker frame, in the base frame it
  // was calibrated to (no noise).
  Vec6d seen(const Vec6d& chi) const;
  // The true exposure time of each frame read out so far (s).
  const std::vector<double>& exposures() const { return exposures_; }

 private:
  Vec6d marker_frame_, base_error_;  // M in E, and the calibrated base frame O' in O
  hw::VirtualRig rig_;
  servo::TickClock clock_;
  std::function<Vec6d(const Vec6d&)> camera_;
  std::mt19937_64 jitter_;
  servo::PoseHistory<double> history_;  // the true pose at each tick's start
  std::vector<double> exposures_;
};

}  // namespace vcloe::rig
