// YamlDoc: a whole YAML file read once through the bounded input reader, then checked as a
// document before any reader sees a node — binary content, bare carriage returns, a second
// document, tabs as indentation, duplicate keys, merge keys, alias bombs and depth
// (docs/robustness.md). The node accessors are in yaml_reader.cpp.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include <yaml-cpp/depthguard.h>

#include "vcloe/core/error.hpp"
#include "vcloe/core/input_file.hpp"
#include "vcloe/core/yaml_reader.hpp"

namespace vcloe {

namespace {

// Nodes a vcloe file may hold, counted with every alias expanded: the largest real file (a
// 200-harmonic trajectory) has a few thousand; a file of nested aliases ("billion laughs")
// would otherwise be walked for ever by every reader.
constexpr long kMaxYamlNodes = 100000;
// Levels of nesting, aliases expanded: vcloe's files have at most four. An alias inside its own
// anchor ("a: &a [*a]") is a cycle that yaml-cpp accepts; walking it overflowed the stack
// (found by fuzz/fuzz_robot).
constexpr int kMaxYamlDepth = 64;

// yaml-cpp keeps both entries of a repeated key and lookups return the first: refuse instead
// of letting one value win silently.
void reject_duplicate_keys(const YAML::Node& node, const std::string& file, long& budget, int depth = 0) {
  if (--budget < 0)
    vcloe::fail(file, "more than " + std::to_string(kMaxYamlNodes) +
                          " YAML nodes with aliases expanded (nested &anchors / *aliases?); vcloe's files are far smaller");
  if (depth > kMaxYamlDepth)
    vcloe::fail(file + ":" + std::to_string(node.Mark().line + 1),
                "nested deeper than " + std::to_string(kMaxYamlDepth) + " levels (an *alias inside its own &anchor?)");
  if (node.IsSequence())
    for (const auto& item : node) reject_duplicate_keys(item, file, budget, depth + 1);
  if (!node.IsMap()) return;
  std::map<std::string, int> seen;
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    const int line = kv.first.Mark().line + 1;
    if (const auto it = seen.find(key); it != seen.end())
      vcloe::fail(file + ":" + std::to_string(line),
                  "key '" + key + "' appears twice (first at line " + std::to_string(it->second) + ")");
    // YAML 1.1's merge key: yaml-cpp (0.7) reads it as a key named "<<", so every reader would
    // call it unknown — said as what it is instead.
    if (key == "<<" && kv.first.Tag() != "tag:yaml.org,2002:str" && kv.first.Tag() != "!")
      vcloe::fail(file + ":" + std::to_string(line),
                  "a YAML merge key ('<<: …'); the YAML library vcloe reads its files with does not resolve merge "
                  "keys: write the keys out (an *alias of a whole value still works)");
    seen.emplace(key, line);
    reject_duplicate_keys(kv.second, file, budget, depth + 1);
  }
}

void check_tree(const YAML::Node& root, const std::string& file) {
  if (!root.IsMap()) vcloe::fail(file, "expected a YAML map at the top level");
  long budget = kMaxYamlNodes;
  reject_duplicate_keys(root, file, budget);
}

// yaml-cpp's Load reads the first document only, so what follows a '---' or '...' was ignored;
// its LoadAll loops for ever on some malformed files (found by fuzz_excitation and
// fuzz_experiment). Document markers are lines that start with '---' or '...' (YAML 1.2, 9.1;
// never content, even inside a scalar): content after a '...', or a '---' after content, is a
// second document.
void refuse_second_document(const std::string& text, const std::string& name) {
  bool content = false, ended = false;
  std::size_t line_no = 0;
  for (std::size_t start = 0; start < text.size(); ++line_no) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    auto marker = [&](const char* m) {
      return line.compare(0, 3, m) == 0 && (line.size() == 3 || std::isspace(static_cast<unsigned char>(line[3])));
    };
    const std::size_t first = line.find_first_not_of(" \t\r");
    const bool blank = first == std::string::npos || line[first] == '#';
    const bool second = (marker("---") && content) || (ended && !blank && !marker("..."));
    if (second)
      vcloe::fail(name + ":" + std::to_string(line_no + 1),
                  "a second YAML document (after '---' or '...'); a vcloe file holds one, the rest would be ignored");
    const bool rest = line.size() > 3 && line.find_first_not_of(" \t\r", 3) != std::string::npos &&
                      line[line.find_first_not_of(" \t\r", 3)] != '#';
    if (marker("...")) ended = content = true;
    else if (marker("---") ? rest : !blank && line[0] != '%') content = true;
  }
}

// A file that is not text (an image, an archive, a program given where a YAML file belongs):
// said as such before yaml-cpp reads its bytes as characters ("a carriage return that ends no
// line" for a PNG; a NUL read as a line break). YAML text has no control characters but tab, LF
// and CR (YAML 1.2, 5.1, c-printable); a UTF-16/32 file (a byte-order mark) is left to yaml-cpp.
void refuse_binary(const std::string& text, const std::string& name) {
  const auto* b = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  if (n >= 2 && ((b[0] == 0xFE && b[1] == 0xFF) || (b[0] == 0xFF && b[1] == 0xFE))) return;
  if (n >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0xFE && b[3] == 0xFF) return;
  static const std::pair<const char*, const char*> kinds[] = {
      {"\x89PNG", "a PNG image"}, {"\xFF\xD8\xFF", "a JPEG image"}, {"\x7F" "ELF", "a program"},
      {"\x1F\x8B", "a gzip archive"}, {"PK\x03\x04", "a zip archive"}, {"%PDF", "a PDF document"}};
  std::string kind;
  for (const auto& [magic, what] : kinds)
    if (text.compare(0, std::strlen(magic), magic) == 0) kind = what;
  std::size_t at = 0;
  while (at < n && (b[at] >= 0x20 || b[at] == '\t' || b[at] == '\n' || b[at] == '\r') && b[at] != 0x7F) ++at;
  if (kind.empty() && at == n) return;
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", at < n ? b[at] : 0);
  vcloe::fail(name, "is " + (kind.empty() ? std::string("a binary file") : kind) + ", not a YAML text file" +
                        (at < n ? " (byte " + std::string(byte) + " at offset " + std::to_string(at) + " is a control character)"
                                : std::string(" (it begins as one)")));
}

// A document of comments only, or nothing at all: an empty map (every key at its default, as
// documented for the files whose keys are all optional; a file with required keys then names
// the first one missing). An explicit null (`~`, `null`) is content, and stays refused.
bool has_content(const std::string& text) {
  for (std::size_t start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::size_t first = text.find_first_not_of(" \t\r", start);
    if (first < end && text[first] != '#' && text.compare(first, 3, "---") != 0 && text.compare(first, 3, "...") != 0 &&
        text[first] != '%')
      return true;
    start = end + 1;
  }
  return false;
}

// A carriage return not followed by a line feed (old Mac line endings, CR CR LF): yaml-cpp
// reads no line break there and reports a syntax error elsewhere.
void refuse_bare_carriage_returns(const std::string& text, const std::string& name) {
  for (std::size_t i = text.find('\r'); i != std::string::npos; i = text.find('\r', i + 1))
    if (i + 1 == text.size() || text[i + 1] != '\n')
      vcloe::fail(name + ":" + std::to_string(std::count(text.begin(), text.begin() + static_cast<long>(i), '\n') + 1),
                  "a carriage return that ends no line (lines ending in a bare CR, or CR CR LF); expected LF or CR LF "
                  "line endings");
}

// The first line (1-based) up to `last` whose indentation holds a tab, or 0. YAML indents with
// spaces only; yaml-cpp says of a tab there "illegal map value" or "end of map not found", which
// does not name the tab (session 21's probe, yx-tab-indent).
int tab_indented_line(const std::string& text, int last) {
  int line = 1;
  for (std::size_t at = 0; at < text.size() && line <= last; ++line) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::size_t first = text.find_first_not_of(" \t", at);
    if (first != std::string::npos && first < end && text[first] != '#' &&
        text.find('\t', at) < first)
      return line;
    at = end + 1;
  }
  return 0;
}

}  // namespace

YamlDoc YamlDoc::load(const std::string& file) {
  return parse_input_file(file, InputKind::Yaml, [&](const std::string& text) { return parse(text, file); });
}

YamlDoc YamlDoc::parse(const std::string& text, const std::string& name) {
  YamlDoc doc;
  doc.file_ = std::make_shared<const std::string>(name);
  try {
    refuse_binary(text, name);
    refuse_bare_carriage_returns(text, name);
    refuse_second_document(text, name);
    doc.root_ = YAML::Load(text);
    if (doc.root_.IsNull() && !has_content(text)) doc.root_ = YAML::Node(YAML::NodeType::Map);
  } catch (const YAML::DeepRecursion& e) {  // yaml-cpp's own text for it is "bad file"
    vcloe::fail(name + ":" + std::to_string(e.mark.line + 1),
                "YAML syntax error: collections nested deeper than " + std::to_string(e.depth() - 1) + " levels");
  } catch (const YAML::ParserException& e) {
    if (const int tab = tab_indented_line(text, e.mark.line + 1); tab > 0)
      vcloe::fail(name + ":" + std::to_string(tab), "YAML syntax error: a tab used for indentation (YAML indents with "
                                                   "spaces only)");
    vcloe::fail(name + ":" + std::to_string(e.mark.line + 1), "YAML syntax error: " + e.msg);
  } catch (const YAML::Exception& e) {
    vcloe::fail(name, std::string("cannot read YAML: ") + e.what());
  }
  check_tree(doc.root_, name);
  return doc;
}

}  // namespace vcloe
