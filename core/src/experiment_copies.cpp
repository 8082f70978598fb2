#include "vcloe/core/experiment_copies.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "vcloe/core/error.hpp"
#include "vcloe/core/recorded_files.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe {

void check_copied_timing(const TraceMetadata& m, const std::string& sidecar) {
  if (!m.controller_hz) return;
  // An absent copy takes a value no rule refuses, so that only what the sidecar says is judged.
  LoopTiming t;
  t.controller_hz = *m.controller_hz;
  t.camera_hz = m.camera_hz.value_or(*m.controller_hz);
  t.latency = m.latency_s.value_or(0.0);
  t.substeps = static_cast<int>(m.substeps.value_or(1));
  const std::optional<SettingProblem> p = t.problem();
  if (!p) return;
  static const std::map<std::string, std::string> copied_as = {{"timing.controller_hz", "controller_hz"},
                                                               {"timing.camera_hz", "camera_hz"},
                                                               {"timing.latency", "latency_s"},
                                                               {"timing.substeps", "substeps"}};
  const auto key = copied_as.find(p->key);
  fail(sidecar, "key '" + (key == copied_as.end() ? p->key : key->second) +
                    "': the copied timing breaks the experiment file's rule (docs/experiment-file.md): " + p->message);
}

ExperimentGiven experiment_given(const ExperimentConfig& e, const std::string& experiment_file) {
  ExperimentGiven g;
  g.timing = e.timing;
  g.literal = e.outer.literal;
  g.experiment_file = experiment_file.empty() ? std::string("the default experiment") : experiment_file;
  return g;
}

void check_experiment_copies(const TraceMetadata& rec, const ExperimentGiven& given, const std::string& trace,
                             const std::string& why) {
  auto differs = [&](const std::string& k, const std::string& recorded, const std::string& value, const std::string& from) {
    fail(trace, "was recorded with " + k + " " + recorded + " (" + sidecar_path(trace) + "), but " + from + " gives " +
                    value + ": " + why);
  };
  auto number = [&](const char* k, const std::optional<double>& r, const std::optional<double>& g, const std::string& from) {
    if (r && g && std::abs(*r - *g) > 1e-9 * std::max(1.0, std::abs(*g))) differs(k, exact_number(*r), exact_number(*g), from);
  };
  const LoopTiming& t = given.timing;
  number("controller_hz", rec.controller_hz, t.controller_hz, given.experiment_file);
  number("camera_hz", rec.camera_hz, t.camera_hz, given.experiment_file);
  number("latency_s", rec.latency_s, t.latency, given.experiment_file);
  number("duration_s", rec.duration_s, given.duration_s, given.reference_file);
  // substeps is not compared: the twin's integration (identify may refit on more, the convergence
  // studies do), not the run's loop; its copy is held to the file's rules by check_copied_timing.
  const std::string form = given.literal ? "literal" : "feedforward";
  if (rec.outer_form && *rec.outer_form != form)
    differs("outer_form", "\"" + *rec.outer_form + "\"", "\"" + form + "\"", given.experiment_file);
}

void check_copies_of_recorded_experiment(const TraceMetadata& rec, const std::string& trace) {
  if (!rec.experiment || rec.experiment->none() || rec.experiment->sha256.empty()) return;
  std::error_code ec;  // a recorded path the system refuses is "not there"
  const std::string path = resolve_recorded_path(rec.experiment->path, trace);
  if (!std::filesystem::is_regular_file(path, ec)) return;
  std::string recorded = rec.experiment->sha256;  // hex in either case
  std::transform(recorded.begin(), recorded.end(), recorded.begin(), [](unsigned char c) { return std::tolower(c); });
  if (sha256_file_now(path) != recorded) return;
  check_experiment_copies(rec, experiment_given(load_experiment(path), path), trace,
                          "the sidecar's copy is not the experiment it records (unchanged since: the same SHA-256); "
                          "record the trace again");
}

}  // namespace vcloe
