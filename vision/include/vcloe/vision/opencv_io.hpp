#pragma once
// vcloe/vision/opencv_io.hpp — OpenCV's image codecs and cameras, loaded on first use from a
// plugin of ours (vcloe_opencv_io, vision/src/opencv_io_plugin.cpp): the one code linking
// opencv_imgcodecs and opencv_videoio.
//
// Why: those two libraries pull in 205 of the 265 shared libraries `vcloe` loaded (FFmpeg,
// GStreamer, GDAL, ...), whose symbols the dynamic linker resolved at every start: 0.30 CPU-s for
// `vcloe --help`, mostly in the dynamic linker, 0.024 CPU-s without them (docs/architecture.md,
// "OpenCV's codecs and cameras: a plugin"). Loaded here, once per process and only by a command
// that reads, writes or grabs an image, never unloaded.
//
// Where: the installation's <libdir>/vcloe/ beside the binary's bin/ (found from the running
// binary, like the default config), else the build tree the binary was built in. A plugin that
// cannot be loaded is a vcloe::Error naming what was being read, written or opened and the
// plugin's path with the loader's reason: never a crash.
#include <opencv2/core.hpp>
#include <string>
#include <vector>

namespace vcloe::vision {

struct OpenCvCamera;  // a cv::VideoCapture, inside the plugin

// The plugin's table (its one extern "C" entry, vcloe_opencv_io_table, returns it). The plugin
// and the binary are built together from one tree by one compiler: C++ types cross freely.
struct OpenCvIoTable {
  // cv::imdecode (PNG, JPEG, TIFF, BMP, PNM) to grayscale, of the depth stored (8 or 16 bit;
  // as_stored) or 8-bit: an empty image for bytes it cannot decode; a decoder's cv::Exception
  // passes through.
  cv::Mat (*decode_gray)(const cv::Mat& bytes, bool as_stored);
  // cv::imencode(".png"): false if the image cannot be encoded.
  bool (*encode_png)(const cv::Mat& image, std::vector<unsigned char>& png);
  // A camera (nullptr if it cannot be opened; OpenCV's log silenced first): Video4Linux's
  // device `index` if index >= 0, else `name` through Video4Linux only (v4l2) or through the
  // backend OpenCV finds for it (a GStreamer pipeline, a stream URL).
  OpenCvCamera* (*open_camera)(int index, const std::string& name, bool v4l2);
  bool (*grab)(OpenCvCamera&);
  bool (*retrieve)(OpenCvCamera&, cv::Mat& frame);
  void (*close_camera)(OpenCvCamera*);
};

// The path the plugin is loaded from (installed, else the build tree's).
std::string opencv_io_plugin_path();

// The plugin's table, loaded on the first call (thread-safe); a plugin that cannot be loaded is
// a vcloe::Error "<where>: cannot <doing>: the plugin <path> cannot be loaded (<reason>)".
const OpenCvIoTable& opencv_io(const std::string& where, const std::string& doing);

// One camera of the plugin, closed by its destructor.
class VideoDevice {
 public:
  // OpenCvIoTable::open_camera's camera; throws vcloe::Error naming `name` under `where` if the
  // plugin cannot be loaded; is_open() tells whether the camera itself opened.
  VideoDevice(int index, const std::string& name, bool v4l2, const std::string& where);
  ~VideoDevice();
  VideoDevice(VideoDevice&& other) noexcept;
  VideoDevice& operator=(VideoDevice&&) = delete;
  VideoDevice(const VideoDevice&) = delete;
  VideoDevice& operator=(const VideoDevice&) = delete;

  bool is_open() const { return camera_ != nullptr; }
  bool grab() { return io_->grab(*camera_); }
  bool retrieve(cv::Mat& frame) { return io_->retrieve(*camera_, frame); }

 private:
  const OpenCvIoTable* io_;
  OpenCvCamera* camera_;
};

}  // namespace vcloe::vision
