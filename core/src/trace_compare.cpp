#include "vcloe/core/trace_compare.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <optional>
#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/core/rotation_difference.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe {

TraceColumns trace_columns_from_string(const std::string& name) {
  if (name == "measured") return TraceColumns::Measured;
  if (name == "truth") return TraceColumns::Truth;
  if (name == "reference") return TraceColumns::Reference;
  fail("--columns", "expected measured, truth or reference, got '" + name + "'");
}

const std::vector<Vec6d>& columns_of(const PoseTrace& t, TraceColumns which, const std::string& name) {
  switch (which) {
    case TraceColumns::Measured:
      return t.measured;
    case TraceColumns::Truth:
      if (t.truth.empty()) fail(name, "has no true_* columns (only virtual-robot traces do)");
      return t.truth;
    case TraceColumns::Reference:
      if (t.reference.empty()) fail(name, "has no ref_* columns");
      return t.reference;
  }
  return t.measured;
}

namespace {

constexpr double kTimeTolerance = 1e-9;

// B's poses at A's (increasing) times: B's own where it has a row at that time, else linear
// between its two rows around it — unless those are further apart than `gap`, or the time is
// outside B's rows: then B did not measure there (nullopt).
class Resampled {
 public:
  Resampled(const std::vector<double>& time, const std::vector<Vec6d>& pose, double gap) : time_(time), pose_(pose), gap_(gap) {}
  std::optional<Vec6d> at(double t) {
    while (k_ + 1 < time_.size() && time_[k_ + 1] <= t + kTimeTolerance) ++k_;
    if (std::abs(time_[k_] - t) <= kTimeTolerance) return pose_[k_];
    if (time_[k_] > t || k_ + 1 >= time_.size() || time_[k_ + 1] - time_[k_] > gap_) return std::nullopt;
    interpolated_ = true;
    return pose_between(pose_[k_], pose_[k_ + 1], (t - time_[k_]) / (time_[k_ + 1] - time_[k_]));
  }
  bool interpolated() const { return interpolated_; }

 private:
  bool interpolated_ = false;
  const std::vector<double>& time_;
  const std::vector<Vec6d>& pose_;
  double gap_;
  std::size_t k_ = 0;
};

// The widest spacing of B's rows that is no frame left out: 1.5 camera periods when its sidecar
// records frames left out at a known rate, else any (rows at B's own rate, interpolated).
double widest_interpolated(const PoseTrace& b) {
  if (!records_frames_left_out(b.metadata) || !b.metadata.camera_hz) return std::numeric_limits<double>::infinity();
  return 1.5 / *b.metadata.camera_hz;
}

}  // namespace

TraceDifference compare_traces(const PoseTrace& a, const PoseTrace& b, TraceColumns wa, TraceColumns wb,
                               const std::string& na, const std::string& nb) {
  const std::vector<Vec6d>& pa = columns_of(a, wa, na);
  const std::vector<Vec6d>& pb = columns_of(b, wb, nb);
  TraceDifference d;
  const double tol = kTimeTolerance;
  if (!records_frames_left_out(b.metadata) && (a.time.front() < b.time.front() - tol || a.time.back() > b.time.back() + tol))
    fail(nb, "covers " + exact_number(b.time.front()) + " to " + exact_number(b.time.back()) + " s, but " + na +
                 " needs " + exact_number(a.time.front()) + " to " + exact_number(a.time.back()) + " s");
  Vec6d sum_sq = Vec6d::Zero(), max_abs = Vec6d::Zero();
  double rotation_sq = 0;
  Resampled in_b(b.time, pb, widest_interpolated(b));
  for (std::size_t i = 0; i < a.time.size(); ++i) {
    const std::optional<Vec6d> measured_in_b = in_b.at(a.time[i]);
    if (!measured_in_b) {
      ++d.left_out;
      continue;
    }
    const Vec6d& q = *measured_in_b;
    ++d.samples;
    const Vec6d e = pose_difference(pa[i], q);  // angles as rotations (a wrap at +-pi is no error)
    sum_sq += e.cwiseProduct(e);
    max_abs = max_abs.cwiseMax(e.cwiseAbs());
    const double rotation = rotation_between(Vec3d(pa[i].tail<3>()), Vec3d(q.tail<3>()));
    rotation_sq += rotation * rotation;
    d.max_rotation_mrad = std::max(d.max_rotation_mrad, rotation * 1e3);
    if (const double ratio = e.tail<3>().norm() / std::max(rotation, 1e-6); ratio > d.overstatement.ratio)
      d.overstatement = {ratio, a.time[i], e.tail<3>().norm() * 1e3, rotation * 1e3};
  }
  d.interpolated = in_b.interpolated();
  if (d.samples == 0)
    fail(nb, "has no measured pose at any of the " + std::to_string(a.time.size()) + " times of " + na +
                 " (its sidecar lists the frames there as not measured): nothing to compare");
  d.rms_rotation_mrad = std::sqrt(rotation_sq / static_cast<double>(d.samples)) * 1e3;
  for (int c = 0; c < 3; ++c) {
    d.rms_mm[static_cast<std::size_t>(c)] = std::sqrt(sum_sq(c) / static_cast<double>(d.samples)) * 1e3;
    d.max_mm[static_cast<std::size_t>(c)] = max_abs(c) * 1e3;
    d.rms_mrad[static_cast<std::size_t>(c)] = std::sqrt(sum_sq(3 + c) / static_cast<double>(d.samples)) * 1e3;
    d.max_mrad[static_cast<std::size_t>(c)] = max_abs(3 + c) * 1e3;
  }
  return d;
}

TrackingError tracking_error(const PoseTrace& t, const std::string& name) {
  const std::vector<Vec6d>& ref = columns_of(t, TraceColumns::Reference, name);
  TrackingError r;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const Vec6d e = pose_difference(ref[i], t.measured[i]), d = pose_difference(ref[i], ref.front());
    const double p = e.head<3>().norm(), a = e.tail<3>().norm();
    if (p > r.max_position_m) r.max_position_m = p, r.time_position_s = t.time[i];
    if (a > r.max_angle_rad) r.max_angle_rad = a, r.time_angle_s = t.time[i];
    r.excursion_position_m = std::max(r.excursion_position_m, d.head<3>().norm());
    r.excursion_angle_rad = std::max(r.excursion_angle_rad, d.tail<3>().norm());
  }
  return r;
}

void check_plausible_tracking(const TrackingError& e, const std::string& trace) {
  const double share = std::max(e.share_position(), e.share_angle());
  if (!(share > kImplausibleTrackingShare)) return;
  std::ostringstream m;
  m << std::setprecision(3) << "the measured poses are " << share << " x the reference's motion away from the reference "
    << "of the run (error up to " << e.max_position_m << " m, " << e.max_angle_rad << " rad; limit "
    << kImplausibleTrackingShare << " x: a servo loop keeps its robot within a fraction of it): positions in mm rather "
    << "than m, angles in degrees, or the trace of another reference? nothing was fitted";
  fail(trace, m.str());
}

}  // namespace vcloe
