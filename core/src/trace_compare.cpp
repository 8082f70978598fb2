#include "vcloe/core/trace_compare.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/core/rotation_difference.hpp"

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

TraceDifference compare_traces(const PoseTrace& a, const PoseTrace& b, TraceColumns wa, TraceColumns wb,
                               const std::string& na, const std::string& nb) {
  const std::vector<Vec6d>& pa = columns_of(a, wa, na);
  const std::vector<Vec6d>& pb = columns_of(b, wb, nb);
  TraceDifference d;
  const double tol = 1e-9;
  if (a.time.front() < b.time.front() - tol || a.time.back() > b.time.back() + tol)
    fail(nb, "covers " + exact_number(b.time.front()) + " to " + exact_number(b.time.back()) + " s, but " + na +
                 " needs " + exact_number(a.time.front()) + " to " + exact_number(a.time.back()) + " s");
  d.interpolated = a.time.size() != b.time.size();
  for (std::size_t i = 0; !d.interpolated && i < a.time.size(); ++i) d.interpolated = std::abs(a.time[i] - b.time[i]) > tol;
  Vec6d sum_sq = Vec6d::Zero(), max_abs = Vec6d::Zero();
  double rotation_sq = 0;
  std::size_t k = 0;
  for (std::size_t i = 0; i < a.time.size(); ++i) {
    Vec6d q;
    if (!d.interpolated) {
      q = pb[i];
    } else {
      const double t = a.time[i];
      while (k + 1 < b.time.size() && b.time[k + 1] < t) ++k;
      if (k + 1 >= b.time.size()) {
        q = pb.back();
      } else {
        const double w = std::clamp((t - b.time[k]) / (b.time[k + 1] - b.time[k]), 0.0, 1.0);
        q = pose_between(pb[k], pb[k + 1], w);
      }
    }
    const Vec6d e = pose_difference(pa[i], q);  // angles as rotations (a wrap at +-pi is no error)
    sum_sq += e.cwiseProduct(e);
    max_abs = max_abs.cwiseMax(e.cwiseAbs());
    const double rotation = rotation_between(Vec3d(pa[i].tail<3>()), Vec3d(q.tail<3>()));
    rotation_sq += rotation * rotation;
    d.max_rotation_mrad = std::max(d.max_rotation_mrad, rotation * 1e3);
    if (const double ratio = e.tail<3>().norm() / std::max(rotation, 1e-6); ratio > d.overstatement.ratio)
      d.overstatement = {ratio, a.time[i], e.tail<3>().norm() * 1e3, rotation * 1e3};
  }
  d.rms_rotation_mrad = std::sqrt(rotation_sq / static_cast<double>(a.time.size())) * 1e3;
  d.samples = a.time.size();
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
