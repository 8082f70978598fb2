// The one reader of the JSON files vcloe reads (trace sidecars, identification reports,
// validation results) and the one way every JSON file is written: a syntax error names the file, line and column in our words, a key
// repeated in one object is refused (the parser would keep the last silently), and a path that
// is no regular file is refused (error.hpp's require_input_file), and arrays and objects nested
// deeper than 100 levels are refused while parsing (a sidecar key nested 2·10^5 arrays deep was
// kept, and copying it recursed until the stack ran out: SIGSEGV). Errors are vcloe::Error.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace vcloe {

nlohmann::json parse_json(const std::string& text, const std::string& name);
nlohmann::json read_json_file(const std::string& path);

// The text of a JSON file vcloe writes (two-space indent, a final newline). A non-finite number
// is refused naming the file and its key ("r.json: key 'parameters[3].sigma': inf is not a
// number JSON can hold"): the library would write null silently, and the reader would then
// refuse a file vcloe wrote. A writer meaning "unbounded" writes null itself.
std::string json_text(const nlohmann::json& document, const std::string& file);

// A number a writer may leave unbounded: the value, or null where it is not finite.
inline nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

}  // namespace vcloe
