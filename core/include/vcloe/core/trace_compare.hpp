#pragma once
// vcloe/core/trace_compare.hpp — per-axis differences of two pose traces (Li et al. 2019 Table 3
// form): RMS and max of A - B in mm and mrad, at A's timestamps; B is linearly interpolated
// when the time grids differ.
#include <algorithm>
#include <array>
#include <string>

#include "vcloe/core/trace.hpp"

namespace vcloe {

enum class TraceColumns { Measured, Truth, Reference };
TraceColumns trace_columns_from_string(const std::string& name);
const std::vector<Vec6d>& columns_of(const PoseTrace& t, TraceColumns which, const std::string& name);

struct TraceDifference {
  std::array<double, 3> rms_mm{}, max_mm{};      // x, y, z
  std::array<double, 3> rms_mrad{}, max_mrad{};  // alpha, beta, gamma
  // The angle of the rotation between A's and B's orientations (rotation_between): the measure that
  // does not depend on the Euler convention.
  double rms_rotation_mrad = 0, max_rotation_mrad = 0;
  // The sample where the per-angle difference |(d alpha, d beta, d gamma)| most overstates that
  // rotation (ratio over max(rotation, 1 urad)): near 1 far from gimbal lock; beyond
  // kEulerOverstatement the orientations are near beta = +-pi/2, where the per-angle columns are
  // ill-conditioned and the rotation is the one to read.
  struct Overstatement {
    double ratio = 0, time_s = 0, per_angle_mrad = 0, rotation_mrad = 0;
  } overstatement;
  std::size_t samples = 0;     // A's samples compared
  bool interpolated = false;  // B resampled between its rows at some of A's times
  // A's samples at a frame B did not measure (its sidecar records frames left out: docs/traces.md),
  // left out of the figures: B is never interpolated across a frame it has no row of, nor beyond
  // its ends — the figures are of the frames both measured, the same with A and B swapped.
  std::size_t left_out = 0;
  bool per_angle_overstated() const;
};
// Per-angle differences of small rotations exceed the rotation by at most 1 / sqrt(1 - |sin beta|)
// for R = Rx Ry Rz: 2 at |beta| = 49 deg. Beyond it, `compare` says the per-angle columns overstate.
inline constexpr double kEulerOverstatement = 2;
inline bool TraceDifference::per_angle_overstated() const { return overstatement.ratio > kEulerOverstatement; }

// Throws vcloe::Error if B does not cover A's time span (B recording no frame left out), if no
// sample of A is at a frame B measured, or if a column set is missing.
TraceDifference compare_traces(const PoseTrace& a, const PoseTrace& b, TraceColumns which_a, TraceColumns which_b,
                               const std::string& name_a = "A", const std::string& name_b = "B");

// How far a trace's measured poses stray from its reference: the largest position and angle
// error (norms of the 3-vectors) and when, against the reference's own largest excursion from
// its first pose (at least 2 mm and 20 mrad, so a reference that holds still is not divided by
// zero). A share above kMaxTrackingShare means the robot did not follow: the reference is too
// fast for the drives (saturating, or the model has none), or the model is far from the robot.
inline constexpr double kMaxTrackingShare = 0.5;
struct TrackingError {
  double max_position_m = 0, max_angle_rad = 0;
  double time_position_s = 0, time_angle_s = 0;
  double excursion_position_m = 0, excursion_angle_rad = 0;
  double share_position() const { return max_position_m / std::max(excursion_position_m, 2e-3); }
  double share_angle() const { return max_angle_rad / std::max(excursion_angle_rad, 20e-3); }
  bool followed() const { return share_position() <= kMaxTrackingShare && share_angle() <= kMaxTrackingShare; }
};
// Throws vcloe::Error naming `name` if the trace has no reference columns.
TrackingError tracking_error(const PoseTrace& trace, const std::string& name);

// Measured poses more than kImplausibleTrackingShare times the reference's own motion away from
// it are not of a robot that ran it under a servo loop (which keeps it within a fraction): the
// trace is in other units (positions in mm, angles in degrees) or of another reference. Throws a
// vcloe::Error naming `trace` then, before a fit that would end far above the camera noise.
inline constexpr double kImplausibleTrackingShare = 10;
void check_plausible_tracking(const TrackingError& measured, const std::string& trace);

}  // namespace vcloe
