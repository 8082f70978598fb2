#pragma once
// vcloe/core/required_sidecar.hpp — the sidecar of a CSV kind that has no meaning without one (a
// pre-correction, a prediction, a static-pose trace): read by the one JSON reader, its absence
// said as what it means — the file is not of that kind, or lost its sidecar — in one line.
#include <nlohmann/json.hpp>
#include <string>

namespace vcloe {

// `csv_path`'s sidecar (sidecar_path) parsed, its `format` checked to be `format`
// (check_sidecar_kind). `kind` ("a pre-corrected command") and `writer` ("vcloe precorrect or vcloe
// learn") name what the file should be: "r.yaml: is not a pre-corrected command: vcloe precorrect
// or vcloe learn writes one as a CSV with its sidecar r.yaml.meta.json, which is not there".
nlohmann::json read_required_sidecar(const std::string& csv_path, const std::string& format, const std::string& kind,
                                     const std::string& writer);

}  // namespace vcloe
