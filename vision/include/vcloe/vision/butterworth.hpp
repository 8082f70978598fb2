#pragma once
// vcloe/vision/butterworth.hpp — offline zero-phase Butterworth filtering of recorded traces.
//
// Li et al. 2019 §4.2 filters measured poses with an 8th-order Butterworth low-pass at 60 Hz, run
// forward and backward (Matlab filtfilt). We design the filter as second-order sections exactly
// as scipy.signal.butter(N, Wn, output='sos') does (same pole/zero pairing and section order)
// and filter as scipy.signal.sosfiltfilt does (odd extension, steady-state initial conditions
// from sosfilt_zi). Agreement with scipy is tested on committed vectors (tests/data/filter/).
// Non-causal: never used inside the control loop (docs/design.md §7).
#include <array>
#include <vector>

namespace vcloe::vision {

// One biquad [b0, b1, b2, a0, a1, a2] (a0 = 1), scipy's sos row layout.
using SecondOrderSection = std::array<double, 6>;
using SosFilter = std::vector<SecondOrderSection>;

// Butterworth low-pass of `order` >= 1 with cutoff `cutoff_hz` for samples at `sample_rate_hz`
// (0 < cutoff < sample_rate / 2). Throws vcloe::Error otherwise.
SosFilter butterworth_lowpass(int order, double cutoff_hz, double sample_rate_hz);

// scipy.signal.sosfilt_zi: per-section initial state of a unit step's steady state.
std::vector<std::array<double, 2>> sosfilt_zi(const SosFilter& sos);

// scipy.signal.sosfilt with initial state `zi` (updated in place to the final state).
std::vector<double> sosfilt(const SosFilter& sos, const std::vector<double>& x,
                            std::vector<std::array<double, 2>>& zi);

// scipy's default padding length for sosfiltfilt: 3 * (2 * sections + 1 - min(#b2 == 0, #a2 == 0)).
int sosfiltfilt_default_padlen(const SosFilter& sos);

// scipy.signal.sosfiltfilt(sos, x, padtype='odd', padlen=default). The signal must be longer than
// the padding length (scipy's rule); otherwise vcloe::Error says how many samples are needed.
std::vector<double> sosfiltfilt(const SosFilter& sos, const std::vector<double>& x);

}  // namespace vcloe::vision
