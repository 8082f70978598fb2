#pragma once
// vcloe/excitation/fourier.hpp — reference and excitation trajectories in pose space.
//
// The finite Fourier series of Li et al. 2019 eq. (37), per pose axis i (fundamental f0 in Hz,
// n harmonics, coefficients s_il, c_il, offset chi0_i):
//   chi_i(t)      = sum_l [ sin(2 pi f0 l t) s_il - cos(2 pi f0 l t) c_il ] / (2 pi f0 l) + chi0_i
//   chi_dot_i(t)  = sum_l [ cos(2 pi f0 l t) s_il + sin(2 pi f0 l t) c_il ]
//   chi_ddot_i(t) = sum_l 2 pi f0 l [ -sin(2 pi f0 l t) s_il + cos(2 pi f0 l t) c_il ]
// with exact twist and twist rate through J_e (eqs. 2, 38). Loaded from and written to YAML
// (docs/trajectory-file.md), checked sample by sample against the robot's limits.
#include <cstdint>
#include <limits>
#include <string>

#include "vcloe/core/defaults.hpp"
#include "vcloe/core/settings.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::excitation {

// 2π, the angular frequency of one period (eq. 37).
inline constexpr double kTwoPi = 2.0 * 3.14159265358979323846;

struct TrajectorySample {
  double t = 0;
  Vec6d chi, chi_dot, chi_ddot;  // pose and its derivatives (m, rad)
  Vec6d v, v_dot;                // platform twist [h_dot; omega] and its rate (eqs. 2, 38)
};

// Bounds checked before any work: a day of motion, and more harmonics than any excitation needs.
inline constexpr double kMaxDuration = 86400.0;  // s
inline constexpr double kMinDuration = 1e-3;     // s: one period of the default 1 kHz controller
inline constexpr int kMaxHarmonics = 200;
// The fastest harmonic the limit check resolves: a tenth of a cycle a sample (20 Hz at the 5 ms
// samples of MotionLimits), so that no peak passes between samples.
inline constexpr double kResolvedCyclesPerSample = 0.1;
inline constexpr double kMinF0 = 1.0 / kMaxDuration;  // Hz: at least one cycle a day
// The magnitudes of a parallel robot's pose and rates, each coefficient and offset within them
// (docs/trajectory-file.md): positions within 100 m of the origin (the robot file's bound on a
// coordinate), angles within half a turn, and a harmonic's speed within 100 m/s or 100 rad/s
// (the fastest parallel robots move at about 10 m/s): beyond them a number is a typo, refused at
// its key, not an overflow reported as infeasible motion.
inline constexpr double kMaxOffsetPosition = 100.0;                       // m
inline constexpr double kMaxOffsetAngle = 3.14159265358979323846;         // rad
inline constexpr double kMaxCoefficientLinear = 100.0;                    // m/s
inline constexpr double kMaxCoefficientAngular = 100.0;                   // rad/s

struct FourierTrajectory {
  double f0 = 0.1;           // fundamental frequency (Hz)
  double duration = 20.0;    // s
  Vec6d offset = Vec6d::Zero();           // chi0
  Eigen::Matrix<double, 6, Eigen::Dynamic> s, c;  // 6 x n coefficients (m/s, rad/s)

  int harmonics() const { return static_cast<int>(s.cols()); }
  TrajectorySample sample(double t) const;
  Vec6d pose(double t) const { return sample(t).chi; }
  // Frequency, duration, harmonics, offsets and coefficients within the bounds above; validate
  // throws vcloe::Error "<where>: <message>" (core/settings.hpp).
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where) const;
};

// Errors name the file, line and key (zero harmonics, non-positive frequency or duration, ...).
FourierTrajectory load_trajectory(const std::string& file);
FourierTrajectory parse_trajectory(const std::string& yaml_text, const std::string& name);
std::string trajectory_to_yaml(const FourierTrajectory& trajectory);

// Limits every sample must respect, on top of the robot's own (joint range, singularity).
struct MotionLimits {
  double sample_period = 0.005;        // s between checked samples
  double max_joint_velocity = defaults::kMaxJointVelocity;  // rad/s
  double max_joint_acceleration = 40.0;  // rad/s^2
  // Singularity margins stricter than the robot's own (0: use the robot's). An excitation
  // trajectory needs headroom: the robot tracks it with some error.
  double min_transmission = 0.0;
  double min_parallel_conditioning = 0.0;
  // Near-singular geometry the two margins above do not see (their measures are normalised by
  // the robot's size; a tiny platform passes them): the largest platform rotation (rad) and
  // displacement (in crank lengths) that one rad at one joint causes, J_ad^-1 (eq. 8). The
  // default robot reaches about 1.1; above this, joint-level errors (encoder, gains, friction)
  // are amplified so much that the pose cannot be controlled or the identification trusted.
  double max_joint_error_gain = 10.0;

  // The first limit not finite and positive (the margins not in [0, 1)): a NaN limit passed
  // every check silently. validate throws vcloe::Error "<where>: <key>: ..." (core/settings.hpp).
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where) const;
};

struct FeasibilityReport {
  bool feasible = true;
  double time = 0;    // first failing time (s)
  int joint = -1;     // failing joint or leg (0-based), -1 if not joint-specific
  std::string reason; // "joint 3 at 1.01 rad outside the joint range at t = 4.215 s"
  double max_abs_theta = 0, max_abs_theta_dot = 0, max_abs_theta_ddot = 0;
  double min_transmission = 1, min_parallel_conditioning = 1;
  // What an error at one joint does to the pose (rigid mechanism, first order): the columns of
  // J_ad^-1 (eq. 8) split into platform displacement (m per rad) and rotation (rad per rad),
  // maxima over samples and joints, and the range of displacement / rotation over the columns
  // (m). Every pose error of a drive-level cause (gains, friction, inertia) is a mix of these
  // columns, so its position/angle ratio lies in [min_ratio, max_ratio] (docs/virtual-robot.md).
  struct JointErrorGain {
    double max_displacement = 0, max_rotation = 0;
    double min_ratio = std::numeric_limits<double>::infinity(), max_ratio = 0;
  } joint_error;
  int samples = 0;    // checked, the failing one included (the check stops at it)
  // Samples that passed every check: the figures above are over these; with none (the first
  // failed) they measure nothing and are not shown (probe 33, t17: max |theta| 0 "measured").
  int passed() const { return feasible ? samples : std::max(0, samples - 1); }
};

// Checks every sample at MotionLimits::sample_period (and the final time), after the limits'
// own validate(): the highest harmonic n f0 must be resolved by the samples (at most a tenth of
// the sample rate, 20 Hz at 5 ms: else a peak could pass between samples), IK exists, joint
// range, both singularity margins, the joint error gain, joint velocity theta_dot =
// J_theta chi_dot and joint acceleration theta_ddot = J_theta chi_ddot + J_theta_dot chi_dot.
FeasibilityReport check_feasibility(const sim::RobotModel& model, const FourierTrajectory& trajectory,
                                    const MotionLimits& limits = {});

// Random feasible trajectory (validation sets): offsets at home, coefficients drawn from the
// seed and scaled so the pose amplitudes stay within the given bounds, shrunk until feasible.
struct RandomTrajectoryOptions {
  int harmonics = 5;
  double f0 = 0.1;
  double duration = 20.0;
  double position_amplitude = 0.02;   // m, per axis
  double angle_amplitude = 0.06;      // rad, per axis
  // Start at rest: zero velocity and acceleration at t = 0 (sum_l s_il = 0 and sum_l l c_il = 0,
  // the coefficients drawn projected onto these constraints before scaling; at least two
  // harmonics). A robot that stands at the start can follow such a reference
  // from its first tick; iterative learning repeats it from rest (docs/control.md). Off: the
  // draw of before.
  bool start_at_rest = false;
  MotionLimits limits;

  // The first of: at least one harmonic (at most kMaxHarmonics), f0 at least one cycle a day
  // (kMinF0), duration in (0, kMaxDuration], amplitudes positive and finite, valid limits.
  // validate throws vcloe::Error "<where>: <key>: ..." (core/settings.hpp).
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where) const;
};
FourierTrajectory random_feasible_trajectory(const sim::RobotModel& model, std::uint64_t seed,
                                             const RandomTrajectoryOptions& options = {});

}  // namespace vcloe::excitation
