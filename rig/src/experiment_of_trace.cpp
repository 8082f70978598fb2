// rig/src/experiment_of_trace.cpp — a measured trace as the fit's experiment: its rows paired
// with the reference's exposures, its records checked against the setup (vcloe/rig/setup.hpp).
#include <algorithm>
#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/core/experiment_copies.hpp"
#include "vcloe/core/rotation_difference.hpp"
#include "vcloe/rig/setup.hpp"

namespace vcloe::rig {

namespace {

// Whether every exposure from `first` on is a frame the sidecar lists as left out (the rig's
// unmeasured frames, `measure`'s missing ones), by frame number at its camera rate.
bool trailing_frames_left_out(const TraceMetadata& m, const std::vector<double>& times, std::size_t first) {
  if (!m.camera_hz) return false;
  std::vector<std::int64_t> listed = unmeasured_frames(m);
  if (m.missing_frames) listed.insert(listed.end(), m.missing_frames->begin(), m.missing_frames->end());
  std::sort(listed.begin(), listed.end());
  for (std::size_t j = first; j < times.size(); ++j)
    if (!std::binary_search(listed.begin(), listed.end(), static_cast<std::int64_t>(std::llround(times[j] * *m.camera_hz))))
      return false;
  return true;
}

[[noreturn]] void fail_too_short(const std::string& name, const PoseTrace& measured, const std::vector<double>& times) {
  fail(name, "has " + std::to_string(measured.size()) + " rows up to t = " +
                 (measured.size() ? exact_number(measured.time.back()) : std::string("-")) + " s but the reference exposes " +
                 std::to_string(times.size()) + " frames up to t = " + exact_number(times.back()) +
                 " s: too short for the trajectory");
}

// The experiment the sidecar records against the one given now (check_experiment_copies, the one
// comparison of a sidecar's copies): a twin run on other timing or another reference would be
// fitted to poses it never produced.
void check_recorded_setup(const ExperimentSetup& s, const PoseTrace& measured, const std::string& name) {
  ExperimentGiven given = experiment_given(s.experiment, s.experiment_file);
  given.duration_s = s.reference.duration;
  given.reference_file = s.reference_file;
  check_experiment_copies(measured.metadata, given, name, "the twin would run another experiment than the one measured");
}

// The exposure of the reference each of the trace's rows measured, paired by time (rows after
// the last exposure are not used). An exposure without a row is a frame the sidecar records as
// left out (docs/traces.md: the rig's unmeasured frames, `measure`'s missing ones); a row between
// exposures, a gap the sidecar does not record or a trace that ends before the trajectory does
// is refused at its line.
std::vector<std::size_t> measured_exposures(const ExperimentSetup& s, const PoseTrace& measured, const std::string& name) {
  const std::vector<double>& times = s.reference.exposure_times;
  std::size_t rows = 0;
  while (rows < measured.size() && measured.time[rows] <= times.back() + 1e-9) ++rows;
  const std::vector<double> used(measured.time.begin(), measured.time.begin() + static_cast<long>(rows));
  const std::vector<std::size_t> at = indices_on_grid(used, times);
  const bool gaps = records_frames_left_out(measured.metadata);
  for (std::size_t j = 0; j < at.size(); ++j) {
    const std::size_t expected = j == 0 ? 0 : at[j - 1] + 1;
    if (at[j] == kNotOnGrid || (at[j] != expected && !gaps)) {
      const std::size_t x = std::min(expected, times.size() - 1);
      fail(name + ":" + std::to_string(j + 2), "time " + exact_number(measured.time[j]) + " s does not match exposure " +
                                                   exact_number(times[x]) + " s of the experiment (other rates?)");
    }
  }
  const std::size_t last = at.empty() ? 0 : at.back() + 1;
  if (last < times.size() && !trailing_frames_left_out(measured.metadata, times, last)) fail_too_short(name, measured, times);
  return at;
}

}  // namespace

oe_ident::Experiment to_experiment(const ExperimentSetup& s, const PoseTrace& measured, const std::string& name,
                                   const std::optional<oe_ident::Payload>& payload) {
  oe_ident::Experiment e;
  e.name = name;
  e.reference = s.reference;
  e.payload = payload;
  const std::vector<double>& times = s.reference.exposure_times;
  if (!records_frames_left_out(measured.metadata) && (measured.size() == 0 || measured.time.back() < times.back() - 1e-9))
    fail_too_short(name, measured, times);  // before its records are compared: the plainest reason
  check_recorded_setup(s, measured, name);
  if (measured.metadata.precorrection && !measured.metadata.precorrection->none() && s.precorrection_file.empty())
    fail(name, "was recorded with the pre-corrected command " + measured.metadata.precorrection->path + " (" +
                   sidecar_path(name) + "), but the twin would run without it");
  e.frames = measured_exposures(s, measured, name);
  for (std::size_t j = 0; j < e.frames.size(); ++j) {
    if (!measured.reference.empty() &&
        pose_difference(measured.reference[j], s.reference.reference_at_exposure[e.frames[j]]).cwiseAbs().maxCoeff() > 1e-9)
      fail(name + ":" + std::to_string(j + 2), "the reference columns (ref_*) at t = " + exact_number(measured.time[j]) +
                                                   " s differ from " + s.reference_file +
                                                   ": the trace ran another reference (give the one it ran)");
    e.measured.push_back(measured.measured[j]);
  }
  if (e.frames.size() == s.reference.exposure_times.size()) e.frames.clear();  // every exposure measured
  // The camera noise the trace declares (sidecar `noise_sigma`): the yardstick of the model
  // adequacy verdict (oe_ident/adequacy.hpp). A noise-free trace (`run --noise-* 0`) has no
  // noise to measure the residual against: the identification settings' noise_sigma is then
  // the yardstick (the fit's weights are those settings' in any case).
  if (const std::optional<Vec6d>& sigma = measured.metadata.noise_sigma) {
    for (int c = 0; c < 6; ++c)
      if (!((*sigma)(c) >= 0))
        fail(sidecar_path(name), "noise_sigma[" + std::to_string(c) + "]: expected a non-negative number");
    if ((sigma->array() > 0).all()) e.declared_noise = *sigma;
  }
  return e;
}

}  // namespace vcloe::rig
