#include "vcloe/vision/filter_trace.hpp"

#include <cmath>
#include <sstream>
#include <vector>

#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/vision/butterworth.hpp"

namespace vcloe::vision {

std::optional<SettingProblem> FilterTraceOptions::problem() const {
  auto bad = [](const std::string& key, const std::string& what) { return SettingProblem{key, key + ": " + what}; };
  if (order < 1 || order > 64) return bad("--order", "expected a filter order of 1 to 64, got " + std::to_string(order));
  if (!(cutoff > 0 && std::isfinite(cutoff)))
    return bad("--cutoff", "expected a positive frequency in Hz, got " + exact_number(cutoff));
  return std::nullopt;
}

void FilterTraceOptions::validate(const std::string& where) const {
  throw_if(problem(), where);
  // The outputs: the file system, so here and not in problem() (which stays pure).
  IoPlan(force).input_trace(in, "the trace filtered").output_trace(out, "--out").check();
}

double FilterTraceOptions::cutoff_for(double fs_hz, double span_s, std::ostream& notes) const {
  const double nyquist = fs_hz / 2, lowest = 1 / span_s;
  const std::string rate = " of " + in + " (samples at " + exact_number(fs_hz) + " Hz)";
  double c = cutoff;
  if (cutoff_given && !(cutoff < nyquist))
    fail("--cutoff", "expected a cut-off below the Nyquist frequency " + exact_number(nyquist) + " Hz" + rate +
                         ", got " + exact_number(cutoff) + " Hz");
  if (!cutoff_given && !(cutoff < nyquist)) {
    c = 0.6 * nyquist;
    notes << "note: the default cut-off " << exact_number(cutoff) << " Hz is not below the Nyquist frequency "
          << exact_number(nyquist) << " Hz" << rate << "; using " << exact_number(c)
          << " Hz (0.6 x Nyquist); choose with --cutoff\n";
  }
  if (c < lowest)
    fail("--cutoff", exact_number(c) + " Hz is below one cycle over the " + exact_number(span_s) + " s record" + rate +
                         " (at least " + exact_number(lowest) + " Hz): the filter would return the mean");
  return c;
}

namespace {

// The mean sample period; refused unless every step is within 1e-6 of it.
double uniform_period(const PoseTrace& t, const std::string& name) {
  if (t.size() < 2) fail(name, "needs at least 2 samples to filter");
  if (const std::vector<std::int64_t> frames = unmeasured_frames(t.metadata); !frames.empty()) {
    std::string list;
    for (std::size_t k = 0; k < frames.size() && k < 8; ++k) list += (k ? ", " : "") + std::to_string(frames[k]);
    if (frames.size() > 8) list += ", … (" + std::to_string(frames.size()) + " in all)";
    fail(name, "frames " + list + " are no measurements (its sidecar's stream.missing_frames and " +
                   "stream.invalid_frames: poses the rig's recorder did not receive or received invalid, whose rows " +
                   "repeat the last valid pose); the filter needs a uniform rate of measurements (as a measured " +
                   "trace's invalid frames, they leave gaps)");
  }
  const double dt = (t.time.back() - t.time.front()) / static_cast<double>(t.size() - 1);
  for (std::size_t k = 1; k < t.size(); ++k)
    if (std::abs(t.time[k] - t.time[k - 1] - dt) > 1e-6 * dt + 1e-9)
      fail(name, "samples are not uniformly spaced (row " + std::to_string(k + 1) + ": step " +
                     exact_number(t.time[k] - t.time[k - 1]) + " s, mean " + exact_number(dt) +
                     " s); the filter needs a uniform rate (invalid frames leave gaps)");
  return dt;
}

void filter_measured(PoseTrace& t, const SosFilter& sos) {
  for (int axis = 0; axis < 6; ++axis) {
    std::vector<double> x(t.size());
    for (std::size_t k = 0; k < t.size(); ++k) x[k] = t.measured[k](axis);
    if (axis >= 3)  // unwrap the angles so a +-pi crossing is not filtered as a jump
      for (std::size_t k = 1; k < x.size(); ++k) x[k] -= 2 * M_PI * std::round((x[k] - x[k - 1]) / (2 * M_PI));
    const std::vector<double> y = sosfiltfilt(sos, x);
    for (std::size_t k = 0; k < t.size(); ++k) t.measured[k](axis) = axis >= 3 ? std::remainder(y[k], 2 * M_PI) : y[k];
  }
}

}  // namespace

void filter_measured_poses(PoseTrace& t, int order, double cutoff_hz, double fs_hz, const std::string& name) {
  const SosFilter sos = butterworth_lowpass(order, cutoff_hz, fs_hz);
  // Zero-phase filtering pads each end by 3 x (2 x sections + 1) samples (scipy's default padlen):
  // a trace not longer than that cannot be filtered (probe 33, v12: said as "sosfiltfilt: ...").
  if (const int padlen = sosfiltfilt_default_padlen(sos); t.size() <= static_cast<std::size_t>(padlen))
    fail(name, std::to_string(t.size()) + " measured rows; an order-" + std::to_string(order) +
                   " zero-phase filter pads each end by " + std::to_string(padlen) + " samples and needs more rows than that: "
                   "a longer trace, or a lower --order");
  filter_measured(t, sos);
}

Report filter_trace(const FilterTraceOptions& o, std::ostream& notes) {
  o.validate();
  PoseTrace t = read_trace(o.in);
  const double dt = uniform_period(t, o.in);
  const double fs_hz = 1.0 / dt;
  const double cutoff_hz = o.cutoff_for(fs_hz, t.time.back() - t.time.front(), notes);
  filter_measured_poses(t, o.order, cutoff_hz, fs_hz, o.in);
  t.metadata.filter = FilterRecord{
      "butterworth low-pass, zero-phase (scipy sosfiltfilt: odd padding, steady-state initial conditions)",
      o.order, sosfiltfilt_default_padlen(butterworth_lowpass(o.order, cutoff_hz, fs_hz)), cutoff_hz, fs_hz, file_record(o.in)};
  write_trace(o.out, t, o.force);
  std::ostringstream text;
  text << "filtered the measured poses of " << o.in << " (" << t.size() << " samples at " << fixed(fs_hz, 3)
       << " Hz) with an order-" << o.order << " zero-phase Butterworth at " << cutoff_hz << " Hz\nwrote " << o.out
       << " and " << sidecar_path(o.out) << "\n";
  return {nlohmann::json::object(), text.str()};
}

}  // namespace vcloe::vision
