// A derived trace made again from the files it records (checked_trace.hpp).
#include "vcloe/rig/checked_trace.hpp"

#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/core/file_now.hpp"
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

void check_twin(const PoseTrace& t, const std::string& path) {
  const TraceMetadata& m = t.metadata;
  if (!m.robot || m.robot->none() || !m.reference || m.reference->none()) return;
  if (!as_recorded(m.robot) || !as_recorded(m.reference) || !as_recorded(m.experiment) || !as_recorded(m.precorrection)) return;
  ExperimentSetup s = load_setup(m.robot->path, m.experiment ? m.experiment->path : "", m.reference->path);
  use_recorded_precorrection(s, t, path);
  check_cells(t, twin_trace(s, s.lambda), path, "the twin of the files its sidecar records (" + m.robot->path + ", " +
                                                    m.reference->path + ")");
}

void check_filtered(const PoseTrace& t, const std::string& path) {
  const FilterRecord& f = *t.metadata.filter;
  if (f.input.none() || file_now(f.input) != FileNow::AsRecorded) return;
  PoseTrace input = read_checked_trace(f.input.path);
  vision::filter_measured_poses(input, static_cast<int>(f.order), f.cutoff_hz, f.sample_rate_hz, f.input.path);
  check_cells(t, input, path, "filtering " + f.input.path + " as its sidecar records (order " + std::to_string(f.order) + ", " +
                                  exact_number(f.cutoff_hz) + " Hz)");
}

}  // namespace

PoseTrace read_checked_trace(const std::string& path) {
  PoseTrace t = read_trace(path);
  if (t.metadata.filter) check_filtered(t, path);
  else if (t.metadata.source && *t.metadata.source == "twin") check_twin(t, path);
  return t;
}

}  // namespace vcloe::rig
