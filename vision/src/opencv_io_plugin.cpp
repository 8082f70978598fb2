// The plugin vcloe_opencv_io (a CMake MODULE library, loaded by opencv_io.cpp on first use): the
// only code linking opencv_imgcodecs and opencv_videoio, whose 205 shared libraries `vcloe`
// would otherwise resolve at every start (vcloe/vision/opencv_io.hpp says why).
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include <memory>

#include "vcloe/vision/opencv_io.hpp"

namespace vcloe::vision {

struct OpenCvCamera {
  cv::VideoCapture capture;
};

namespace {

cv::Mat decode_gray(const cv::Mat& bytes, bool as_stored) {
  return cv::imdecode(bytes, as_stored ? cv::IMREAD_ANYDEPTH | cv::IMREAD_GRAYSCALE : cv::IMREAD_GRAYSCALE);
}

bool encode_png(const cv::Mat& image, std::vector<unsigned char>& png) { return cv::imencode(".png", image, png); }

// Video4Linux's device `index` (index >= 0), or `name` through Video4Linux only (v4l2) or
// through whichever backend OpenCV finds for it.
OpenCvCamera* open_camera(int index, const std::string& name, bool v4l2) {
  // OpenCV's own "[ WARN … cap_v4l.cpp …]" lines are not for the user: vcloe says what failed.
  cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
  auto c = std::make_unique<OpenCvCamera>();
  const bool ok = index >= 0 ? c->capture.open(index, cv::CAP_V4L2) : c->capture.open(name, v4l2 ? cv::CAP_V4L2 : cv::CAP_ANY);
  return ok ? c.release() : nullptr;
}

bool grab(OpenCvCamera& c) { return c.capture.grab(); }
bool retrieve(OpenCvCamera& c, cv::Mat& frame) { return c.capture.retrieve(frame); }
void close_camera(OpenCvCamera* c) { delete c; }

}  // namespace

}  // namespace vcloe::vision

extern "C" __attribute__((visibility("default"))) const vcloe::vision::OpenCvIoTable* vcloe_opencv_io_table() {
  static const vcloe::vision::OpenCvIoTable table{
      &vcloe::vision::decode_gray,        &vcloe::vision::encode_png, &vcloe::vision::open_camera,
      &vcloe::vision::grab,          &vcloe::vision::retrieve,   &vcloe::vision::close_camera};
  return &table;
}
