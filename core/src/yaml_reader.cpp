#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/core/input_file.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <utility>

#include <yaml-cpp/depthguard.h>

#include "vcloe/core/error.hpp"

namespace vcloe {

namespace {
// A literal whose digits before the exponent are not all zero: read as 0, it underflowed.
bool underflows(const std::string& text) {
  for (const char c : text) {
    if (c == 'e' || c == 'E') break;
    if (c >= '1' && c <= '9') return true;
  }
  return false;
}

std::string describe(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a map";
  return "'" + n.Scalar() + "'";
}

// A scalar the file writes as a string — quoted ("0.18", '0.18') or a block (| or >): yaml-cpp's
// tag "!" for a non-plain scalar — or with any explicit tag but the one of the type read (`!!float`
// or, on a whole number, `!!int` for a number, `!!int` for an integer, `!!bool` for a truth value; `!!str`, `!!null`, `!!seq`,
// `!weird` …): refused at its key like any other wrong type, not read as the number its text
// spells (the one scalar reader: as_double, as_int, as_bool; session 22's probe, class 2).
std::optional<long long> decimal_integer(const std::string& text);

void refuse_tagged_scalar(const YamlNode& at, const YAML::Node& n, const std::string& expected, const std::string& own) {
  const std::string& tag = n.Tag();
  const std::string core = "tag:yaml.org,2002:";
  if (tag == "?" || tag.empty() || tag == core + own) return;
  if (own == "float" && tag == core + "int" && decimal_integer(n.Scalar())) return;  // !!int 3 is a number too
  const std::string said = tag == "!" ? std::string("quoted, or a block scalar")
                                      : "tagged " + (tag.rfind(core, 0) == 0 ? "!!" + tag.substr(core.size()) : tag);
  at.fail("expected " + expected + ", got " + (tag == "!" || tag == core + "str" ? "the string " : "") + "'" + n.Scalar() +
          "' (" + said + "; write it plain, without quotes or tag)");
}

// An integer as the file writes it: decimal digits with an optional sign, leading zeros read as
// decimal (YAML 1.2's core schema: 010 is ten; the command line reads it the same, apps/src/main.cpp).
// Octal, hexadecimal and binary prefixes (0o17, 0x1F, 0b1) are not decimal: refused, not read in
// another base (yaml-cpp took 010 as 8; session 22's probe, class 1). nullopt: not decimal digits.
std::optional<long long> decimal_integer(const std::string& text) {
  std::size_t from = text.size() > 1 && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  if (from == text.size() || text.find_first_not_of("0123456789", from) != std::string::npos) return std::nullopt;
  const std::size_t first = std::min(text.find_first_not_of('0', from), text.size() - 1);
  if (text.size() - first > 18) return text[0] == '-' ? std::numeric_limits<long long>::min() : std::numeric_limits<long long>::max();
  const long long v = std::stoll(text.substr(first));
  return text[0] == '-' ? -v : v;
}
}  // namespace

int YamlNode::line() const {
  const auto mark = node_.Mark();
  return mark.line >= 0 ? mark.line + 1 : 0;
}

std::string YamlNode::where() const {
  std::ostringstream where;
  where << *file_;
  if (line() > 0) where << ":" << line();
  return where.str() + ": " + (path_.empty() ? std::string("document root") : "key '" + path_ + "'");
}

void YamlNode::fail(const std::string& what) const {
  std::ostringstream where;
  where << *file_;
  if (line() > 0) where << ":" << line();
  std::string key = path_.empty() ? "document root" : "key '" + path_ + "'";
  vcloe::fail(where.str(), key + ": " + what);
}

void YamlNode::fail_if(const std::optional<SettingProblem>& problem) const {
  if (!problem) return;
  // Down a dotted key as far as the file has it: the node, and whether the file gives the key.
  auto node_of = [this](const std::string& key) {
    YamlNode n = *this;
    for (std::size_t from = 0; from < key.size();) {
      const std::size_t dot = std::min(key.find('.', from), key.size());
      const std::string part = key.substr(from, dot - from);  // "s" or "s[3]": a key, then perhaps an entry
      const std::size_t bracket = std::min(part.find('['), part.size());
      const std::optional<YamlNode> child = n.find(part.substr(0, bracket));
      if (!child) break;
      n = *child;
      if (bracket < part.size()) {
        const std::size_t index = std::stoul(part.substr(bracket + 1));
        if (!n.is_sequence() || index >= n.raw().size()) break;
        n = n.at(index);
      }
      from = dot + 1;
    }
    return std::make_pair(n, n.path() == child_path(key));
  };
  const std::string& key = problem->key;
  auto [n, given] = node_of(key);
  std::string message = problem->message;
  if (given && message.rfind(key + ": ", 0) == 0) message.erase(0, key.size() + 2);
  if (given) n.fail(message);
  for (const std::string& other : problem->also)  // the key left at its default: the coupled key the file gives
    if (auto [m, here] = node_of(other); here)
      m.fail(message + " (" + key + " is not in this file: its default)");
  n.fail("option '" + key + "': " + message);
}

std::string YamlNode::child_path(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

bool YamlNode::has(const std::string& key) const {
  return node_.IsMap() && node_[key].IsDefined();
}

YamlNode YamlNode::at(const std::string& key) const {
  if (!node_.IsMap()) fail("expected a map containing '" + key + "', got " + describe(node_));
  YAML::Node child = node_[key];
  if (!child.IsDefined()) fail("missing required key '" + key + "'");
  return YamlNode(child, child_path(key), file_);
}

std::optional<YamlNode> YamlNode::find(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return at(key);
}

YamlNode YamlNode::at(std::size_t index) const {
  if (!node_.IsSequence()) fail("expected a list, got " + describe(node_));
  if (index >= node_.size()) fail("list has " + std::to_string(node_.size()) + " entries");
  return YamlNode(node_[index], path_ + "[" + std::to_string(index) + "]", file_);
}

std::size_t YamlNode::size() const {
  if (!node_.IsSequence()) fail("expected a list, got " + describe(node_));
  return node_.size();
}

double YamlNode::as_double() const {
  if (!node_.IsScalar()) fail("expected a number, got " + describe(node_));
  refuse_tagged_scalar(*this, node_, "a number", "float");
  double v = 0.0;
  try {
    v = node_.as<double>();
  } catch (const YAML::Exception&) {
    fail("expected a number, got " + describe(node_));
  }
  if (!std::isfinite(v)) fail("expected a finite number, got " + describe(node_));
  if (v == 0 && underflows(node_.Scalar()))  // 1e-401 read as 0 without a word; the CSV reader refuses it too
    fail("expected a number a double can hold, got '" +
         (node_.Scalar().size() > 40 ? node_.Scalar().substr(0, 16) + "…" + node_.Scalar().substr(node_.Scalar().size() - 8) +
                                           "' (" + std::to_string(node_.Scalar().size()) + " characters)"
                                     : node_.Scalar() + "'") +
         ", non-zero but below 2.2e-308 in magnitude (it would be read as 0)");
  return v;
}

int YamlNode::as_int() const {
  if (!node_.IsScalar()) fail("expected an integer, got " + describe(node_));
  refuse_tagged_scalar(*this, node_, "an integer", "int");
  const std::optional<long long> v = decimal_integer(node_.Scalar());
  if (!v) {
    const std::string& t = node_.Scalar();  // 0x1F, 0o17, 0b1: a number in another base, said so
    const std::size_t digit = t.find_first_not_of("+-");
    const bool based = digit != std::string::npos && t.size() > digit + 2 && t[digit] == '0' &&
                       std::string("xXoObB").find(t[digit + 1]) != std::string::npos;
    fail(std::string("expected an integer") + (based ? " in decimal digits" : "") + ", got " + describe(node_));
  }
  if (*v < std::numeric_limits<int>::min() || *v > std::numeric_limits<int>::max())
    fail("expected an integer from -2147483648 to 2147483647, got " + describe(node_));
  return static_cast<int>(*v);
}

bool YamlNode::as_bool() const {
  if (!node_.IsScalar()) fail("expected true or false, got " + describe(node_));
  refuse_tagged_scalar(*this, node_, "true or false", "bool");
  try {
    return node_.as<bool>();
  } catch (const YAML::Exception&) {
    fail("expected true or false, got " + describe(node_));
  }
}

std::string YamlNode::as_string() const {
  if (!node_.IsScalar()) fail("expected a string, got " + describe(node_));
  return node_.Scalar();
}

Eigen::VectorXd YamlNode::as_vector(int expected_size) const {
  if (!node_.IsSequence()) {
    fail(expected_size > 0 ? "expected a list of " + std::to_string(expected_size) + " numbers, got " +
                                 describe(node_)
                           : "expected a list of numbers, got " + describe(node_));
  }
  if (expected_size >= 0 && static_cast<int>(node_.size()) != expected_size) {
    fail("expected a list of " + std::to_string(expected_size) + " numbers, got " +
         std::to_string(node_.size()));
  }
  Eigen::VectorXd v(node_.size());
  for (std::size_t i = 0; i < node_.size(); ++i) v(static_cast<Eigen::Index>(i)) = at(i).as_double();
  return v;
}

double YamlNode::get_double(const std::string& key, double fallback) const {
  return has(key) ? at(key).as_double() : fallback;
}
int YamlNode::get_int(const std::string& key, int fallback) const {
  return has(key) ? at(key).as_int() : fallback;
}
bool YamlNode::get_bool(const std::string& key, bool fallback) const {
  return has(key) ? at(key).as_bool() : fallback;
}
std::string YamlNode::get_string(const std::string& key, const std::string& fallback) const {
  return has(key) ? at(key).as_string() : fallback;
}

void YamlNode::reject_unknown_keys(const std::vector<std::string>& known) const {
  if (!node_.IsMap()) fail("expected a map, got " + describe(node_));
  for (const auto& kv : node_) {
    const std::string key = kv.first.Scalar();
    bool ok = false;
    for (const auto& k : known) ok = ok || (k == key);
    if (!ok) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      YamlNode(kv.first, child_path(key), file_).fail("unknown key (expected one of: " + list + ")");
    }
  }
}

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
