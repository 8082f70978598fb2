// Specification of vision/image_file.hpp: the one place image files are read, every file checked
// before OpenCV's decoder sees it, every refusal one vcloe::Error naming the file.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <opencv2/imgcodecs.hpp>

#include "vcloe/core/error.hpp"
#include "vcloe/vision/image_file.hpp"

namespace fs = std::filesystem;
using namespace vcloe::vision;

namespace {

fs::path temp_dir() {
  const fs::path d = fs::temp_directory_path() / ("vcloe-image-file-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string png_bytes(const cv::Mat& m) {
  std::vector<uchar> b;
  cv::imencode(".png", m, b);
  return std::string(b.begin(), b.end());
}

void write(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

// The vcloe::Error message of f(), "" if it did not throw one.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const vcloe::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ImageFile, APngIsReadAsStoredOrAsEightBitAndItsSizeKnownFromItsHeader) {
  const fs::path d = temp_dir();
  cv::Mat m(30, 40, CV_16UC1, cv::Scalar(4095));
  write(d / "a.png", png_bytes(m));
  EXPECT_EQ(image_file_size((d / "a.png").string()), cv::Size(40, 30));
  const cv::Mat stored = read_image((d / "a.png").string());
  EXPECT_EQ(stored.type(), CV_16UC1);
  EXPECT_EQ(stored.at<std::uint16_t>(3, 4), 4095);
  EXPECT_EQ(read_image((d / "a.png").string(), ImageDepth::EightBit).type(), CV_8UC1);
  cv::imwrite((d / "a.bmp").string(), cv::Mat(30, 40, CV_8UC1, cv::Scalar(7)));
  EXPECT_EQ(image_file_size((d / "a.bmp").string()), std::nullopt);  // known once decoded
  EXPECT_EQ(read_image((d / "a.bmp").string()).size(), cv::Size(40, 30));
  fs::remove_all(d);
}

TEST(ImageFile, WhatADecoderWouldChokeOnIsRefusedNamingTheFile) {
  const fs::path d = temp_dir();
  const std::string good = png_bytes(cv::Mat(300, 400, CV_16UC1, cv::Scalar(100)));
  // A header claiming 10^10 px (OpenCV asserted, exit 3): width and height at offsets 16 and 20.
  std::string big = good;
  big.replace(16, 8, std::string("\x00\x01\x86\xa0\x00\x01\x86\xa0", 8));
  write(d / "big.png", big);
  write(d / "cut.png", good.substr(0, good.size() / 2));  // libpng printed "Read Error" itself
  write(d / "noise.png", "not an image at all");
  ASSERT_EQ(::mkfifo((d / "fifo.png").c_str(), 0600), 0);
  const std::pair<std::string, std::string> cases[] = {
      {"big.png", "big.png: image of 100000x100000 px; at most 100 Mpx"},
      {"cut.png", "cut.png: truncated PNG (no IEND chunk)"},
      {"noise.png", "noise.png: cannot decode the image (expected a PNG, JPEG, TIFF, BMP or PNM file"},
      {"fifo.png", "fifo.png: is a device, pipe or socket, expected a regular file"},
      {"none.png", "none.png: file not found"}};
  for (const auto& [name, expected] : cases) {
    const fs::path file = d / name;  // a local: clang 14 cannot capture a structured binding
    const std::string e = error_of([&] { read_image(file.string()); });
    EXPECT_NE(e.find(expected), std::string::npos) << name << ": " << e;
  }
  // A chunk running past the end, though the file still ends in IEND.
  std::string spliced = good.substr(0, 50) + good.substr(good.size() - 12);
  write(d / "spliced.png", spliced);
  EXPECT_NE(error_of([&] { read_image((d / "spliced.png").string()); }).find("runs past the end of the file"),
            std::string::npos);
  fs::remove_all(d);
}

TEST(ImageFile, ADamagedByteIsNamedByItsChunkAndNoDecoderPrintsALineOfItsOwn) {
  const fs::path d = temp_dir();
  const std::string good = png_bytes(cv::Mat(30, 40, CV_8UC1, cv::Scalar(9)));
  // Byte 45 lies in IDAT's compressed data (IHDR ends at 33, IDAT's data begins at 41): libpng
  // inflates before it checks the CRC, so it printed "libpng error: IDAT: incorrect data check"
  // (or "CRC error") beside ours.
  ASSERT_EQ(good.substr(37, 4), "IDAT");
  std::string damaged = good;
  damaged[45] = static_cast<char>(damaged[45] ^ 0x5a);
  write(d / "rot.png", damaged);
  testing::internal::CaptureStderr();
  const std::string e = error_of([&] { read_image((d / "rot.png").string()); });
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_NE(e.find("rot.png: damaged PNG: the chunk 'IDAT' at byte 33 fails its CRC check"), std::string::npos) << e;
  fs::remove_all(d);
}

TEST(ImageFile, AnImageOpenCVCannotDecodeIsOneErrorWithoutOpenCVsOwnLine) {
  // OpenCV's imdecode printed "imdecode_(''): can't read data: … bitstrm.cpp:102 …" itself.
  const fs::path d = temp_dir();
  write(d / "cut.pgm", "P5\n800 600\n255\n" + std::string(100, '\0'));
  testing::internal::CaptureStderr();
  const std::string e = error_of([&] { read_image((d / "cut.pgm").string()); });
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_NE(e.find("cut.pgm: cannot decode the image"), std::string::npos) << e;
  testing::internal::CaptureStderr();
  std::cerr << "after\n";  // std::cerr writes again once read_image returns
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "after\n");
  fs::remove_all(d);
}
