// A derived trace made again from the files it records (checked_trace.hpp).
#include "vcloe/rig/checked_trace.hpp"

#include <cmath>
#include <iostream>

#include "vcloe/core/error.hpp"
#include "vcloe/core/file_now.hpp"
#include "vcloe/core/rotation_difference.hpp"
#include "vcloe/rig/setup.hpp"
#include "vcloe/vision/filter_trace.hpp"

namespace vcloe::rig {

namespace {

const char* const kAxes[6] = {"x", "y", "z", "alpha", "beta", "gamma"};

// Every measured cell of `recorded` against `again` (the same code on the same files: equal to the
// last bits; 1e-9 relative leaves room for another build's rounding, none for an edit).
void check_cells(const PoseTrace& recorded, const PoseTrace& again, const std::string& path, const std::string& how) {
  if (recorded.size() != again.size())
    fail(path, "has " + std::to_string(recorded.size()) + " rows, but " + how + " gives " + std::to_string(again.size()) +
                   ": edited since vcloe wrote it? make it again");
  for (std::size_t j = 0; j < recorded.size(); ++j)
    for (int a = 0; a < 6; ++a) {
      const double r = recorded.measured[j](a), n = again.measured[j](a);
      const double d = a < 3 ? r - n : std::remainder(r - n, 2 * M_PI);  // an angle at +-pi either way
      if (!(std::abs(d) <= 1e-9 * (1 + std::abs(n))))
        fail(path + ":" + std::to_string(j + 2), "column '" + std::string(kAxes[a]) + "': " + exact_number(r) + ", but " + how +
                                                     " gives " + exact_number(n) + " (edited since vcloe wrote it?); make it again");
    }
}

bool as_recorded(const std::optional<FileRecord>& f) { return !f || f->none() || file_now(*f) == FileNow::AsRecorded; }

// The ref_* columns of any trace are its recorded reference at each row's exposure (a run's
// sidecar records the reference, robot and experiment it ran): edited with the CSV's hash made
// again, `compare --columns reference` drew them (probe 35, t18-t33). Rows are named by time: a
// rig trace's unmeasured rows are left out, so a row's index is no line.
void check_reference_columns(const PoseTrace& t, const std::string& path) {
  const TraceMetadata& m = t.metadata;
  if (t.reference.empty() || !m.camera_hz || !m.reference || m.reference->none() || !m.robot || m.robot->none()) return;
  if (!as_recorded(m.robot) || !as_recorded(m.reference) || !as_recorded(m.experiment)) return;
  const ExperimentSetup s = load_setup(m.robot->path, m.experiment ? m.experiment->path : "", m.reference->path);
  const std::vector<Vec6d>& at = s.reference.reference_at_exposure;
  for (std::size_t j = 0; j < t.size(); ++j) {
    const auto frame = static_cast<std::int64_t>(std::llround(t.time[j] * *m.camera_hz));
    if (frame < 0 || frame >= static_cast<std::int64_t>(at.size())) return;  // another run's length: the reader's checks say it
    const Vec6d d = pose_difference(t.reference[j], at[static_cast<std::size_t>(frame)]);
    for (int a = 0; a < 6; ++a)
      if (!(std::abs(d(a)) <= 1e-9 * (1 + std::abs(at[static_cast<std::size_t>(frame)](a)))))
        fail(path, "column 'ref_" + std::string(kAxes[a]) + "' at t = " + exact_number(t.time[j]) + " s: " +
                       exact_number(t.reference[j](a)) + ", but the reference its sidecar records, " + m.reference->path +
                       ", gives " + exact_number(at[static_cast<std::size_t>(frame)](a)) +
                       " (edited since vcloe wrote it?); record or make it again");
  }
}

// A derived trace whose files are gone or changed is read as written, and said so (probe 35,
// t39/t40: nothing told the user it was not made again).
void note_not_made_again(const std::string& path, const std::string& what) {
  std::cerr << "vcloe: note: " << path << " is " << what << " not there as recorded: read as written, not made again "
            << "from them (docs/traces.md, \"Derived traces are made again\")\n";
}

void check_twin(const PoseTrace& t, const std::string& path) {
  const TraceMetadata& m = t.metadata;
  if (!m.robot || m.robot->none() || !m.reference || m.reference->none() || !as_recorded(m.robot) ||
      !as_recorded(m.reference) || !as_recorded(m.experiment) || !as_recorded(m.precorrection))
    return note_not_made_again(path, "a twin's trace (simulate) whose model, experiment, reference or pre-correction is");
  ExperimentSetup s = load_setup(m.robot->path, m.experiment ? m.experiment->path : "", m.reference->path);
  use_recorded_precorrection(s, t, path);
  check_cells(t, twin_trace(s, s.lambda), path, "the twin of the files its sidecar records (" + m.robot->path + ", " +
                                                    m.reference->path + ")");
}

void check_filtered(const PoseTrace& t, const std::string& path) {
  const FilterRecord& f = *t.metadata.filter;
  if (f.input.none() || file_now(f.input) != FileNow::AsRecorded)
    return note_not_made_again(path, "a filtered trace whose input " + (f.input.none() ? std::string("(none recorded) is") : f.input.path + " is"));
  PoseTrace input = read_checked_trace(f.input.path);
  vision::filter_measured_poses(input, static_cast<int>(f.order), f.cutoff_hz, f.sample_rate_hz, f.input.path);
  check_cells(t, input, path, "filtering " + f.input.path + " as its sidecar records (order " + std::to_string(f.order) + ", " +
                                  exact_number(f.cutoff_hz) + " Hz)");
}

}  // namespace

PoseTrace read_checked_trace(const std::string& path, SidecarSeal seal) {
  PoseTrace t = read_trace(path, seal);
  check_reference_columns(t, path);
  if (t.metadata.filter) check_filtered(t, path);
  else if (t.metadata.source && *t.metadata.source == "twin") check_twin(t, path);
  return t;
}

}  // namespace vcloe::rig
