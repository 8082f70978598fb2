#pragma once
// vcloe/core/file_record.hpp — a file an output was made from, as recorded in trace sidecars and
// reports: its absolute path and SHA-256 (docs/traces.md, docs/identification.md).
#include <nlohmann/json.hpp>
#include <string>

namespace vcloe {

// A recorded input file: its absolute path and SHA-256. An empty path is "none" (written as
// JSON null: e.g. the default experiment, no file).
struct FileRecord {
  std::string path, sha256;
  bool none() const { return path.empty(); }
  bool operator==(const FileRecord&) const = default;
};
// The record of a file as written now (absolute path, hash); none for an empty path.
FileRecord file_record(const std::string& path);
// {"path": ..., "sha256": ...}, or null for none: how sidecars and reports write it.
nlohmann::json to_json(const FileRecord& f);

}  // namespace vcloe
