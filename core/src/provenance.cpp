// Whether recorded inputs belong together (vcloe/core/provenance.hpp).
#include "vcloe/core/provenance.hpp"

namespace vcloe {

namespace {

std::string short_hash(const std::string& sha) { return sha.size() > 12 ? sha.substr(0, 12) + "…" : sha; }

std::string said(const FileRecord& f) {
  return f.path + (f.sha256.empty() ? "" : " (SHA-256 " + short_hash(f.sha256) + ")");
}

bool same_file(const FileRecord& a, const FileRecord& b) {
  if (!a.sha256.empty() && !b.sha256.empty()) return a.sha256 == b.sha256;
  return a.path == b.path;
}

// A simulated robot is only itself: the twin of a robot file, or a virtual robot of a truth.
bool simulated(const std::string& source) { return source == "twin" || source == "virtual"; }

std::optional<std::string> robot_mismatch(const Provenance& a, const Provenance& b) {
  const bool ta = a.truth && !a.truth->none(), tb = b.truth && !b.truth->none();
  if (ta && tb) {
    if (same_file(*a.truth, *b.truth)) return std::nullopt;
    return a.file + " was recorded on the virtual robot " + said(*a.truth) + ", " + b.file + " on another, " +
           said(*b.truth) + ": the recordings of one robot were expected";
  }
  if (a.source.empty() || b.source.empty() || a.source == b.source) return std::nullopt;
  if (!simulated(a.source) && !simulated(b.source)) return std::nullopt;  // rig and measure: one real robot may be both
  auto origin = [](const Provenance& p) {
    return p.truth && !p.truth->none() ? "the virtual robot " + said(*p.truth) : "source \"" + p.source + "\"";
  };
  return a.file + " was recorded on " + origin(a) + ", " + b.file + " on " + origin(b) +
         ": the recordings of one robot were expected";
}

// Two runs under two experiments: two outer controllers (probe 27, class E: a payload trace run
// with other gains was fitted as if one controller had run both). Unknown (no record) passes.
std::optional<std::string> experiment_mismatch(const Provenance& a, const Provenance& b) {
  if (!a.experiment || !b.experiment || *a.experiment == *b.experiment ||
      (!a.experiment->none() && !b.experiment->none() && same_file(*a.experiment, *b.experiment)))
    return std::nullopt;
  auto ran = [](const FileRecord& e) { return e.none() ? std::string("the built-in experiment") : "the experiment " + said(e); };
  return a.file + " ran " + ran(*a.experiment) + ", " + b.file + " " + ran(*b.experiment) +
         ": one outer controller was expected";
}

}  // namespace

Provenance provenance_of(const PoseTrace& t, const std::string& file) {
  Provenance p;
  p.file = file;
  if (!t.has_sidecar) return p;
  p.source = t.metadata.source.value_or("");
  p.truth = t.metadata.truth;
  p.reference = t.metadata.reference;
  p.experiment = t.metadata.experiment;
  return p;
}

std::optional<std::string> provenance_mismatch(const Provenance& a, const Provenance& b, Together how) {
  if (how == Together::OneRobot) return robot_mismatch(a, b);
  if (how == Together::OneExperiment) return experiment_mismatch(a, b);
  if (!a.reference || !b.reference || a.reference->none() || b.reference->none() || same_file(*a.reference, *b.reference))
    return std::nullopt;
  return a.file + " ran the reference " + said(*a.reference) + ", " + b.file + " another, " + said(*b.reference);
}

}  // namespace vcloe
