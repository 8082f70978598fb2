#include "vcloe/vision/opencv_io.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <system_error>
#include <utility>

#include "vcloe/core/error.hpp"

namespace vcloe::vision {

namespace {

// The plugin once loaded, or why it could not be (dlerror's text, kept: it is per thread).
struct LoadedPlugin {
  std::string path;
  void* handle = nullptr;  // kept for the process's life (never dlclose'd)
  const OpenCvIoTable* table = nullptr;
  std::string problem;
};

LoadedPlugin load_plugin() {
  LoadedPlugin p{opencv_io_plugin_path(), nullptr, nullptr, ""};
  // Never closed: the codecs' and cameras' libraries stay for the rest of the process.
  p.handle = ::dlopen(p.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!p.handle) {
    const char* why = ::dlerror();
    p.problem = why ? why : "dlopen failed";
    if (p.problem.rfind(p.path + ": ", 0) == 0) p.problem.erase(0, p.path.size() + 2);  // named once
    return p;
  }
  using Entry = const OpenCvIoTable* (*)();
  const auto entry = reinterpret_cast<Entry>(::dlsym(p.handle, "vcloe_opencv_io_table"));
  if (!entry) {
    const char* why = ::dlerror();
    p.problem = why ? why : "no symbol vcloe_opencv_io_table";
    return p;
  }
  p.table = entry();
  return p;
}

}  // namespace

std::string opencv_io_plugin_path() {
  // Installed: <libdir>/vcloe/ beside the binary's bin/, found from the running binary itself,
  // wherever the installation was moved (as core/defaults.cpp finds the config).
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path installed = (exe.parent_path() / VCLOE_OPENCV_IO_FROM_BINDIR).lexically_normal();
    if (std::filesystem::exists(installed, ec)) return installed.string();
  }
  return VCLOE_OPENCV_IO_BUILT;  // a build tree: the plugin built beside the binary
}

const OpenCvIoTable& opencv_io(const std::string& where, const std::string& doing) {
  static const LoadedPlugin plugin = load_plugin();  // once per process, thread-safe
  if (!plugin.table)
    fail(where, "cannot " + doing + ": OpenCV's image and camera plugin " + plugin.path + " cannot be loaded (" +
                    plugin.problem + ")");
  return *plugin.table;
}

VideoDevice::VideoDevice(int index, const std::string& name, bool v4l2, const std::string& where)
    : io_(&opencv_io(where, "open camera '" + name + "'")), camera_(io_->open_camera(index, name, v4l2)) {}

VideoDevice::~VideoDevice() {
  if (camera_) io_->close_camera(camera_);
}

VideoDevice::VideoDevice(VideoDevice&& other) noexcept
    : io_(other.io_), camera_(std::exchange(other.camera_, nullptr)) {}

}  // namespace vcloe::vision
