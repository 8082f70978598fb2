#pragma once
// What every fuzz target holds a reader to (docs/robustness.md, "Fuzzing"): on any input it
// returns a value or refuses with one vcloe::Error whose message is one line naming the input.
// Any other exception escapes LLVMFuzzerTestOneInput and aborts, and so does a malformed
// refusal or a written-back file that does not read back the same: libFuzzer reports each as a
// crash and keeps the input. ASan and UBSan report memory errors, undefined behaviour, leaks.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "vcloe/core/error.hpp"

namespace vcloe::fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "vcloe fuzz finding: %s\n", what.c_str());
  std::abort();
}

// The value `read()` returns, or nothing when it refused correctly.
template <typename Read>
auto read_or_refuse(const std::string& name, Read&& read) -> std::optional<decltype(read())> {
  try {
    return read();
  } catch (const vcloe::Error& e) {
    const std::string m = e.what();
    if (m.find_first_of("\n\r") != std::string::npos || m.find(name) == std::string::npos)
      finding("a refusal must be one line naming " + name + ", got: " + m);
    return std::nullopt;
  }
}

// An accepted value written back by `write` must read back (`read` of the text) to a value
// `same` as it: what vcloe writes, vcloe reads. By default the same means writing the same text.
template <typename Value, typename Read, typename Write, typename Same>
void check_round_trip(const Value& value, const std::string& name, Read&& read, Write&& write, Same&& same) {
  const std::string once = write(value);
  const auto back = read_or_refuse(name, [&] { return read(once); });
  if (!back) finding("the written file is refused when read back:\n" + once);
  if (!same(value, *back))
    finding("the written file reads back different:\n" + once + "\n--- written again:\n" + write(*back));
}

template <typename Value, typename Read, typename Write>
void check_round_trip(const Value& value, const std::string& name, Read&& read, Write&& write) {
  check_round_trip(value, name, read, write, [&](const Value& a, const Value& b) { return write(a) == write(b); });
}

}  // namespace vcloe::fuzz
