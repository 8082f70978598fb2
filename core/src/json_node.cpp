// The typed readers' checked getters (vcloe/core/json_node.hpp).
#include "vcloe/core/json_node.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "vcloe/core/error.hpp"

namespace vcloe {

using nlohmann::json;

namespace {

// A whole number, also as another tool may write it (2.0), within [low, high].
bool whole(const json& v, double low, double high) {
  if (!v.is_number()) return false;
  const double x = v.get<double>();
  return x >= low && x <= high && x == std::floor(x);
}

// A hash as every comparison takes it: hex in lower case (another tool may write capitals).
std::string lower_hex(std::string h) {
  std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return h;
}

}  // namespace

JsonNode::JsonNode(const json* value, std::string file, std::string key, std::string hint)
    : value_(value), file_(std::move(file)), key_(std::move(key)), hint_(std::move(hint)) {}

JsonNode JsonNode::root(const json& document, const std::string& file, const std::string& missing_hint) {
  return {&document, file, "", missing_hint};
}

JsonNode JsonNode::operator[](const std::string& key) const {
  const std::string path = key_.empty() ? key : key_ + "." + key;
  if (value_ == nullptr || !value_->is_object()) return {nullptr, file_, path, hint_};
  const auto it = value_->find(key);
  return {it == value_->end() ? nullptr : &*it, file_, path, hint_};
}

JsonNode JsonNode::operator[](std::size_t index) const {
  const std::string path = key_ + "[" + std::to_string(index) + "]";
  if (value_ == nullptr || !value_->is_array() || index >= value_->size()) return {nullptr, file_, path, hint_};
  return {&(*value_)[index], file_, path, hint_};
}

JsonNode JsonNode::need(const std::string& key) const {
  JsonNode n = (*this)[key];
  if (n.is_null()) fail(file_, "key '" + n.key_ + "': missing" + (hint_.empty() ? "" : " " + hint_));
  return n;
}

JsonNode JsonNode::present(const std::string& key) const {
  JsonNode n = (*this)[key];
  if (n.absent()) fail(file_, "key '" + n.key_ + "': missing" + (hint_.empty() ? "" : " " + hint_));
  return n;
}

void JsonNode::refuse(const std::string& expected) const {
  std::string got = value_ == nullptr ? "nothing" : value_->dump();
  if (got.size() > 40) got = got.substr(0, 40) + "...";
  fail(file_, (key_.empty() ? std::string("the document") : "key '" + key_ + "'") + ": expected " + expected + ", got " + got);
}

double JsonNode::number() const {
  if (value_ == nullptr || !value_->is_number() || !std::isfinite(value_->get<double>())) refuse("a number");
  return value_->get<double>();
}

double JsonNode::non_negative() const {
  if (value_ == nullptr || !value_->is_number() || !(value_->get<double>() >= 0) || !std::isfinite(value_->get<double>()))
    refuse("a non-negative number");
  return value_->get<double>();
}

double JsonNode::positive() const {
  if (value_ == nullptr || !value_->is_number() || !(value_->get<double>() > 0) || !std::isfinite(value_->get<double>()))
    refuse("a positive number");
  return value_->get<double>();
}

double JsonNode::bound() const {
  if (value_ != nullptr && value_->is_null()) return INFINITY;
  return number();
}

double JsonNode::number_or_nan() const {
  if (value_ != nullptr && (value_->is_null() || (value_->is_number_float() && std::isnan(value_->get<double>()))))
    return NAN;
  return number();
}

std::int64_t JsonNode::whole_number(std::int64_t low, std::int64_t high) const {
  const std::string expected = low == INT64_MIN && high == INT64_MAX
                                   ? std::string("a whole number")
                                   : "a whole number from " + std::to_string(low) + " to " + std::to_string(high);
  if (value_ == nullptr || !value_->is_number()) refuse(expected);
  if (value_->is_number_unsigned()) {
    const auto u = value_->get<std::uint64_t>();
    if (high < 0 || u > static_cast<std::uint64_t>(high) || static_cast<std::int64_t>(u) < low) refuse(expected);
    return static_cast<std::int64_t>(u);
  }
  if (value_->is_number_integer()) {
    const auto v = value_->get<std::int64_t>();
    if (v < low || v > high) refuse(expected);
    return v;
  }
  // Written as a floating-point number: whole, in range, and within what int64 holds.
  if (!whole(*value_, static_cast<double>(low), static_cast<double>(high)) || std::fabs(value_->get<double>()) >= 9.2e18)
    refuse(expected);
  return static_cast<std::int64_t>(value_->get<double>());
}

std::uint64_t JsonNode::unsigned_integer() const {
  const char* expected = "a whole number from 0 to 2^64 - 2";
  if (value_ != nullptr && value_->is_number_unsigned()) {
    if (value_->get<std::uint64_t>() == UINT64_MAX) refuse(expected);
    return value_->get<std::uint64_t>();
  }
  // Written as a floating-point number: whole and below 2^64 (the largest double under it).
  if (value_ == nullptr || value_->is_number_integer() || !whole(*value_, 0, 18446744073709549568.0)) refuse(expected);
  return static_cast<std::uint64_t>(value_->get<double>());
}

bool JsonNode::boolean() const {
  if (value_ == nullptr || !value_->is_boolean()) refuse("true or false");
  return value_->get<bool>();
}

std::string JsonNode::string() const {
  if (value_ == nullptr || !value_->is_string()) refuse("a string");
  return value_->get<std::string>();
}

std::string JsonNode::one_of(const std::vector<std::string>& allowed) const {
  if (value_ != nullptr && value_->is_string() &&
      std::find(allowed.begin(), allowed.end(), value_->get<std::string>()) != allowed.end())
    return value_->get<std::string>();
  std::string list;
  for (std::size_t i = 0; i < allowed.size(); ++i)
    list += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + ("\"" + allowed[i] + "\"");
  refuse(list);
}

std::string JsonNode::sha256() const {
  if (value_ == nullptr || !value_->is_string() || value_->get<std::string>().size() != 64 ||
      value_->get<std::string>().find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    refuse("a SHA-256 as 64 hexadecimal digits");
  return lower_hex(value_->get<std::string>());
}

FileRecord JsonNode::file_record() const {
  if (value_ != nullptr && value_->is_null()) return {};
  const JsonNode path = (*this)["path"], hash = (*this)["sha256"];
  if (value_ == nullptr || !value_->is_object() || path.absent() || !path.value().is_string() ||
      (!hash.absent() && !hash.value().is_string()))
    refuse("{\"path\": string, \"sha256\": string} or null");
  return {path.value().get<std::string>(), hash.absent() ? "" : lower_hex(hash.value().get<std::string>())};
}

void JsonNode::object() const {
  if (value_ == nullptr || !value_->is_object()) refuse("an object");
}

std::size_t JsonNode::array_size() const {
  if (value_ == nullptr || !value_->is_array()) refuse("an array");
  return value_->size();
}

std::size_t JsonNode::array_size(std::size_t n) const {
  if (value_ == nullptr || !value_->is_array() || value_->size() != n) refuse("an array of " + std::to_string(n));
  return n;
}

std::vector<double> JsonNode::numbers(bool non_negative) const {
  std::vector<double> v(array_size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = non_negative ? (*this)[i].non_negative() : (*this)[i].number();
  return v;
}

std::vector<std::int64_t> JsonNode::integers() const {
  std::vector<std::int64_t> v(array_size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = (*this)[i].whole_number(INT64_MIN, INT64_MAX);
  return v;
}

std::vector<std::string> JsonNode::strings() const {
  std::vector<std::string> v(array_size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = (*this)[i].string();
  return v;
}

}  // namespace vcloe
