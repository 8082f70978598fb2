#pragma once
// vcloe/control/learn.hpp — iterative learning control through the position interface
// (Abdellatif & Heimann 2006 §5.2.1; Longman 2000): a reference repeated, the pre-corrected
// command q (one per controller tick, the precorrection file's rows) updated after each trial from
// what the trial measured. docs/control.md, "Iterative learning".
//
// The law, per tick k (filtered-update P-type with a phase lead d, the feedback's effort taken in):
//   q_{j+1}(k) = q_j(k) + gamma * Q[ f_j + J_theta e_j ](k + d)
//   f_j(k): what the outer loop added on trial j to the command it holds on a perfect run
//           (the trace's command less control::ideal_commands), zero before its first update;
//           zero when the trials run on the drives' loop alone (outer gains zero);
//   e_j:    the measured pose error chi_d - chi_m at each exposure, through J_theta(chi_d) (eq. 29)
//           into joint space, linear between exposures;
//   Q:      a zero-phase Butterworth low-pass (vision::sosfiltfilt at the controller rate);
//   d:      `lead` (held at the last tick): the update taken d later in the trial, L = gamma z^d.
// With P the drives' map from command to joint angle and C the outer law (in joint terms), the
// trial-to-trial error map is  e_{j+1} = (1 - gamma Q z^d G) e_j,  G = P (1 + C) / (1 + P C)
// (G = P with the outer loop off). Stability condition (docs/control.md):
//   |1 - gamma Q(w) e^{i w d} G(w)| < 1 wherever Q passes:
// 0 < gamma < 2 (kLearningGainBound) where e^{i w d} G ~ 1; the lead d cancels the drives' lag
// (G ~ e^{-i w d}) over Q's band, and Q = 0 where G departs further.
// The inverse law (LearningLaw::inverse; Bristow et al. 2006, plant inversion): the joint error
// through the model's inverse of the drives' loop after Q, q_{j+1} = q_j + gamma (Q f_j + P^-1 Q
// J_theta e_j) (drives_model.hpp; f_j is a command already). Trial to trial, in band,
//   e_{j+1} = (1 - gamma Q P / P^) e_j:  monotone where |1 - gamma Q(w) P(w) / P^(w)| < 1,
// which for 0 < gamma Q <= 1 holds whenever the model's relative error |P / P^ - 1| < 1.
#include <string>
#include <vector>

#include "vcloe/control/drives_model.hpp"
#include "vcloe/core/rotation.hpp"
#include "vcloe/servo/reference.hpp"

namespace vcloe::control {

inline constexpr double kLearningGainBound = 2.0;  // gamma in (0, 2): |1 - gamma| < 1
inline constexpr double kMaxLearningLead = 0.1;    // s: the lead d in [0, 0.1]

// The learning filter L: `lead` = gamma z^d Q (the plain filtered law); `inverse` = gamma z^d Q
// P^-1 with P the model's drives' loop (drives_model.hpp; docs/control.md).
enum class LearningLaw { lead, inverse };

struct LearningGains {
  LearningLaw law = LearningLaw::lead;
  double gain = 1.0;       // gamma: deadbeat inside the drives' bandwidth (docs/control.md: measured best of 0.5 and 1)
  double cutoff_hz = 4;    // Q's cutoff
  int order = 2;           // Q's Butterworth order (run forward and backward)
  double lead = 0.02;      // s: the update taken this much later in the trial (phase lead, L = gamma z^d;
                           // docs/control.md: measured best of 0 and 20 ms)
  bool friction = false;   // after each trial, each joint's friction estimated (friction_estimate.hpp) and the
                           // pre-correction recomputed with it (docs/control.md, "Friction learnt")
  bool friction_viscous = true;  // with friction: the fitted viscous level used too (else only Coulomb's)
  // gamma in (0, kLearningGainBound), cutoff in (0, controller_hz / 2) and, given the reference's
  // duration, at least one cycle over it (below, Q returns the trial's mean: filter's rule; 1e-9 Hz
  // failed inside the Butterworth design, without naming --cutoff), order in [1, 8], lead in
  // [0, kMaxLearningLead];
  // throws vcloe::Error naming the option.
  void validate(double controller_hz, double duration_s = 0) const;
};

// What one trial measured, per exposure: the measured pose and the outer loop's command (the
// trace's `measured` and `command` columns).
struct Trial {
  std::vector<Vec6d> measured, outer_command;
};

// Q of a per-tick joint signal: each joint's sequence through the zero-phase Butterworth.
std::vector<Vec6d> zero_phase_lowpass(const std::vector<Vec6d>& signal, const LearningGains& gains,
                                      double controller_hz);

// The update's input before Q: f_j + J_theta e_j per tick (ideal: control::ideal_commands).
std::vector<Vec6d> learning_signal(const servo::PreparedReference& reference, const std::vector<Vec6d>& ideal,
                                   const Trial& trial);

// What the drives received at each tick of trial j under `command`: the command plus the outer
// loop's effort f_j (zero on the drives' loop alone).
std::vector<Vec6d> drives_commands(const servo::PreparedReference& reference, const std::vector<Vec6d>& ideal,
                                   const std::vector<Vec6d>& command, const Trial& trial);

// q_{j+1}: the command after trial j (one per tick of the reference). With `drives` (the model
// law, L = gamma z^d Q P^-1): the joint error's part goes through the model's inverse of the
// drives' loop after Q (drives_model.hpp); without, L = gamma z^d Q.
std::vector<Vec6d> learn_update(const servo::PreparedReference& reference, const std::vector<Vec6d>& ideal,
                                const std::vector<Vec6d>& command, const Trial& trial, const LearningGains& gains,
                                const DrivesModel* drives = nullptr);

// The stopping rule: learning has stopped improving when a trial's error (the larger of its
// position and angle RMS over the camera noise) is not at least `margin` below the best before.
bool stopped_improving(const std::vector<double>& errors, double margin = 0.05);

}  // namespace vcloe::control
