// The typed readers' one way through a JSON document vcloe reads back (trace sidecars,
// identification reports, validation and study results): a value together with where it is —
// the file and the key path ("parameters[3].value", "camera.frames") — and getters that check
// its type, length and range. Anything else is refused as one vcloe::Error line
//   <file>: key '<path>': expected <what>, got <value>
// (the value cut at 40 characters). A getter never throws the JSON library's own exceptions.
// Whole numbers are accepted as written by another tool too (2.0 for 2).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "vcloe/core/file_record.hpp"

namespace vcloe {

class JsonNode {
 public:
  // The document's root. `missing_hint` follows the message of a required key that is missing
  // (for a file vcloe wrote: which command writes it).
  static JsonNode root(const nlohmann::json& document, const std::string& file, const std::string& missing_hint = "");

  JsonNode operator[](const std::string& key) const;  // a member (absent if missing or not an object)
  JsonNode operator[](std::size_t index) const;       // an element (absent if out of range)
  JsonNode need(const std::string& key) const;        // a member that must be there and not null
  JsonNode present(const std::string& key) const;     // a member that must be there (null allowed)

  bool absent() const { return value_ == nullptr; }
  bool is_null() const { return value_ == nullptr || value_->is_null(); }
  const nlohmann::json& value() const { return *value_; }  // only when !absent()
  const std::string& file() const { return file_; }
  const std::string& key() const { return key_; }
  [[noreturn]] void refuse(const std::string& expected) const;

  double number() const;                     // any finite number
  double non_negative() const;               // a number >= 0
  double positive() const;                   // a number > 0
  double bound() const;                      // a number, or null: +infinity (an unbounded interval)
  double number_or_nan() const;              // a number, or null or NaN: NaN (JSON writes a NaN as null)
  template <class Int>
  Int integer(Int low, Int high) const {  // a whole number in [low, high]
    return static_cast<Int>(whole_number(low, high));
  }
  std::int64_t count() const { return whole_number(0, INT64_MAX); }  // a whole number >= 0
  std::uint64_t unsigned_integer() const;    // a whole number from 0 to 2^64 - 2
  bool boolean() const;
  std::string string() const;
  std::string one_of(const std::vector<std::string>& allowed) const;  // a string from the list
  std::string sha256() const;                // 64 hexadecimal digits, returned in lower case
  FileRecord file_record() const;            // {"path": string, "sha256": string}, or null (none); hash lower case
  void object() const;                       // refuses anything but an object
  std::size_t array_size() const;            // an array; its length
  std::size_t array_size(std::size_t n) const;  // an array of exactly n elements
  std::vector<double> numbers(bool non_negative = false) const;
  std::vector<std::int64_t> integers() const;
  std::vector<std::string> strings() const;
  template <std::size_t N>
  std::array<double, N> fixed(bool non_negative = false) const {
    array_size(N);
    std::array<double, N> a{};
    for (std::size_t i = 0; i < N; ++i) a[i] = non_negative ? (*this)[i].non_negative() : (*this)[i].number();
    return a;
  }

 private:
  std::int64_t whole_number(std::int64_t low, std::int64_t high) const;
  JsonNode(const nlohmann::json* value, std::string file, std::string key, std::string hint);
  const nlohmann::json* value_;
  std::string file_, key_, hint_;
};

}  // namespace vcloe
