#include "vcloe/core/json_file.hpp"
#include "vcloe/core/input_file.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <set>
#include <string_view>
#include <vector>

#include "vcloe/core/error.hpp"
#include "vcloe/core/required_sidecar.hpp"
#include "vcloe/core/sealed_json.hpp"
#include "vcloe/core/trace.hpp"  // sha256

namespace vcloe {

namespace {

// Deepest nesting of arrays and objects read; vcloe's own files nest at most 5 levels (a
// report's correlation rows inside their object inside the document). A sidecar key nested
// 2·10^5 arrays deep was kept as an unknown key and copying it recursed until the stack ran
// out (SIGSEGV): refused while parsing, before anything holds it.
constexpr int kMaxJsonDepth = 100;

// The first number of `text` that a double cannot hold (1e400, 1e-400), said with its line,
// column and the key it belongs to; empty if none. nlohmann's parser throws an overflow without
// its place and reads an underflow as 0 (probe 27, class B): the CSV and YAML readers refuse both.
std::string number_out_of_range(const std::string& text) {
  std::size_t line = 1, line_start = 0;
  std::string key, last_string;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    }
    if (c == '"') {  // a string, escapes skipped; the last one before a ':' is the key
      const std::size_t from = ++i;
      while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
      last_string = text.substr(from, std::min(i, text.size()) - from);
    } else if (c == ':') {
      key = last_string;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t end = i;
      while (end < text.size() && std::string_view("0123456789+-.eE").find(text[end]) != std::string_view::npos) ++end;
      double v = 0;
      if (std::from_chars(text.data() + i, text.data() + end, v).ec == std::errc::result_out_of_range)
        return "line " + std::to_string(line) + ", column " + std::to_string(i - line_start + 1) + (key.empty() ? "" : " (key '" + key + "')") +
               ": " + text.substr(i, end - i) + " is beyond the range of a double (2.2e-308 to 1.8e308 in magnitude)";
      i = end - 1;
    }
  }
  return "";
}

}  // namespace

nlohmann::json parse_json(const std::string& text, const std::string& name) {
  using nlohmann::json;
  std::vector<std::set<std::string>> keys;  // the keys of every object being read, innermost last
  std::string repeated;
  const json::parser_callback_t cb = [&](int depth, json::parse_event_t event, json& parsed) {
    const bool opens = event == json::parse_event_t::object_start || event == json::parse_event_t::array_start;
    if (opens && depth >= kMaxJsonDepth)  // `depth`: the arrays and objects around this one
      fail(name, "arrays and objects nested deeper than " + std::to_string(kMaxJsonDepth) +
                     " levels; vcloe's JSON files nest a few levels (a file built to exhaust the reader?)");
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == json::parse_event_t::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second &&
        repeated.empty())
      repeated = parsed.get<std::string>();
    return true;
  };
  if (const std::string range = number_out_of_range(text); !range.empty()) fail(name, "not valid JSON: " + range);
  json j;
  try {
    j = json::parse(text, cb);
  } catch (const json::exception& e) {
    // nlohmann's text without its "[json.exception.parse_error.101] " tag.
    std::string what = e.what();
    if (const auto tag = what.find("] "); what.rfind("[json.exception.", 0) == 0 && tag != std::string::npos)
      what = what.substr(tag + 2);
    fail(name, "not valid JSON: " + what);
  }
  if (!repeated.empty()) fail(name, "key '" + repeated + "' appears twice in one object");
  return j;
}

nlohmann::json read_json_file(const std::string& path) {
  return parse_input_file(path, InputKind::Json, [&](const std::string& text) { return parse_json(text, path); });
}

namespace {

void refuse_non_finite(const nlohmann::json& j, const std::string& key, const std::string& file) {
  if (j.is_number_float() && !std::isfinite(j.get<double>()))
    fail(file, "key '" + (key.empty() ? std::string("(root)") : key) + "': " + exact_number(j.get<double>()) +
                   " is not a number JSON can hold; refusing to write a file that cannot be read back");
  if (j.is_object())
    for (const auto& [k, v] : j.items()) refuse_non_finite(v, key.empty() ? k : key + "." + k, file);
  if (j.is_array())
    for (std::size_t i = 0; i < j.size(); ++i) refuse_non_finite(j[i], key + "[" + std::to_string(i) + "]", file);
}

}  // namespace

std::string json_text(const nlohmann::json& document, const std::string& file) {
  refuse_non_finite(document, "", file);
  return document.dump(2) + "\n";
}

namespace {

std::string content_sha256(const nlohmann::json& document) { return sha256(document.dump()); }

}  // namespace

std::string sealed_json_text(nlohmann::json document, const std::string& file) {
  if (!document.is_object()) fail(file, "a sealed result is a JSON object");
  document.erase(kContentSealKey);
  refuse_non_finite(document, "", file);  // before the seal: what is sealed is what is written
  document[kContentSealKey] = content_sha256(document);
  return json_text(document, file);
}

void check_content_seal(nlohmann::json& document, const std::string& path, const std::string& missing,
                        const std::string& edited) {
  const std::string key = std::string("key '") + kContentSealKey + "': ";
  if (!document.is_object()) fail(path, "expected a JSON object (a file vcloe wrote); " + missing);
  const auto seal = document.find(kContentSealKey);
  if (seal == document.end())
    fail(path, key + "missing: not a file as this vcloe writes it (written by an older vcloe, another tool, or by hand); " + missing);
  std::string recorded = seal->is_string() ? seal->get<std::string>() : std::string();
  std::transform(recorded.begin(), recorded.end(), recorded.begin(), [](unsigned char c) { return std::tolower(c); });
  if (recorded.size() != 64 || recorded.find_first_not_of("0123456789abcdef") != std::string::npos)
    fail(path, key + "expected the SHA-256 of the file's content (64 hex digits), got " +
                   (seal->dump().size() > 80 ? seal->dump().substr(0, 77) + "..." : seal->dump()) + "; " + edited);
  document.erase(seal);
  const std::string now = content_sha256(document);
  if (recorded != now)
    fail(path, key + "the content is not the one sealed (SHA-256 " + now.substr(0, 12) + "..., sealed " +
                   recorded.substr(0, 12) + "...): a file edited since vcloe wrote it is not read; " + edited);
}

nlohmann::json read_sealed_json_file(const std::string& path, const std::string& again) {
  nlohmann::json document = read_json_file(path);
  check_content_seal(document, path, again, again);
  return document;
}

std::vector<FileText> csv_with_sidecar(const std::string& csv_path, std::string csv, nlohmann::json sidecar) {
  const std::string side = sidecar_path(csv_path);
  sidecar["csv_sha256"] = sha256(csv);
  return {{side, sealed_json_text(std::move(sidecar), side)}, {csv_path, std::move(csv)}};
}

nlohmann::json read_sidecar(const std::string& csv_path, const SidecarKind& kind, SidecarSeal seal) {
  const std::string side = sidecar_path(csv_path);
  nlohmann::json document = read_json_file(side);
  check_sidecar_kind(document, csv_path, kind.format, kind.kind);  // what the file is, before its seal
  const std::string anew = kind.recording ? "record it again with " + kind.writer : "run " + kind.writer + " again";
  const std::string adopt = kind.recording ? "; vcloe seal " + csv_path + " --out COPY.csv seals a copy of " + kind.kind +
                                                 " an older vcloe wrote"
                                           : "";
  if (!document.is_object()) return document;  // no sidecar at all: said by its typed reader
  if (seal == SidecarSeal::Adopt && !document.contains(kContentSealKey)) return document;
  check_content_seal(document, side, anew + adopt, anew);
  return document;
}

nlohmann::json read_required_sidecar(const std::string& csv_path, const SidecarKind& kind, SidecarSeal seal) {
  const std::string side = sidecar_path(csv_path);
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(side, ec)))
    fail(csv_path, "is not " + kind.kind + ": " + kind.writer + " writes one as a CSV with its sidecar " + side +
                       ", which is not there");
  return read_sidecar(csv_path, kind, seal);
}

}  // namespace vcloe
