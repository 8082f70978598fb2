// Image files (docs/vision.md, "Images"): vision::read_image, our PNG header and chunk checks
// before OpenCV decodes. The input is written to one temporary file (read_image reads a path).
// OpenCV's own decoders are bounded to 16 Mpx here so that a JPEG or PNM header claiming a
// large image costs milliseconds, not the gigabyte OpenCV's default limit would allow.
#include <unistd.h>

#include <fstream>

#include "fuzz_support.hpp"
#include "vcloe/vision/image_file.hpp"

namespace {
std::string image_path;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("OPENCV_IO_MAX_IMAGE_PIXELS", "16777216", 1);
  char name[] = "/tmp/vcloe-fuzz-image-XXXXXX";
  const int fd = mkstemp(name);
  if (fd < 0) vcloe::fuzz::finding("cannot create a temporary file");
  close(fd);
  image_path = name;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  {
    std::ofstream out(image_path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  const auto image = vcloe::fuzz::read_or_refuse(image_path, [&] { return vcloe::vision::read_image(image_path); });
  if (image && (image->empty() || image->channels() != 1)) vcloe::fuzz::finding("read_image returned no grayscale image");
  return 0;
}
