#pragma once
// vcloe/hw/truth_family.hpp — virtual robots the identification was not tuned on (issue #13):
// physically consistent truths drawn around a robot file of priors, seeded. What varies, and by
// how much, is a TruthFamily; what stays is what a user weighs or measures before identifying
// (the crank and link masses, the geometry — unless `unmodelled`).
#include <cstdint>
#include <string>

#include "vcloe/core/report.hpp"
#include "vcloe/core/settings.hpp"
#include "vcloe/hw/virtual_rig.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::hw {

struct TruthFamily {
  double platform = 0.25;        // platform mass and moments: uniform in (1 -+ platform) x prior
  double bodies = 0.40;          // crank and link moments, per leg: (1 -+ bodies) x prior
  double friction_low = 0.3;     // Coulomb and viscous friction per joint: log-uniform in
  double friction_high = 3.0;    //   [low, high] x prior
  double gains = 0.30;           // drive gains: (1 -+ gains) x prior
  // Effects the twin does not model: joint centres (base and platform, per coordinate) and link
  // lengths off their nominal values by up to `tolerance` (m), uniform.
  // With `unmodelled`, also backlash of `backlash` (rad, full play) in every drive's gear.
  bool unmodelled = false;
  double tolerance = 2e-4;
  double backlash = 2e-3;
  // Priors far off (a datasheet guess): on top of the spreads above, each group — the platform
  // mass, all moments, all friction, the drive gains — scaled by one factor log-uniform in
  // [far_low, far_high], drawn from a stream of its own (a seed's other draws stay the same).
  // The weighed crank and link masses stay.
  bool far = false;
  double far_low = 0.3, far_high = 3.0;
  // A realistic rig (issue #24; docs/virtual-robot.md, "Departures"): on top of the above, from
  // streams of their own (a seed's dynamics stay the same), each uniform in +- its magnitude
  // unless said otherwise.
  bool realistic = false;
  double geometry = 5e-4;          // m: base and platform joint centres (per coordinate), crank and link lengths
  double encoder = 3e-3;           // rad: encoder zero offsets
  double marker_position = 1e-3;   // m: the marker frame's origin in E, per coordinate
  double marker_angle = 2e-3;      // rad: its angles
  double base_position = 1.3e-6;   // m: camera-to-base residual, Gaussian sigma per coordinate
  double base_angle = 7.8e-6;      // rad: (the sigma `calibrate base` reports, docs/vision.md)
  double latency_low = -2e-3, latency_high = 3e-3;  // s: true minus configured latency, uniform
  double latency_jitter = 2e-4;    // s: its standard deviation frame to frame
  double com = 3e-3;               // m: the platform's centre of mass off E, per coordinate

  // The first spread out of range ("<key>: expected ..."); validate throws it as vcloe::Error
  // "<where>: <message>" (core/settings.hpp).
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where) const;

 private:
  std::optional<SettingProblem> realistic_problem() const;
};

// A truth: the priors' structure and values, varied as `family` says, then every body's moments
// moved to the nearest consistent ones (sim::nearest_consistent_moments). The same seed gives
// the same truth. It passes the robot file's reader (home pose reachable, inertia consistent);
// throws vcloe::Error if the family is invalid or a drawn truth would not.
sim::RobotFile random_truth(const sim::RobotFile& priors, std::uint64_t seed, const TruthFamily& family = {});
// The rig departures of the same truth (its `virtual_rig:` section): with `realistic` the
// camera-to-base residual and latency, with `unmodelled` the backlash; none otherwise. Its own
// stream: the robot file's draws do not depend on it. (The centre of mass, drawn last from this
// stream, goes to the truth's robot file as first moments: random_truth.)
VirtualRig random_rig(std::uint64_t seed, const TruthFamily& family = {});

// `vcloe truth random`: a truth drawn around the robot file `priors` and written to `out` as a
// robot file whose header says how it was drawn.
struct RandomTruthOptions {
  std::string priors, out;
  std::uint64_t seed = 1;
  TruthFamily family;
  bool force = false;

  // problem(): the family's; validate(): that (named "truth random") and the output (never the
  // priors: the file system, not in problem()).
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where = "truth random") const;
};
Report write_random_truth(const RandomTruthOptions& options);  // text: "wrote OUT"

}  // namespace vcloe::hw
