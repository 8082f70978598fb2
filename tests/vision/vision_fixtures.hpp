// Shared fixtures for the vision and calibration specifications: the default rig and markers,
// and a smooth 20 s platform trajectory around the home pose (no dependency on sim/).
#pragma once
#include <cmath>

#include "vcloe/vision/camera.hpp"
#include "vcloe/vision/markers.hpp"

namespace vcloe::vision::fixtures {

inline StereoRig default_rig() { return load_rig(VCLOE_SOURCE_DIR "/config/rig.yaml"); }
inline MarkerSet default_markers() { return load_markers(VCLOE_SOURCE_DIR "/config/markers.yaml"); }

// Home pose [0, 0, 0.18, 0, 0, 0] plus sines of ~2 cm and ~0.05 rad at incommensurate rates.
inline Vec6d trajectory_pose(double t) {
  const double w = 2 * M_PI;
  Vec6d chi;
  chi << 0.02 * std::sin(w * 0.13 * t), 0.02 * std::sin(w * 0.17 * t + 1),
      0.18 + 0.015 * std::sin(w * 0.11 * t + 2), 0.05 * std::sin(w * 0.19 * t),
      0.05 * std::sin(w * 0.23 * t + 0.5), 0.05 * std::sin(w * 0.07 * t + 1.5);
  return chi;
}

}  // namespace vcloe::vision::fixtures
