#pragma once
// vcloe/rig/validate_model.hpp — `vcloe validate-model`: our virtual-work model against an
// independent MuJoCo model of the same robot, both following the IK of one smooth random
// trajectory under the same discrete joint PID (hw::check_against_mujoco; Li et al. 2019 §4.1 did
// this with SimMechanics, Fig. 8).
#include <cstdint>
#include <string>

#include "vcloe/core/report.hpp"

namespace vcloe::rig {

struct ValidateModelOptions {
  std::string robot;
  double duration = 10.0;     // s
  double timestep = 0.25e-3;  // s, both engines
  std::uint64_t seed = 2;     // of the smooth trajectory
};

struct ModelValidation {
  Report report;      // divergence, loop closure, inverse dynamics, cost per step; PASS or FAIL
  bool pass = false;  // every target met
};
ModelValidation validate_model(const ValidateModelOptions& options);

}  // namespace vcloe::rig
