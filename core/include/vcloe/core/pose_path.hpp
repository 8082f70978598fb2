#pragma once
// vcloe/core/pose_path.hpp — a platform trajectory as a value: the pose it moves about, its
// length and the pose at time t. Lets the camera side (`render`, the virtual rig of `calibrate
// base`) follow a trajectory file (excitation/pose_path.hpp) without depending on excitation.
#include <functional>
#include <string>

#include "vcloe/core/rotation.hpp"

namespace vcloe {

struct PosePath {
  Vec6d home = Vec6d::Zero();          // the pose it moves about (a Fourier trajectory's offset)
  double duration = 0;                 // s
  std::function<Vec6d(double)> pose;   // t in [0, duration] (s) -> pose (m, rad)
};
// Reads a trajectory file into a PosePath; a vcloe::Error naming the file if it cannot.
using PosePathLoader = std::function<PosePath(const std::string& file)>;

}  // namespace vcloe
