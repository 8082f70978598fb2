#include "vision_io.hpp"

#include <iomanip>
#include <sstream>

#include "commands.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/vision/image_file.hpp"

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

namespace {

void require_rig_size(const std::string& image, cv::Size size, const vision::Camera& camera, const char* side,
                      const std::string& rig_file) {
  if (size.width != camera.width || size.height != camera.height)
    fail(image, std::to_string(size.width) + "x" + std::to_string(size.height) + " px, but " + rig_file + " gives the " +
                    side + " camera " + std::to_string(camera.width) + "x" + std::to_string(camera.height));
}

}  // namespace

void check_image_pairs(const std::vector<calib::ImagePair>& pairs, const vision::StereoRig& rig,
                       const std::string& rig_file) {
  for (const calib::ImagePair& p : pairs) {
    const auto left = vision::image_file_size(p.left), right = vision::image_file_size(p.right);
    if (left) require_rig_size(p.left, *left, rig.left, "left", rig_file);
    if (right) require_rig_size(p.right, *right, rig.right, "right", rig_file);
  }
}

vision::PoseMeasurement measure_pair(const vision::PosePipeline& pipeline, const calib::ImagePair& pair,
                                     const std::string& rig_file) {
  const cv::Mat left = vision::read_image(pair.left), right = vision::read_image(pair.right);
  require_rig_size(pair.left, left.size(), pipeline.rig().left, "left", rig_file);
  require_rig_size(pair.right, right.size(), pipeline.rig().right, "right", rig_file);
  return pipeline.measure_images(left, right);
}

}  // namespace vcloe::app
