#include "vcloe/vision/report.hpp"

namespace vcloe::vision {

nlohmann::json transform_json(const Transform& T) {
  const Vec3d r = rotation_vector(T.linear());
  const Vec3d t = T.translation();
  return {{"rotation_vector", {r.x(), r.y(), r.z()}}, {"translation", {t.x(), t.y(), t.z()}}};
}

}  // namespace vcloe::vision
