// Iterative learning control (learn.hpp).
#include "vcloe/control/learn.hpp"

#include <algorithm>
#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/core/rotation_difference.hpp"
#include "vcloe/vision/butterworth.hpp"

namespace vcloe::control {

void LearningGains::validate(double controller_hz, double duration_s) const {
  if (!(gain > 0 && gain < kLearningGainBound))
    fail("--gain", "expected a learning gain in (0, " + exact_number(kLearningGainBound) + "), got " + exact_number(gain) +
                       ": outside it |1 - gain| >= 1 and the error grows trial by trial (docs/control.md)");
  if (!(cutoff_hz > 0 && cutoff_hz < controller_hz / 2))
    fail("--cutoff", "expected a cutoff in (0, " + exact_number(controller_hz / 2) + ") Hz, got " + exact_number(cutoff_hz));
  if (duration_s > 0 && cutoff_hz < 1 / duration_s)
    fail("--cutoff", exact_number(cutoff_hz) + " Hz is below one cycle over the " + exact_number(duration_s) +
                         " s reference (at least " + exact_number(1 / duration_s) +
                         " Hz): the learning filter would return each trial's mean");
  if (!(order >= 1 && order <= 8)) fail("--order", "expected a filter order in [1, 8], got " + std::to_string(order));
  if (!(lead >= 0 && lead <= kMaxLearningLead))
    fail("--lead", "expected a phase lead in [0, " + exact_number(kMaxLearningLead) + "] s, got " + exact_number(lead));
}

std::vector<Vec6d> zero_phase_lowpass(const std::vector<Vec6d>& signal, const LearningGains& gains, double controller_hz) {
  const vision::SosFilter sos = vision::butterworth_lowpass(gains.order, gains.cutoff_hz, controller_hz);
  std::vector<Vec6d> out(signal.size());
  std::vector<double> x(signal.size());
  for (int i = 0; i < 6; ++i) {
    for (std::size_t k = 0; k < signal.size(); ++k) x[k] = signal[k](i);
    const std::vector<double> y = vision::sosfiltfilt(sos, x);
    for (std::size_t k = 0; k < signal.size(); ++k) out[k](i) = y[k];
  }
  return out;
}

namespace {

// Per-frame values (one per exposure) at each controller tick, linear between exposures (held
// after the last).
std::vector<Vec6d> between_exposures(const servo::TickClock& clock, const std::vector<Vec6d>& at_frame) {
  const auto ticks = static_cast<std::size_t>(clock.total_ticks);
  const std::size_t frames = at_frame.size();
  std::vector<Vec6d> out(ticks);
  for (std::size_t k = 0; k < ticks; ++k) {
    const double f = static_cast<double>(k) / clock.timing.ticks_per_frame();
    const auto j0 = std::min(static_cast<std::size_t>(f), frames - 1);
    const double w = j0 + 1 < frames ? f - static_cast<double>(j0) : 0.0;
    out[k] = (1 - w) * at_frame[j0];
    if (j0 + 1 < frames) out[k] += w * at_frame[j0 + 1];
  }
  return out;
}

std::size_t frames_of(const servo::PreparedReference& ref, const std::vector<Vec6d>& ideal, const Trial& trial) {
  const std::size_t frames = std::min(trial.measured.size(), ref.updates.size());
  if (ideal.size() < static_cast<std::size_t>(ref.clock.total_ticks) || trial.outer_command.size() < frames || frames == 0)
    fail("learning", "the trial has " + std::to_string(trial.measured.size()) + " frames, the reference " +
                         std::to_string(ref.updates.size()));
  return frames;
}

// f_j per tick: the outer loop's command, held from a frame's arrival to the next one's, less ideal.
std::vector<Vec6d> outer_effort(const servo::PreparedReference& ref, const std::vector<Vec6d>& ideal, const Trial& trial,
                                std::size_t frames) {
  const servo::TickClock& clock = ref.clock;
  std::vector<Vec6d> out(static_cast<std::size_t>(clock.total_ticks), Vec6d::Zero());
  for (std::size_t k = 0; k < out.size(); ++k) {
    const int tick = static_cast<int>(k);
    for (int j = std::min<int>(static_cast<int>(frames) - 1, tick / clock.timing.ticks_per_frame()); j >= 0; --j)
      if (clock.arrival_tick(j) <= tick) {
        out[k] = trial.outer_command[static_cast<std::size_t>(j)] - ideal[k];
        break;
      }
  }
  return out;
}

}  // namespace

namespace {

// J_theta(chi_d(t_j)) (chi_d(t_j) - chi_m,j) per tick (eq. 29), linear between exposures.
std::vector<Vec6d> joint_error(const servo::PreparedReference& ref, const Trial& trial, std::size_t frames) {
  std::vector<Vec6d> e(frames);
  for (std::size_t j = 0; j < frames; ++j)
    e[j] = ref.updates[j].J_theta * pose_difference(ref.reference_at_exposure[j], trial.measured[j]);
  return between_exposures(ref.clock, e);
}

}  // namespace

std::vector<Vec6d> learning_signal(const servo::PreparedReference& ref, const std::vector<Vec6d>& ideal,
                                   const Trial& trial) {
  const std::size_t frames = frames_of(ref, ideal, trial);
  std::vector<Vec6d> out = outer_effort(ref, ideal, trial, frames);
  const std::vector<Vec6d> e = joint_error(ref, trial, frames);
  for (std::size_t k = 0; k < out.size(); ++k) out[k] += e[k];
  return out;
}

std::vector<Vec6d> drives_commands(const servo::PreparedReference& ref, const std::vector<Vec6d>& ideal,
                                   const std::vector<Vec6d>& command, const Trial& trial) {
  const auto ticks = static_cast<std::size_t>(ref.clock.total_ticks);
  if (command.size() < ticks)
    fail("learning", "the command has " + std::to_string(command.size()) + " ticks, the reference " + std::to_string(ticks));
  std::vector<Vec6d> out = outer_effort(ref, ideal, trial, frames_of(ref, ideal, trial));
  for (std::size_t k = 0; k < ticks; ++k) out[k] += command[k];
  return out;
}

std::vector<Vec6d> learn_update(const servo::PreparedReference& ref, const std::vector<Vec6d>& ideal,
                                const std::vector<Vec6d>& command, const Trial& trial, const LearningGains& gains,
                                const DrivesModel* drives) {
  const double hz = ref.clock.timing.controller_hz;
  gains.validate(hz, ref.duration);
  const auto ticks = static_cast<std::size_t>(ref.clock.total_ticks);
  if (command.size() < ticks)
    fail("learning", "the command has " + std::to_string(command.size()) + " ticks, the reference " + std::to_string(ticks));
  std::vector<Vec6d> out(command.begin(), command.begin() + static_cast<long>(ticks));
  std::vector<Vec6d> q;
  if (drives) {  // Q f_j + P^-1 Q J_theta e_j: the outer loop's effort is a command already
    const std::size_t frames = frames_of(ref, ideal, trial);
    q = zero_phase_lowpass(outer_effort(ref, ideal, trial, frames), gains, hz);
    const std::vector<Vec6d> e = invert_drives(*drives, zero_phase_lowpass(joint_error(ref, trial, frames), gains, hz));
    for (std::size_t k = 0; k < ticks; ++k) q[k] += e[k];
  } else {
    q = zero_phase_lowpass(learning_signal(ref, ideal, trial), gains, hz);
  }
  // The update taken `lead` later in the trial (L = gamma z^d), the last tick's held at the end.
  const auto d = static_cast<std::size_t>(std::lround(gains.lead * hz));
  for (std::size_t k = 0; k < ticks; ++k) out[k] += gains.gain * q[std::min(k + d, ticks - 1)];
  return out;
}

bool stopped_improving(const std::vector<double>& errors, double margin) {
  if (errors.size() < 2) return false;
  const double best = *std::min_element(errors.begin(), errors.end() - 1);
  return !(errors.back() < (1 - margin) * best);
}

}  // namespace vcloe::control
