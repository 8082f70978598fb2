#pragma once
// vcloe/core/provenance.hpp — whether recorded inputs belong together: the one check of every
// command that combines recorded files (identify's two experiments, compare's two traces, report's
// identification and validation). A recording says where it comes from (a trace's sidecar: its
// `source`, the virtual robot's `truth` file, the `reference` and the `experiment`, each with its
// SHA-256); two recordings whose records differ were not made on one robot, along one reference,
// or under one experiment.
#include <optional>
#include <string>

#include "vcloe/core/file_record.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe {

// What one recorded file says about its origin; fields left empty are unknown (no sidecar, an
// older sidecar, a file that does not record them).
struct Provenance {
  std::string file;                  // the recording, for messages
  std::string source;                // twin | virtual | rig | measure | render
  std::optional<FileRecord> truth;   // the virtual robot's truth file
  std::optional<FileRecord> reference;
  std::optional<FileRecord> experiment;  // none: the built-in experiment
};
Provenance provenance_of(const PoseTrace& t, const std::string& file);

enum class Together {
  OneRobot,      // recorded on one robot: the same virtual truth (SHA-256), or the same kind of source
  OneReference,  // recorded along one reference (SHA-256)
  OneExperiment, // run under one experiment (SHA-256: the outer loop's gains, rates and latency)
};

// Why a and b do not belong together as `how` asks, in one sentence naming both files and what
// each records; nothing when they do, or when what they record cannot tell.
std::optional<std::string> provenance_mismatch(const Provenance& a, const Provenance& b, Together how);

}  // namespace vcloe
