#include "vcloe/core/yaml_reader.hpp"

// YamlNode: typed access to one node of a YAML file, every failure naming the file, line and
// key path (docs/robustness.md). Reading and checking the whole document: yaml_document.cpp.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <utility>

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

// True if `text` is a number whose magnitude is beyond the largest double (1e400, -1e400):
// yaml-cpp refuses it as no number at all.
bool overflows(const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(text.c_str(), &end);
  return errno == ERANGE && std::isinf(x) && end == text.c_str() + text.size();
}

// A literal as a refusal quotes it: whole, or its ends and its length when long.
std::string quoted_literal(const std::string& t) {
  return t.size() > 40 ? "'" + t.substr(0, 16) + "…" + t.substr(t.size() - 8) + "' (" + std::to_string(t.size()) + " characters)"
                       : "'" + t + "'";
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
    if (overflows(node_.Scalar()))  // 1e400: a number, beyond a double (the JSON reader says so too)
      fail("expected a number a double can hold, got " + quoted_literal(node_.Scalar()) + ", beyond 1.8e308 in magnitude");
    fail("expected a number, got " + describe(node_));
  }
  if (!std::isfinite(v)) fail("expected a finite number, got " + describe(node_));
  if (v == 0 && underflows(node_.Scalar()))  // 1e-401 read as 0 without a word; the CSV reader refuses it too
    fail("expected a number a double can hold, got " + quoted_literal(node_.Scalar()) +
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

}  // namespace vcloe
