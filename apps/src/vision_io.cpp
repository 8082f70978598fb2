#include "vision_io.hpp"

#include <iomanip>
#include <opencv2/imgcodecs.hpp>
#include <sstream>

#include "commands.hpp"
#include "vcloe/core/error.hpp"

namespace vcloe::app {

std::string default_rig_file() { return default_config_dir() + "/rig.yaml"; }
std::string default_markers_file() { return default_config_dir() + "/markers.yaml"; }

nlohmann::json transform_json(const vision::Transform& T) {
  const Vec3d r = vision::rotation_vector(T.linear());
  const Vec3d t = T.translation();
  return {{"rotation_vector", {r.x(), r.y(), r.z()}}, {"translation", {t.x(), t.y(), t.z()}}};
}

std::string fixed(double v, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << v;
  return o.str();
}

cv::Mat read_gray(const std::string& path) {
  cv::Mat m = cv::imread(path, cv::IMREAD_ANYDEPTH | cv::IMREAD_GRAYSCALE);
  if (m.empty()) fail(path, "cannot read the image");
  return m;
}

}  // namespace vcloe::app
