#pragma once
// study_control's frequency bands of a learning trial's error (bench/study_control.cpp, --bands 1).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "vcloe/core/rotation_difference.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/rig/setup.hpp"
#include "vcloe/vision/butterworth.hpp"

namespace vcloe::bench {

// The true error (truth - reference) of a trial per axis split into frequency bands (zero-phase
// Butterworth low-passes at 1, 4 and 10 Hz at the camera's rate), in joint space too (J_theta at
// the reference), and the part that changed since the previous trial (what is not repeatable).
inline void print_bands(const rig::ExperimentSetup& s, const PoseTrace& t, std::vector<Vec6d>& previous) {
  const std::size_t n = t.size();
  std::vector<Vec6d> e(n), q(n);
  for (std::size_t j = 0; j < n; ++j) {
    e[j] = pose_difference(t.truth[j], t.reference[j]);
    q[j] = s.reference.updates[std::min(j, s.reference.updates.size() - 1)].J_theta * e[j];
  }
  const double rate = s.experiment.timing.camera_hz, cut[3] = {1, 4, 10};
  auto band_rms = [&](const std::vector<Vec6d>& x, int axis, double scale) {
    std::vector<double> v(n), lo(n, 0.0);
    for (std::size_t j = 0; j < n; ++j) v[j] = x[j](axis);
    std::vector<double> out;
    for (double c : cut) {
      const std::vector<double> f = vision::sosfiltfilt(vision::butterworth_lowpass(4, c, rate), v);
      double r = 0;
      for (std::size_t j = 0; j < n; ++j) r += (f[j] - lo[j]) * (f[j] - lo[j]);
      out.push_back(scale * std::sqrt(r / n));
      lo = f;
    }
    double r = 0;
    for (std::size_t j = 0; j < n; ++j) r += (v[j] - lo[j]) * (v[j] - lo[j]);
    out.push_back(scale * std::sqrt(r / n));
    return out;
  };
  const char* names[6] = {"x um", "y um", "z um", "a urad", "b urad", "g urad"};
  std::printf("        bands <1 / 1-4 / 4-10 / >10 Hz, pose (um, urad) | joints (urad) | changed since last trial:\n");
  for (int i = 0; i < 6; ++i) {
    const std::vector<double> b = band_rms(e, i, 1e6), c = band_rms(q, i, 1e6);
    double d = 0;
    if (previous.size() == n)
      for (std::size_t j = 0; j < n; ++j) d += std::pow(e[j](i) - previous[j](i), 2);
    std::printf("        %-7s %6.1f %6.1f %6.1f %6.1f | joint %d %6.1f %6.1f %6.1f %6.1f | %6.1f\n", names[i], b[0], b[1],
                b[2], b[3], i + 1, c[0], c[1], c[2], c[3], 1e6 * std::sqrt(d / n));
  }
  previous = e;
}

// What learning sees (measured - reference through J_theta, noise included): per joint, the RMS
// in the bands < 1, 1-4, 4-10, > 10 Hz, the RMS over the first second, and the RMS within 50 ms
// of the joint's reference velocity reversals against the rest (the share of the time there);
// the repeatable part, (e_j + e_{j-1}) / 2 less the noise's half, is not separated here.
inline void print_measured(const rig::ExperimentSetup& s, const PoseTrace& t) {
  const std::size_t n = std::min(t.size(), s.reference.updates.size());
  const double rate = s.experiment.timing.camera_hz, cut[3] = {1, 4, 10};
  std::vector<Vec6d> q(n);
  for (std::size_t j = 0; j < n; ++j)
    q[j] = s.reference.updates[j].J_theta * pose_difference(t.reference[j], t.measured[j]);
  std::printf("        measured joint error (urad): bands <1 / 1-4 / 4-10 / >10 Hz | first 1 s | near reversals (share) | elsewhere\n");
  const auto window = static_cast<std::size_t>(std::lround(0.05 * rate));
  for (int i = 0; i < 6; ++i) {
    std::vector<double> v(n), lo(n, 0.0);
    for (std::size_t j = 0; j < n; ++j) v[j] = q[j](i);
    std::printf("        joint %d", i + 1);
    for (double c : cut) {
      const std::vector<double> f = vision::sosfiltfilt(vision::butterworth_lowpass(4, c, rate), v);
      double r = 0;
      for (std::size_t j = 0; j < n; ++j) r += (f[j] - lo[j]) * (f[j] - lo[j]);
      std::printf(" %6.1f", 1e6 * std::sqrt(r / n));
      lo = f;
    }
    double r = 0, first = 0, near = 0, far = 0;
    std::size_t nf = 0, nn = 0, nr = 0;
    std::vector<bool> at(n, false);
    for (std::size_t j = 1; j + 1 < n; ++j) {
      const double a = s.reference.updates[j].theta_d(i) - s.reference.updates[j - 1].theta_d(i);
      const double b = s.reference.updates[j + 1].theta_d(i) - s.reference.updates[j].theta_d(i);
      if (a * b < 0)
        for (std::size_t k = j > window ? j - window : 0; k < std::min(n, j + window + 1); ++k) at[k] = true;
    }
    for (std::size_t j = 0; j < n; ++j) {
      r += std::pow(v[j] - lo[j], 2);
      if (t.time[j] - t.time[0] < 1) first += v[j] * v[j], ++nf;
      (at[j] ? near : far) += v[j] * v[j];
      nn += at[j] ? 1 : 0, nr += at[j] ? 0 : 1;
    }
    std::printf(" %6.1f | %6.1f | %6.1f (%.2f) | %6.1f\n", 1e6 * std::sqrt(r / n), 1e6 * std::sqrt(first / std::max<std::size_t>(nf, 1)),
                1e6 * std::sqrt(near / std::max<std::size_t>(nn, 1)), static_cast<double>(nn) / n,
                1e6 * std::sqrt(far / std::max<std::size_t>(nr, 1)));
  }
}

}  // namespace vcloe::bench
