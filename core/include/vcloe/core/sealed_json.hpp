#pragma once
// vcloe/core/sealed_json.hpp — the seal of a result vcloe writes and reads back (the
// identification report, a validation result, a kinematic calibration's result, a study's JSON,
// the sidecar of every CSV vcloe writes):
// key `content_sha256`, the SHA-256 of the document without it (compact JSON, keys in order).
// The one reader of each refuses a result whose content is not the one sealed — a number or a
// verdict edited by hand — before any of it is drawn, predicted from or merged: every derived
// figure of a result is then the one vcloe computed (docs/robustness.md, "Sealed results"). The
// typed readers' own checks (each derived field against its sources) stay for the text alone.
#include <nlohmann/json.hpp>
#include <string>

namespace vcloe {

inline constexpr const char* kContentSealKey = "content_sha256";

// The file's text as json_text writes it, with the seal added (`file` names it in errors).
std::string sealed_json_text(nlohmann::json document, const std::string& file);
// The file read by read_json_file, its seal checked and removed; `again` says what writes it
// anew ("run vcloe identify again"). A missing or unmatched seal is refused in one line.
nlohmann::json read_sealed_json_file(const std::string& path, const std::string& again);
// The seal of `document` (read from `path`) checked and removed: the one check of both readers
// above and of every CSV's sidecar (core/required_sidecar.hpp). `missing` is said of a document
// with no seal (what adopts or writes it anew), `edited` of one whose content is not the sealed.
void check_content_seal(nlohmann::json& document, const std::string& path, const std::string& missing,
                        const std::string& edited);

}  // namespace vcloe
