// The one reader of the JSON files vcloe reads (trace sidecars, identification reports,
// validation results): a syntax error names the file, line and column in our words, a key
// repeated in one object is refused (the parser would keep the last silently), and a path that
// is no regular file is refused (error.hpp's require_input_file). Errors are vcloe::Error.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace vcloe {

nlohmann::json parse_json(const std::string& text, const std::string& name);
nlohmann::json read_json_file(const std::string& path);

}  // namespace vcloe
