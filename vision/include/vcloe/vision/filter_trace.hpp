#pragma once
// vcloe/vision/filter_trace.hpp — `vcloe filter`: a zero-phase Butterworth low-pass (scipy
// sosfiltfilt) of a trace's measured poses, offline only (Li et al. 2019 §4.2; docs/vision.md,
// Zero-phase filter).
#include <ostream>
#include <optional>
#include <string>

#include "vcloe/core/settings.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/vision/report.hpp"

namespace vcloe::vision {

struct FilterTraceOptions {
  std::string in, out;       // trace to filter; filtered trace to write
  int order = 8;             // Li et al. 2019: 8
  double cutoff = 60;        // Hz (Li et al. 2019: 60)
  bool cutoff_given = false; // --cutoff given: a cut-off at or above Nyquist is an error, not a note
  bool force = false;

  // problem(): order and cut-off (core/settings.hpp, the messages beginning with the option);
  // validate(): those, then the outputs (never the input: the file system).
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where = "") const;
  // The cut-off for a trace sampled at fs_hz over span_s: --cutoff if given and valid (else an
  // error explaining the bound); the default if below Nyquist, else 0.6 x Nyquist with a note
  // on `notes`. Below one cycle over the record the filter would return the mean: refused.
  double cutoff_for(double fs_hz, double span_s, std::ostream& notes) const;
};

// The measured poses of `t` filtered as `vcloe filter` does (each axis, angles unwrapped first):
// the one filtering of a trace, for the command and for the check that a filtered trace is its
// input's filtered (rig::read_checked_trace). Refused when `t` is not longer than the padding.
void filter_measured_poses(PoseTrace& t, int order, double cutoff_hz, double fs_hz, const std::string& name);

// Reads the trace (uniformly sampled, >= 2 samples), filters each measured axis (angles
// unwrapped first), writes it with the filter recorded in its sidecar. Notes (a cut-off moved
// below Nyquist) go to `notes`; the report's text says what was written.
Report filter_trace(const FilterTraceOptions& options, std::ostream& notes);

}  // namespace vcloe::vision
