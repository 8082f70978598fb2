// The files a companion of a file vcloe wrote records (vcloe/core/file_record.hpp).
#include <filesystem>

#include "vcloe/core/error.hpp"
#include "vcloe/core/file_now.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/core/input_file.hpp"
#include "vcloe/core/recorded_files.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/core/json_node.hpp"

namespace vcloe {

namespace {

namespace fs = std::filesystem;

// Deeper than any record a vcloe companion writes (camera.rig, inputs.measured: 2).
constexpr int kRecordDepth = 8;

// A JSON object of a record's keys only: {"path": ...} with at most "sha256" beside it.
bool looks_like_record(const nlohmann::json& v) {
  if (!v.is_object() || !v.contains("path")) return false;
  for (const auto& [key, value] : v.items())
    if (key != "path" && key != "sha256") return false;
  return true;
}

void collect(const JsonNode& n, const std::string& file, int depth, std::vector<RecordedInput>& out) {
  if (n.absent() || depth > kRecordDepth) return;
  const nlohmann::json& v = n.value();
  if (looks_like_record(v)) {
    try {
      const FileRecord r = n.file_record();  // the one reader of a record: a malformed one is skipped
      const std::string path = resolve_recorded_path(r.path, file);
      std::error_code ec;
      if (!r.none() && fs::is_regular_file(path, ec)) out.push_back({n.key(), path});
    } catch (const Error&) {
    }
    return;
  }
  if (v.is_object())
    for (const auto& [key, value] : v.items()) collect(n[key], file, depth + 1, out);
  else if (v.is_array())
    for (std::size_t i = 0; i < v.size(); ++i)
      if (v[i].is_structured()) collect(n[i], file, depth + 1, out);
}

}  // namespace

std::string resolve_recorded_path(const std::string& recorded, const std::string& file) {
  std::error_code ec;
  if (fs::exists(recorded, ec) || !fs::path(recorded).is_relative()) return recorded;
  const fs::path beside = fs::path(file).parent_path() / recorded;
  return fs::exists(beside, ec) ? beside.string() : recorded;
}

std::vector<RecordedInput> files_recorded_in(const std::string& companion, const std::string& file) {
  std::vector<RecordedInput> out;
  std::error_code ec;
  if (!fs::is_regular_file(companion, ec)) return out;
  try {
    const nlohmann::json document =
        parse_input_file(companion, InputKind::Json, [&](const std::string& text) { return parse_json(text, companion); });
    collect(JsonNode::root(document, companion), file, 0, out);
  } catch (const Error&) {
    out.clear();  // unreadable: its reader says why when the command reads it
  }
  return out;
}

FileNow file_now(const FileRecord& recorded) {
  std::error_code ec;
  if (recorded.none() || !fs::is_regular_file(recorded.path, ec)) return FileNow::Gone;
  return sha256_file_now(recorded.path) == recorded.sha256 ? FileNow::AsRecorded : FileNow::Changed;
}

}  // namespace vcloe
