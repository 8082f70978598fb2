#pragma once
// vcloe/core/trace.hpp — recorded and simulated pose traces: CSV with a header row plus a JSON
// metadata sidecar (docs/traces.md). One row per camera exposure; SI units (s, m, rad).
//
// Nothing the user recorded is overwritten without `force`; files are written atomically; the
// same trace gives byte-identical files; every read error names the file, line and column. The
// sidecar holds the CSV's SHA-256 (`csv_sha256`), so a CSV and a sidecar that do not belong
// together (a write killed between the two renames, one file replaced) are refused on read, and
// is sealed, so a sidecar edited by hand is (core/required_sidecar.hpp).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "vcloe/core/output_file.hpp"
#include "vcloe/core/required_sidecar.hpp"
#include "vcloe/core/rotation.hpp"
#include "vcloe/core/trace_metadata.hpp"

namespace vcloe {

struct PoseTrace {
  std::vector<double> time;         // s from trace start (exposure times), strictly increasing
  std::vector<Vec6d> reference;     // chi_d (optional: empty if not recorded)
  std::vector<Vec6d> measured;      // chi_m (required)
  std::vector<Vec6d> command;       // joint position command U_theta (optional)
  std::vector<Vec6d> truth;         // true pose, virtual robot only (optional)
  TraceMetadata metadata;           // the sidecar (docs/traces.md; core/trace_metadata.hpp)
  bool has_sidecar = false;         // set by read_trace
  // Set by read_trace: the sidecar records the CSV's SHA-256 and it matched. False for a sidecar
  // written before the hash was recorded (accepted: its pairing cannot be checked) or none.
  bool sidecar_bound = false;

  std::size_t size() const { return time.size(); }
};

// Writes `path` and `path.meta.json` (metadata plus `csv_sha256`, the CSV's hash). Both are
// written to temporary names first, then renamed, the sidecar first: a write killed between the
// renames leaves a pair whose hashes disagree, never a silently mismatched one. Throws
// vcloe::Error if either exists and !force, if the columns have different lengths, or if a
// value is not finite (the file could not be read back).
void write_trace(const std::string& path, const PoseTrace& trace, bool force);
// The two files write_trace writes, in its order (the sidecar first), with the same checks: for a
// writer that puts the trace in a larger group (render's truth.csv with its images: FileGroup).
std::vector<FileText> trace_files(const std::string& path, const PoseTrace& trace);
// Reads the CSV and its sidecar if present (parse_trace and parse_sidecar on the files' text).
// A sidecar whose `csv_sha256` is not the CSV's hash is an error naming both files. The rows of
// unmeasured_frames are left out (the one rule of which rows are measurements: every command
// reads a trace here), so a rig trace has the gaps a `measure` trace has.
// `seal` Adopt reads an unsealed sidecar (only `vcloe seal`, core/required_sidecar.hpp).
PoseTrace read_trace(const std::string& path, SidecarSeal seal = SidecarSeal::Required);
// What a pose trace's sidecar is, for read_sidecar.
extern const SidecarKind kPoseTraceSidecar;
// The frames of a trace that are no measurement: those the live rig's recorder never received or
// received invalid (the sidecar's stream.missing_frames and stream.invalid_frames, docs/protocol.md),
// whose rows repeat the last valid pose. Sorted, each once.
std::vector<std::int64_t> unmeasured_frames(const TraceMetadata& metadata);
// Whether the sidecar records frames left out of the rows (the live rig's unmeasured_frames, or
// `measure`'s `frames`, `missing_frames`, `invalid_frames`): consecutive rows may then skip
// exposures. The one rule for every reader that pairs rows with a camera's exposures.
bool records_frames_left_out(const TraceMetadata& metadata);
// The index in `grid` (increasing times, s) of each of `times` (increasing), within 1e-9 s, or
// kNotOnGrid where none is: how rows with gaps are paired with the exposures they measured.
inline constexpr std::size_t kNotOnGrid = static_cast<std::size_t>(-1);
std::vector<std::size_t> indices_on_grid(const std::vector<double>& times, const std::vector<double>& grid);
// A CSV whose sidecar's `format` is not `format` is refused as the kind of file it says it is
// (with its `source`), before its rows are read as `kind`'s: "st.csv: is not a pose trace: its
// sidecar st.csv.meta.json says it is a "vcloe-static-poses-1" file (source "virtual") …". The one check of every reader of a CSV with a sidecar (traces, static-pose
// traces, pre-corrections); a sidecar without a string format is left to the typed reader.
void check_sidecar_kind(const nlohmann::json& sidecar, const std::string& csv_path, const std::string& format,
                        const std::string& kind);
// The CSV alone (no sidecar; errors name `name`, its line and column), and a sidecar's text
// (one JSON object, read by trace_metadata_from_json).
PoseTrace parse_trace(const std::string& csv_text, const std::string& name);
TraceMetadata parse_sidecar(const std::string& json_text, const std::string& name);
// The CSV's header line and row i (with '\n'), as write_trace writes them: for a recorder that
// streams rows to disk as they come (`vcloe control`), in the one format.
std::string trace_csv_header(const PoseTrace& layout);
std::string trace_csv_row(const PoseTrace& trace, std::size_t i);

std::string sidecar_path(const std::string& trace_path);

// A file a trace's sidecar records (`entry`, recorded as `key`: robot, experiment, reference,
// truth, rig, markers, precorrection). Nothing if not recorded or none. The path is taken as recorded if it
// names a file, else relative to the trace's own directory (sidecars written before paths were
// absolute). Throws vcloe::Error naming the file if it is missing or not a regular file (a
// malformed entry was refused when the sidecar was read).
using RecordedFile = FileRecord;
std::optional<RecordedFile> recorded_file(const std::optional<FileRecord>& entry, const std::string& key,
                                          const std::string& trace_path);
// The same for the entry `key` names (one of those above; another key: nothing).
std::optional<RecordedFile> recorded_file(const PoseTrace& trace, const std::string& key, const std::string& trace_path);

// {"path": absolute path, "sha256": hash of the file} (file_record as JSON, for reports); null
// for an empty path.
nlohmann::json file_entry(const std::string& path);

// SHA-256 of a file's bytes, lower-case hex (recorded in sidecars to tie traces to configs):
// of the bytes this command read and parsed when it did (core/input_ledger.hpp), else of the file
// now; sha256_file_now always of the file now. Anything but a regular file (a FIFO, /dev/zero) is
// refused before it is opened (require_input_file).
std::string sha256_file(const std::string& path);
std::string sha256_file_now(const std::string& path);
std::string sha256(const std::string& bytes);

// Largest magnitude of any cell of a trace (s, m, rad): beyond it a value is no measurement
// (1e300 in one cell made the fit's cost infinite).
inline constexpr double kMaxTraceMagnitude = 1e6;

}  // namespace vcloe
