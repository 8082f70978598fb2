#pragma once
// vcloe/excitation/pose_path.hpp — a trajectory file (docs/trajectory-file.md) as a PosePath
// (core/pose_path.hpp), the loader `render` and `calibrate base` are given.
#include <string>

#include "vcloe/core/pose_path.hpp"
#include "vcloe/excitation/fourier.hpp"

namespace vcloe::excitation {

inline PosePath pose_path(const FourierTrajectory& t) {
  return {t.offset, t.duration, [t](double time) { return t.pose(time); }};
}
inline PosePath load_pose_path(const std::string& file) { return pose_path(load_trajectory(file)); }

}  // namespace vcloe::excitation
