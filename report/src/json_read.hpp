#pragma once
// The typed readers' one way through a JSON document (identification.cpp, validation.cpp): a
// value together with where it is — the file and the key path ("parameters[3].value") — and
// getters that check its type, length and range, refusing anything else as a one-line
// vcloe::Error naming the file and the key.
#include <array>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace vcloe::report::detail {

class Node {
 public:
  Node(const nlohmann::json* value, std::string file, std::string key);
  static Node root(const nlohmann::json& document, const std::string& file) { return {&document, file, ""}; }

  Node operator[](const std::string& key) const;  // a member (absent if missing or not an object)
  Node operator[](std::size_t index) const;       // an element (absent if out of range)
  // A top-level key that must be there: missing or null is refused as written by another program.
  Node need(const std::string& key) const;

  bool absent() const { return value_ == nullptr; }
  bool is_null() const { return value_ == nullptr || value_->is_null(); }
  const nlohmann::json& value() const { return *value_; }  // only when !absent()
  const std::string& file() const { return file_; }
  const std::string& key() const { return key_; }
  [[noreturn]] void refuse(const std::string& expected) const;  // "<file>: <key>: expected ..., got ..."

  double number() const;                         // any finite JSON number
  double non_negative() const;                   // a number >= 0
  double bound() const;                          // a number, or null: +infinity (an unbounded interval)
  double number_or_nan() const;                  // a number, or null: NaN (written for a NaN)
  int integer(int low, int high) const;          // a whole number in [low, high]
  std::uint64_t unsigned_integer() const;
  bool boolean() const;
  std::string string() const;
  std::size_t array_size() const;                // an array; its length
  std::size_t array_size(std::size_t n) const;   // an array of exactly n elements
  std::vector<double> numbers(bool non_negative = false) const;
  std::vector<std::string> strings() const;
  template <std::size_t N>
  std::array<double, N> fixed(bool non_negative = false) const {
    array_size(N);
    std::array<double, N> a{};
    for (std::size_t i = 0; i < N; ++i) a[i] = non_negative ? (*this)[i].non_negative() : (*this)[i].number();
    return a;
  }

 private:
  const nlohmann::json* value_;
  std::string file_, key_;
};

}  // namespace vcloe::report::detail
