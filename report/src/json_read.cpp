// The typed readers' checked getters (json_read.hpp).
#include "json_read.hpp"

#include <cmath>

#include "vcloe/core/error.hpp"

namespace vcloe::report::detail {

using nlohmann::json;

Node::Node(const json* value, std::string file, std::string key)
    : value_(value), file_(std::move(file)), key_(std::move(key)) {}

Node Node::operator[](const std::string& key) const {
  const std::string path = key_.empty() ? key : key_ + "." + key;
  if (value_ == nullptr || !value_->is_object()) return {nullptr, file_, path};
  const auto it = value_->find(key);
  return {it == value_->end() ? nullptr : &*it, file_, path};
}

Node Node::operator[](std::size_t index) const {
  const std::string path = key_ + "[" + std::to_string(index) + "]";
  if (value_ == nullptr || !value_->is_array() || index >= value_->size()) return {nullptr, file_, path};
  return {&(*value_)[index], file_, path};
}

Node Node::need(const std::string& key) const {
  Node n = (*this)[key];
  if (n.is_null())
    fail(file_, "missing key '" + n.key_ + "' (not written by `vcloe identify` or `vcloe validate --out`, or by an older "
                "vcloe? run it again)");
  return n;
}

void Node::refuse(const std::string& expected) const {
  std::string got = value_ == nullptr ? "nothing" : value_->dump();
  if (got.size() > 40) got = got.substr(0, 40) + "...";
  fail(file_, key_ + ": expected " + expected + ", got " + got);
}

double Node::number() const {
  if (value_ == nullptr || !value_->is_number() || !std::isfinite(value_->get<double>())) refuse("a number");
  return value_->get<double>();
}

double Node::non_negative() const {
  const double v = number();
  if (!(v >= 0)) refuse("a number >= 0");
  return v;
}

double Node::bound() const {
  if (value_ != nullptr && value_->is_null()) return INFINITY;
  return number();
}

double Node::number_or_nan() const {
  if (value_ != nullptr && value_->is_null()) return NAN;
  return number();
}

int Node::integer(int low, int high) const {
  if (value_ == nullptr || !value_->is_number_integer()) refuse("a whole number");
  const auto v = value_->get<std::int64_t>();
  if (v < low || v > high) refuse("a whole number from " + std::to_string(low) + " to " + std::to_string(high));
  return static_cast<int>(v);
}

std::uint64_t Node::unsigned_integer() const {
  if (value_ == nullptr || !value_->is_number_unsigned()) refuse("a whole number >= 0");
  return value_->get<std::uint64_t>();
}

bool Node::boolean() const {
  if (value_ == nullptr || !value_->is_boolean()) refuse("true or false");
  return value_->get<bool>();
}

std::string Node::string() const {
  if (value_ == nullptr || !value_->is_string()) refuse("a string");
  return value_->get<std::string>();
}

std::size_t Node::array_size() const {
  if (value_ == nullptr || !value_->is_array()) refuse("an array");
  return value_->size();
}

std::size_t Node::array_size(std::size_t n) const {
  if (value_ == nullptr || !value_->is_array() || value_->size() != n) refuse("an array of " + std::to_string(n));
  return n;
}

std::vector<double> Node::numbers(bool non_negative) const {
  std::vector<double> v(array_size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = non_negative ? (*this)[i].non_negative() : (*this)[i].number();
  return v;
}

std::vector<std::string> Node::strings() const {
  std::vector<std::string> v(array_size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = (*this)[i].string();
  return v;
}

}  // namespace vcloe::report::detail
