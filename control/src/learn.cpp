// Iterative learning control (learn.hpp).
#include "vcloe/control/learn.hpp"

#include <algorithm>
#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/vision/butterworth.hpp"

namespace vcloe::control {

void LearningGains::validate(double controller_hz) const {
  if (!(gain > 0 && gain < kLearningGainBound))
    fail("--gain", "expected a learning gain in (0, " + exact_number(kLearningGainBound) + "), got " + exact_number(gain) +
                       ": outside it |1 - gain| >= 1 and the error grows trial by trial (docs/control.md)");
  if (!(cutoff_hz > 0 && cutoff_hz < controller_hz / 2))
    fail("--cutoff", "expected a cutoff in (0, " + exact_number(controller_hz / 2) + ") Hz, got " + exact_number(cutoff_hz));
  if (!(order >= 1 && order <= 8)) fail("--order", "expected a filter order in [1, 8], got " + std::to_string(order));
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

std::vector<Vec6d> learning_signal(const servo::PreparedReference& ref, const std::vector<Vec6d>& ideal,
                                   const Trial& trial) {
  const servo::TickClock& clock = ref.clock;
  const auto ticks = static_cast<std::size_t>(clock.total_ticks);
  const std::size_t frames = std::min(trial.measured.size(), ref.updates.size());
  if (ideal.size() < ticks || trial.outer_command.size() < frames || frames == 0)
    fail("learning", "the trial has " + std::to_string(trial.measured.size()) + " frames, the reference " +
                         std::to_string(ref.updates.size()));
  // Joint-space error at each frame: J_theta(chi_d(t_j)) (chi_d(t_j) - chi_m,j), eq. (29).
  std::vector<Vec6d> e(frames);
  for (std::size_t j = 0; j < frames; ++j)
    e[j] = ref.updates[j].J_theta * (ref.reference_at_exposure[j] - trial.measured[j]);
  std::vector<Vec6d> out(ticks, Vec6d::Zero());
  for (std::size_t k = 0; k < ticks; ++k) {
    const int tick = static_cast<int>(k);
    // The outer loop's command holds from a frame's arrival to the next one's.
    int held = -1;
    for (int j = std::min<int>(static_cast<int>(frames) - 1, tick / clock.timing.ticks_per_frame()); j >= 0; --j)
      if (clock.arrival_tick(j) <= tick) {
        held = j;
        break;
      }
    if (held >= 0) out[k] = trial.outer_command[static_cast<std::size_t>(held)] - ideal[k];
    // The error between exposures, linear (held after the last).
    const double f = static_cast<double>(tick) / clock.timing.ticks_per_frame();
    const auto j0 = std::min(static_cast<std::size_t>(f), frames - 1);
    const double w = j0 + 1 < frames ? f - static_cast<double>(j0) : 0.0;
    out[k] += (1 - w) * e[j0];
    if (j0 + 1 < frames) out[k] += w * e[j0 + 1];
  }
  return out;
}

std::vector<Vec6d> learn_update(const servo::PreparedReference& ref, const std::vector<Vec6d>& ideal,
                                const std::vector<Vec6d>& command, const Trial& trial, const LearningGains& gains) {
  gains.validate(ref.clock.timing.controller_hz);
  const auto ticks = static_cast<std::size_t>(ref.clock.total_ticks);
  if (command.size() < ticks)
    fail("learning", "the command has " + std::to_string(command.size()) + " ticks, the reference " + std::to_string(ticks));
  const std::vector<Vec6d> q = zero_phase_lowpass(learning_signal(ref, ideal, trial), gains, ref.clock.timing.controller_hz);
  std::vector<Vec6d> out(command.begin(), command.begin() + static_cast<long>(ticks));
  for (std::size_t k = 0; k < ticks; ++k) out[k] += gains.gain * q[k];
  return out;
}

bool stopped_improving(const std::vector<double>& errors, double margin) {
  if (errors.size() < 2) return false;
  const double best = *std::min_element(errors.begin(), errors.end() - 1);
  return !(errors.back() < (1 - margin) * best);
}

}  // namespace vcloe::control
