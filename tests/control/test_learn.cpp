// Specification of control/learn: the learning law on a small known system — a first-order joint
// lag, pose = joint (J_theta = I) — converges trial by trial for gains inside the stability bound;
// the Q filter is zero-phase; the outer loop's effort is taken into the command; the stopping rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>

#include "../test_support.hpp"
#include "vcloe/control/learn.hpp"
#include "vcloe/servo/controllers.hpp"
#include "vcloe/core/error.hpp"

using namespace vcloe;

namespace {

// A 2 s reference at 1 kHz / 100 Hz on a toy robot whose pose is its joint angles.
servo::PreparedReference toy_reference(double hz = 0.5) {
  servo::PreparedReference r;
  r.clock.total_ticks = 2000;
  r.duration = 2;
  for (int j = 0; j < r.clock.frames(); ++j) {
    const double t = 0.01 * j;
    r.exposure_times.push_back(t);
    Vec6d x;
    for (int i = 0; i < 6; ++i) x(i) = 0.01 * std::sin(2 * M_PI * hz * t + i) * std::sin(M_PI * t / 2);
    r.reference_at_exposure.push_back(x);
  }
  for (int j = 0; j < r.clock.updates(); ++j) r.updates.push_back({r.reference_at_exposure[j], Vec6d::Zero(), r.reference_at_exposure[j], Mat6d::Identity()});
  return r;
}

// The joints lag their command (y += a (u - y) per tick); the trial's measured poses, no outer loop.
control::Trial toy_trial(const servo::PreparedReference& r, const std::vector<Vec6d>& u, double a) {
  control::Trial t;
  Vec6d y = Vec6d::Zero();
  for (int k = 0; k < r.clock.total_ticks; ++k) {
    if (r.clock.exposed_at(k) >= 0) t.measured.push_back(y);
    y += a * (u[static_cast<std::size_t>(k)] - y);
  }
  t.outer_command.assign(t.measured.size(), Vec6d::Zero());
  return t;
}

double toy_rms(const servo::PreparedReference& r, const control::Trial& t) {
  double s = 0;
  for (std::size_t j = 0; j < t.measured.size(); ++j) s += (t.measured[j] - r.reference_at_exposure[j]).squaredNorm();
  return std::sqrt(s / static_cast<double>(t.measured.size()));
}

}  // namespace

TEST(Learn, ConvergesTrialByTrialOnALinearPlantInsideTheStabilityBound) {
  const servo::PreparedReference r = toy_reference();
  const std::vector<Vec6d> ideal(2000, Vec6d::Zero());
  for (const double gain : {0.5, 1.0, 1.5}) {
    control::LearningGains g;
    g.gain = gain;
    std::vector<Vec6d> u(2000, Vec6d::Zero());
    std::vector<double> rms;
    for (int trial = 0; trial < 8; ++trial) {
      const control::Trial t = toy_trial(r, u, 0.05);  // a 20 ms lag: 0.5 Hz well inside the band
      rms.push_back(toy_rms(r, t));
      u = control::learn_update(r, ideal, u, t, g);
    }
    std::printf("gain %.1f: RMS %.2e -> %.2e after 7 updates\n", gain, rms.front(), rms.back());
    for (std::size_t j = 1; j < rms.size(); ++j) EXPECT_LT(rms[j], rms[j - 1]) << "gain " << gain << " trial " << j;
    EXPECT_LT(rms.back(), 0.05 * rms.front()) << gain;
  }
}

TEST(Learn, APhaseLeadMatchingTheLagConvergesWhereThePlainLawStalls) {
  // A pure delay of 30 ms between command and joint (G = e^{-i w 0.03}) and a reference at 8 Hz:
  // there the delay turns the phase by 86 degrees and Q (10 Hz) passes 0.71, so the plain law's
  // |1 - Q G| = 1.18 and the error grows trial by trial; the lead d = 30 ms makes e^{i w d} G = 1:
  // |1 - Q| = 0.29 a trial.
  const servo::PreparedReference r = toy_reference(8);
  const std::vector<Vec6d> ideal(2000, Vec6d::Zero());
  auto delayed = [&r](const std::vector<Vec6d>& u) {
    control::Trial t;
    for (int k = 0; k < r.clock.total_ticks; ++k)
      if (r.clock.exposed_at(k) >= 0) t.measured.push_back(u[static_cast<std::size_t>(std::max(k - 30, 0))]);
    t.outer_command.assign(t.measured.size(), Vec6d::Zero());
    return t;
  };
  auto after = [&](double lead, int trials) {
    control::LearningGains g;
    g.cutoff_hz = 10, g.lead = lead;
    std::vector<Vec6d> u(2000, Vec6d::Zero());
    for (int j = 0; j < trials; ++j) u = control::learn_update(r, ideal, u, delayed(u), g);
    return toy_rms(r, delayed(u));
  };
  const double start = toy_rms(r, delayed(std::vector<Vec6d>(2000, Vec6d::Zero())));
  const double led = after(0.03, 3), plain = after(0, 3);
  std::printf("delay 30 ms, Q 10 Hz: RMS %.2e -> %.2e with the lead, %.2e without, after 3 updates\n", start, led, plain);
  EXPECT_LT(led, 0.1 * start);
  EXPECT_GT(plain, start);
}

TEST(Learn, GainsOutsideTheStabilityBoundAreRefused) {
  control::LearningGains g;
  for (const double gain : {0.0, -0.1, 2.0, 2.5}) {
    g.gain = gain;
    try {
      g.validate(1000);
      ADD_FAILURE() << gain;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--gain"), std::string::npos);
    }
  }
  g.gain = 0.5, g.cutoff_hz = 600;
  EXPECT_THROW(g.validate(1000), Error);
  g.cutoff_hz = 4;
  for (const double lead : {-0.001, 0.2}) {
    g.lead = lead;
    EXPECT_NE(test::error_of([&] { g.validate(1000); }).find("--lead"), std::string::npos) << lead;
  }
}

TEST(Learn, TheQFilterIsZeroPhaseAndCutsAboveItsCutoff) {
  control::LearningGains g;  // 4 Hz
  std::vector<Vec6d> slow(4000), fast(4000);
  for (std::size_t k = 0; k < slow.size(); ++k) {
    const double t = 1e-3 * static_cast<double>(k);
    slow[k].setConstant(std::sin(2 * M_PI * 0.5 * t));
    fast[k].setConstant(std::sin(2 * M_PI * 60 * t));
  }
  const std::vector<Vec6d> s = control::zero_phase_lowpass(slow, g, 1000), f = control::zero_phase_lowpass(fast, g, 1000);
  double slow_err = 0, fast_peak = 0;
  for (std::size_t k = 500; k < 3500; ++k) {  // away from the ends
    slow_err = std::max(slow_err, (s[k] - slow[k]).cwiseAbs().maxCoeff());
    fast_peak = std::max(fast_peak, f[k].cwiseAbs().maxCoeff());
  }
  EXPECT_LT(slow_err, 1e-3);   // no lag: a 1 ms shift alone would leave 3e-3
  EXPECT_LT(fast_peak, 1e-3);  // 60 Hz: (4/60)^8 through forward and backward
}

TEST(Learn, TheOuterLoopsEffortIsTakenIntoTheCommand) {
  const servo::PreparedReference r = toy_reference();
  const std::vector<Vec6d> ideal(2000, Vec6d::Zero());
  control::Trial t;
  t.measured = r.reference_at_exposure;  // on the reference: no error
  Vec6d c;
  c << 1e-3, -2e-3, 3e-3, 0, 5e-4, -1e-3;
  t.outer_command.assign(t.measured.size(), c);
  control::LearningGains g;
  const std::vector<Vec6d> u = control::learn_update(r, ideal, std::vector<Vec6d>(2000, Vec6d::Zero()), t, g);
  // Half a second after the first frame's arrival (10 ms: a step through Q), away from the end.
  double worst = 0;
  for (std::size_t k = 500; k < 1800; ++k) worst = std::max(worst, (u[k] - g.gain * c).cwiseAbs().maxCoeff());
  EXPECT_LT(worst, 1e-6);
}

TEST(Learn, StopsWhenATrialIsNotFivePercentBelowTheBestBefore) {
  EXPECT_FALSE(control::stopped_improving({10}));
  EXPECT_FALSE(control::stopped_improving({10, 5, 2.5}));
  EXPECT_TRUE(control::stopped_improving({10, 5, 4.9}));
  EXPECT_TRUE(control::stopped_improving({10, 5, 6}));
}

namespace {

// A 2 s reference that starts and ends at rest (envelope sin^2), joint i at `hz` with phase i.
Vec6d rest_to_rest(double t, double hz) {
  Vec6d x;
  for (int i = 0; i < 6; ++i) x(i) = 0.01 * std::sin(2 * M_PI * hz * t + i) * std::pow(std::sin(M_PI * t / 2), 2);
  return x;
}

servo::PreparedReference rest_reference(double hz) {
  servo::PreparedReference r = toy_reference(hz);
  for (int j = 0; j < r.clock.frames(); ++j) r.reference_at_exposure[static_cast<std::size_t>(j)] = rest_to_rest(0.01 * j, hz);
  for (int j = 0; j < r.clock.updates(); ++j) r.updates[static_cast<std::size_t>(j)].J_theta.setIdentity();
  return r;
}

// The drives' loop of drives_model.hpp, per joint: servo::InnerPid at 1 kHz holding a joint of
// inertia m with viscous friction b (semi-implicit Euler, 10 steps a tick); the pose is the joints.
control::Trial drives_trial(const servo::PreparedReference& r, const std::vector<Vec6d>& u, double m, double b,
                            const servo::DriveGains<double>& g) {
  control::Trial t;
  servo::InnerPid<double> pid;
  Vec6d y = Vec6d::Zero(), v = Vec6d::Zero();
  for (int k = 0; k < r.clock.total_ticks; ++k) {
    if (r.clock.exposed_at(k) >= 0) t.measured.push_back(y);
    const Vec6d tau = pid.update(g, u[static_cast<std::size_t>(k)], y, 1e-3);
    for (int s = 0; s < 10; ++s) v += 1e-4 * (tau - b * v) / m, y += 1e-4 * v;
  }
  t.outer_command.assign(t.measured.size(), Vec6d::Zero());
  return t;
}

control::DrivesModel toy_drives(const servo::PreparedReference& r, double m, double b, const servo::DriveGains<double>& g) {
  control::DrivesModel d;
  d.gains = g, d.controller_period = 1e-3, d.ticks_per_frame = 10, d.viscous.setConstant(b);
  d.inertia.assign(r.reference_at_exposure.size(), m * Mat6d::Identity());
  return d;
}

// RMS per trial of the drives' loop learning at `hz` with the law of `g` (model `model`, if any).
std::vector<double> drives_learning(double hz, const control::LearningGains& g, const control::DrivesModel* model,
                                    int trials) {
  const servo::PreparedReference r = rest_reference(hz);
  const std::vector<Vec6d> ideal(2000, Vec6d::Zero());
  std::vector<Vec6d> u(2000);
  for (std::size_t k = 0; k < u.size(); ++k) u[k] = rest_to_rest(1e-3 * static_cast<double>(k), hz);
  std::vector<double> rms;
  for (int j = 0; j < trials; ++j) {
    const control::Trial t = drives_trial(r, u, 0.36, 2, {360, 770, 18});
    rms.push_back(toy_rms(r, t));
    u = control::learn_update(r, ideal, u, t, g, model);
  }
  return rms;
}

}  // namespace

TEST(Learn, TheModelsInverseOfTheDrivesContractsWhereTheirLagSlowsThePlainLaw) {
  // The drives' loop of the default robot's prior gains against a joint inertia m = 0.36 kg m^2:
  // P lags by about m / ld = 20 ms above lp / ld (3 Hz) and peaks above 1. A reference at 5 Hz,
  // Q at 10 Hz: the plain law (no lead) contracts by about |1 - Q P| = 0.5 a trial; gamma Q P^-1
  // with the exact model contracts by 1 - Q(5 Hz) = 0.06 a trial, and with a model off by more
  // than 30 % (inertia 1.3x, gains 0.7x: its lag m / ld 1.9x the true one; friction 2x) it still
  // contracts every trial, faster than the plain law.
  control::LearningGains plain;
  plain.cutoff_hz = 10, plain.lead = 0;
  control::LearningGains inverse = plain;
  inverse.law = control::LearningLaw::inverse;
  const servo::PreparedReference r = rest_reference(5);
  const control::DrivesModel exact = toy_drives(r, 0.36, 2, {360, 770, 18});
  const control::DrivesModel off = toy_drives(r, 0.36 * 1.3, 4, {0.7 * 360, 0.7 * 770, 0.7 * 18});
  const std::vector<double> p = drives_learning(5, plain, nullptr, 4), e = drives_learning(5, inverse, &exact, 4),
                            o = drives_learning(5, inverse, &off, 4);
  std::printf("5 Hz through the drives: RMS %.2e -> plain %.2e, inverse %.2e, inverse 30 %% off %.2e after 3 updates\n",
              p[0], p.back(), e.back(), o.back());
  for (std::size_t j = 1; j < e.size(); ++j) {
    EXPECT_LT(e[j], 0.15 * e[j - 1]) << j;  // 1 - Q(5 Hz) = 0.06
    EXPECT_LT(o[j], 0.7 * o[j - 1]) << j;
  }
  EXPECT_GT(p.back(), 100 * e.back());
  EXPECT_LT(o.back(), p.back());
}

TEST(Learn, TheInverseOfTheDrivesIsTheirModelsResponseInverted) {
  // A sinusoid through the model's inverse, then through the model (drives_trial): back to itself.
  const servo::PreparedReference r = rest_reference(3);
  const control::DrivesModel d = toy_drives(r, 0.36, 2, {360, 770, 18});
  std::vector<Vec6d> x(2000);
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = rest_to_rest(1e-3 * static_cast<double>(k), 3);
  const control::Trial t = drives_trial(r, control::invert_drives(d, x), 0.36, 2, {360, 770, 18});
  EXPECT_LT(toy_rms(r, t), 0.02 * toy_rms(r, drives_trial(r, x, 0.36, 2, {360, 770, 18})));
  const std::complex<double> p = control::drives_response(d, 0, 0, 2 * M_PI * 8);  // lag m / ld at 8 Hz
  EXPECT_NEAR(std::arg(p), -std::atan(2 * M_PI * 8 * 0.02), 0.15);
}
