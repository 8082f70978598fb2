#pragma once
// vcloe/core/recorded_files.hpp — the files a companion of a file vcloe wrote records it was made
// from (docs/robustness.md, "Session 23's probe", B): what IoPlan::input makes inputs of every
// command, so that no output replaces a file a recording names.
#include <string>
#include <vector>

namespace vcloe {

// A recorded path as read back: as recorded if it names a file or is absolute, else relative to
// the directory of `file`, the file whose companion records it (written before paths were absolute).
std::string resolve_recorded_path(const std::string& recorded, const std::string& file);

// The files a companion of `file` records: every file record in the JSON file `companion` (a
// trace's, a pre-corrected command's or a prediction's sidecar `.meta.json`, a model's
// `.report.json`). Every such format, present or future, writes its records with
// to_json(FileRecord) and reads them with JsonNode::file_record, so they are found by their shape
// ({"path": …, "sha256": …}), each read by that one reader: its key path ("reference",
// "camera.rig", "inputs.measured") and its path (resolve_recorded_path), for the files that
// exist. A companion that is missing, not a regular file or not JSON — and a malformed record in
// it — records nothing here: its reader says what is wrong when the command reads it.
struct RecordedInput {
  std::string key, path;
};
std::vector<RecordedInput> files_recorded_in(const std::string& companion, const std::string& file);

}  // namespace vcloe
