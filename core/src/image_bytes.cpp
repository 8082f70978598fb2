// Whole images (image_bytes.hpp).
#include "vcloe/core/image_bytes.hpp"

#include <zlib.h>

#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace vcloe {

namespace {

constexpr std::array<unsigned char, 8> kPngSignature{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

std::uint32_t be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}

// A chunk type as text; a type of other bytes than letters (a damaged file) in hex.
std::string chunk_type_text(const unsigned char* type) {
  std::string s;
  for (int i = 0; i < 4; ++i) {
    if (!std::isalpha(type[i])) {
      static const char* hex = "0123456789abcdef";
      s = "0x";
      for (int j = 0; j < 4; ++j) (s += hex[type[j] >> 4]) += hex[type[j] & 15];
      return s;
    }
    s += static_cast<char>(type[i]);
  }
  return s;
}

// The bytes without trailing white space.
std::string_view trimmed(const std::string& bytes) {
  std::size_t n = bytes.size();
  while (n > 0 && std::isspace(static_cast<unsigned char>(bytes[n - 1]))) --n;
  return std::string_view(bytes).substr(0, n);
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

bool starts_as_png(const std::string& bytes) {
  return bytes.size() >= kPngSignature.size() && std::memcmp(bytes.data(), kPngSignature.data(), kPngSignature.size()) == 0;
}

std::optional<std::string> png_problem(const std::string& bytes) {
  if (!starts_as_png(bytes)) return "not a PNG (no PNG signature)";
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  for (std::size_t at = kPngSignature.size(); at + 12 <= bytes.size();) {
    const std::uint64_t length = be32(b + at);
    if (at + 12 + length > bytes.size())
      return "damaged PNG: the chunk at byte " + std::to_string(at) + " runs past the end of the file";
    const auto crc = crc32(crc32(0L, Z_NULL, 0), b + at + 4, static_cast<uInt>(4 + length));
    if (crc != be32(b + at + 8 + length))
      return "damaged PNG: the chunk '" + chunk_type_text(b + at + 4) + "' at byte " + std::to_string(at) +
             " fails its CRC check";
    if (std::memcmp(b + at + 4, "IEND", 4) == 0) return std::nullopt;
    at += 12 + length;
  }
  return "truncated PNG (no IEND chunk)";
}

std::optional<std::string> image_problem(const std::string& bytes, const std::string& extension) {
  if (bytes.empty()) return "an empty file";
  if (extension == ".png") return png_problem(bytes);
  if (extension == ".svg") {
    if (!ends_with(trimmed(bytes), "</svg>")) return "truncated SVG (no closing </svg>)";
    return std::nullopt;
  }
  if (extension == ".pdf") {
    if (bytes.rfind("%PDF-", 0) != 0) return "not a PDF (no %PDF- header)";
    if (!ends_with(trimmed(bytes), "%%EOF")) return "truncated PDF (no %%EOF marker at its end)";
    return std::nullopt;
  }
  return "no check for images of extension '" + extension + "'";
}

}  // namespace vcloe
