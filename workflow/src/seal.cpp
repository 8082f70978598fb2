#include "vcloe/workflow/seal.hpp"

#include <filesystem>

#include "vcloe/calib/static_trace.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/input_file.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/core/required_sidecar.hpp"
#include "vcloe/core/sealed_json.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/rig/checked_trace.hpp"

namespace vcloe::workflow {

namespace {

// The recording read by its own reader with every check but the seal; what it is, for the line.
std::string read_unsealed(const std::string& in, const std::string& format) {
  if (format == kTraceFormat)
    return "a pose trace of " + std::to_string(rig::read_checked_trace(in, SidecarSeal::Adopt).size()) + " measured rows";
  if (format == calib::kStaticTraceFormat)
    return "a static-pose trace of " + std::to_string(calib::read_static_trace(in, SidecarSeal::Adopt).poses.size()) +
           " poses";
  fail(in, "is not a recording vcloe seals: its sidecar " + sidecar_path(in) + " says it is a \"" + format +
               "\" file, which its writer makes again from its recorded inputs; seal takes a \"" + kTraceFormat +
               "\" or \"" + calib::kStaticTraceFormat + "\" file");
}

}  // namespace

std::string seal(const SealOptions& o) {
  IoPlan(o.force).input_trace(o.in, "the recording sealed").output_trace(o.out, "--out").check();
  const std::string csv = read_input_file(o.in, InputKind::Trace);  // "file not found" before the sidecar's absence
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(sidecar_path(o.in), ec)))
    fail(o.in, "has no sidecar " + sidecar_path(o.in) + ": nothing to seal (a trace without one is read as it is)");
  nlohmann::json sidecar = read_json_file(sidecar_path(o.in));
  // A sidecar without `format` is another tool's export of a pose trace (docs/traces.md).
  const auto format = sidecar.is_object() ? sidecar.find("format") : sidecar.end();
  const bool named = format != sidecar.end() && format->is_string();
  const std::string what = read_unsealed(o.in, named ? format->get<std::string>() : std::string(kTraceFormat));
  const bool was_sealed = sidecar.contains(kContentSealKey);
  sidecar.erase(kContentSealKey);
  // The CSV the reader checked: the same bytes again (not replaced while it was read).
  if (read_input_file(o.in, InputKind::Trace) != csv) fail(o.in, "changed while it was read; seal it again");
  write_files_atomically(csv_with_sidecar(o.out, csv, sidecar), o.force);
  return "wrote " + o.out + " and " + sidecar_path(o.out) + ": a sealed copy of " + o.in + " (" + what +
         (was_sealed ? "; it was sealed already" : "") + "), every check of its reader made\n";
}

}  // namespace vcloe::workflow
