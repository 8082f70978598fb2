#pragma once
// vcloe/hw/virtual_rig.hpp — the departures of the virtual rig that no robot-file key describes:
// the camera's (the residual camera-to-base error `vcloe calibrate base` leaves, its true latency
// and jitter) and the robot's that the twin's model has no parameter for (backlash in the
// drives; the platform's centre of mass off E is the robot file's `com.platform`). Read from the optional
// `virtual_rig:` section of a truth file, by the virtual robot only (the twin never reads a
// truth file); docs/virtual-robot.md has the table of every departure, where it acts and its size.
#include <optional>
#include <string>

#include "vcloe/core/rotation.hpp"
#include "vcloe/core/settings.hpp"

namespace vcloe {
class YamlNode;
}

namespace vcloe::hw {

struct VirtualRig {
  // The base frame the camera's poses are expressed in, as a pose in the true base frame O
  // [x, y, z, alpha, beta, gamma] (m, rad): what `calibrate base` got wrong. The camera reports
  // the pose of the marker frame in that frame.
  Vec6d camera_from_base_error = Vec6d::Zero();
  double latency_offset = 0;   // s: the camera's true latency minus the experiment's
  double latency_jitter = 0;   // s: standard deviation of the true latency frame to frame (Gaussian, +-3 sigma)
  double backlash = 0;         // rad: the play of each drive's gear (full width); unmodelled
  double backlash_torque = 1;  // N*m: the torque over which the crank crosses from one flank to the other
  // Where latency_offset was read ("truth.yaml:12: key 'virtual_rig.latency_offset'"), for the
  // check against the experiment's latency, made when both are known; empty: "virtual rig".
  std::string source;

  bool camera_departs() const;  // a camera-side departure is set (marker frame aside)
  bool any() const;
  // Bounds: camera-to-base 0.01 m / 0.05 rad per coordinate, latency offset and 3 jitter sigma
  // within 0.05 s, backlash within 0.02 rad, backlash torque in (0, 100] N*m.
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where) const;
};

// The section of a truth file (absent: no departures); errors name the file, line and key.
VirtualRig read_virtual_rig(const YamlNode& root);
VirtualRig load_virtual_rig(const std::string& truth_file);
// The section as a truth file holds it ("" when nothing departs: such files stay as they were).
std::string virtual_rig_to_yaml(const VirtualRig& rig);

}  // namespace vcloe::hw
