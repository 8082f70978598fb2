#pragma once
// vcloe/core/experiment_file.hpp — the experiment file (docs/experiment-file.md): the sampled-data
// timing of the visual-servo loop and the outer controller (docs/design.md §5). In core, below
// the loop, so that the one trace reader checks a sidecar's copies of it (core/trace.hpp) by the
// file's own rules; servo/timing.hpp names them in vcloe::servo.
//
// The plant is continuous. The inner joint PID runs at controller_hz with zero-order-held
// torques; the plant is integrated with `substeps` RK4 steps per controller period. Camera
// frames are exposed at t_j = j / camera_hz and reach the outer loop `latency` seconds later,
// which updates the held joint command U at that controller tick.
#include <string>

#include "vcloe/core/rotation.hpp"
#include "vcloe/core/settings.hpp"

namespace vcloe {

inline constexpr double kMaxStepsPerSecond = 1e6;  // controller_hz x substeps: RK4 steps of 1 us at least

struct LoopTiming {
  double controller_hz = 1000.0;
  double camera_hz = 100.0;
  double latency = 0.01;  // s, a whole number of controller periods
  // RK4 steps per controller period. 4 (0.25 ms steps) resolve the smooth Coulomb law of stiff
  // friction; this 1 does not (up to 2.8 x the camera noise at friction 3x the priors) but costs 4x
  // less in every twin run and sensitivity: kept until the identification's speed allows the
  // converged pair (docs/virtual-robot.md, "Convergence of the two engines"; kConvergedSubsteps).
  int substeps = 1;

  double controller_period() const { return 1.0 / controller_hz; }
  double camera_period() const { return 1.0 / camera_hz; }
  int ticks_per_frame() const;  // controller_hz / camera_hz (must be whole)
  int latency_ticks() const;    // latency / controller period (must be whole)
  // The first value out of range; validate throws it as vcloe::Error "<where>: <message>"
  // (core/settings.hpp).
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where) const;
};

// Outer Cartesian PID gains, per pose axis (eq. 30). Paper values: kp 0.3, ki 2.4, kd 0.001.
struct OuterGains {
  Vec6d kp = Vec6d::Constant(0.3);
  Vec6d ki = Vec6d::Constant(2.4);   // 1/s
  Vec6d kd = Vec6d::Constant(0.001); // s
  // false (default): U = IK(chi_d) + J_theta PID(e)  (IK feedforward, docs/loop.md)
  // true: U = J_theta PID(e), the literal eq. (30), integrator started at the start angles.
  bool literal = false;
};

struct ExperimentConfig {
  std::string source;  // file it came from
  LoopTiming timing;
  OuterGains outer;
};

// Reads an experiment file (docs/experiment-file.md); every key is optional.
ExperimentConfig load_experiment(const std::string& file);
ExperimentConfig parse_experiment(const std::string& yaml_text, const std::string& name);

}  // namespace vcloe
