#include "vcloe/vision/image_file.hpp"

#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/core/image_bytes.hpp"
#include "vcloe/core/input_file.hpp"
#include "vcloe/vision/camera.hpp"
#include "vcloe/vision/opencv_io.hpp"

namespace vcloe::vision {

namespace {

// The last 12 bytes of every complete PNG: IEND's length 0, its type and its CRC.
constexpr std::array<unsigned char, 12> kPngEnd{0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};

std::uint32_t big_endian(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}

// OpenCV 4.6's imdecode writes a decoder's exception to std::cerr itself (loadsave.cpp), then
// returns an empty image, which read_image names in one line: its text is held back meanwhile.
class CerrHeldBack {
 public:
  CerrHeldBack() : saved_(std::cerr.rdbuf(held_.rdbuf())) {}
  ~CerrHeldBack() { std::cerr.rdbuf(saved_); }
  CerrHeldBack(const CerrHeldBack&) = delete;
  CerrHeldBack& operator=(const CerrHeldBack&) = delete;

 private:
  std::ostringstream held_;
  std::streambuf* saved_;
};

bool is_png(const std::string& head) { return starts_as_png(head); }

// Every chunk of a PNG held in memory lies within it, with its CRC, and IEND is reached
// (core/image_bytes.hpp): libpng prints its own "libpng error: …" line for a chunk that runs
// past the end.
void check_png_chunks(const std::string& path, const std::string& bytes) {
  if (const auto problem = png_problem(bytes)) fail(path, *problem);
}

}  // namespace

std::optional<cv::Size> image_file_size(const std::string& path) {
  require_input_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open for reading");
  std::string head(33, '\0');  // signature, IHDR's length and type, width, height, 5 bytes
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (!is_png(head)) return std::nullopt;
  const auto* h = reinterpret_cast<const unsigned char*>(head.data());
  if (head.size() < 33) fail(path, "truncated PNG (no complete IHDR header)");
  if (big_endian(h + 8) != 13 || std::memcmp(h + 12, "IHDR", 4) != 0) fail(path, "damaged PNG: the first chunk is not IHDR");
  const std::uint32_t w = big_endian(h + 16), hgt = big_endian(h + 20);
  const std::string size = std::to_string(w) + "x" + std::to_string(hgt) + " px";
  if (w == 0 || hgt == 0 || w > 0x7fffffffu || hgt > 0x7fffffffu) fail(path, "damaged PNG header: an image of " + size);
  if (static_cast<double>(w) * hgt > kMaxImagePixels)
    fail(path, "image of " + size + "; at most " + exact_number(kMaxImagePixels / 1e6) + " Mpx");
  std::array<unsigned char, 12> tail{};
  in.clear();
  in.seekg(-static_cast<std::streamoff>(tail.size()), std::ios::end);
  in.read(reinterpret_cast<char*>(tail.data()), tail.size());
  if (!in || tail != kPngEnd) fail(path, "truncated PNG (no IEND chunk)");
  return cv::Size(static_cast<int>(w), static_cast<int>(hgt));
}

cv::Mat read_image(const std::string& path, ImageDepth depth) {
  image_file_size(path);
  // 100 Mpx of 16-bit samples is 200 MB uncompressed; a file above 1 GiB is no camera image.
  const std::string bytes = read_input_file(path, InputKind::Image);
  if (is_png(bytes)) check_png_chunks(path, bytes);
  const OpenCvIoTable& io = opencv_io(path, "decode the image");
  const cv::Mat buffer(1, static_cast<int>(bytes.size()), CV_8U, const_cast<char*>(bytes.data()));
  cv::Mat m;
  try {
    const CerrHeldBack quiet;
    m = io.decode_gray(buffer, depth == ImageDepth::AsStored);
  } catch (const cv::Exception&) {
    m.release();  // OpenCV's text names its own source lines, not the file: said below
  }
  if (m.empty())
    fail(path, "cannot decode the image (expected a PNG, JPEG, TIFF, BMP or PNM file of at most " +
                   exact_number(kMaxImagePixels / 1e6) + " Mpx)");
  return m;
}

}  // namespace vcloe::vision
