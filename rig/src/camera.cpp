#include "vcloe/rig/camera.hpp"

#include <algorithm>
#include <memory>

#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/vision/pose.hpp"

namespace vcloe::rig {

void check_camera_noise(double position, double angle) {
  if (!(position >= 0 && position <= 0.01))
    fail("--noise-position", "expected a camera noise sigma in [0, 0.01] m, got " + exact_number(position));
  if (!(angle >= 0 && angle <= 0.1))
    fail("--noise-angle", "expected a camera noise sigma in [0, 0.1] rad, got " + exact_number(angle));
}

void CameraOption::validate() const {
  const auto given = [this](const std::string& name) {
    return std::find(stereo_options_given.begin(), stereo_options_given.end(), name) != stereo_options_given.end();
  };
  if (model != "stereo")
    for (const std::string& name : stereo_only_options())
      if (given(name)) fail(name, "applies to --camera stereo only; the " + model + " camera would ignore it");
  if (!(centroid_noise_px >= 0 && centroid_noise_px <= 10))
    fail("--centroid-noise-px", "expected a centroid noise sigma in [0, 10] px, got " + exact_number(centroid_noise_px));
}

std::function<void(PoseTrace&)> install_camera(const CameraOption& o, VirtualRun& vo) {
  o.validate();
  if (o.model != "stereo") return [](PoseTrace&) {};
  const std::string rig_file = o.rig.empty() ? o.config_dir + "/rig.yaml" : o.rig;
  const std::string markers_file = o.markers.empty() ? o.config_dir + "/markers.yaml" : o.markers;
  const vision::StereoRig rig = vision::load_rig(rig_file);
  if (!rig.T_C_O) fail(rig_file, "the stereo camera needs camera_from_base (the virtual rig's truth)");
  auto camera = std::make_shared<vision::StereoCamera>(rig, vision::load_markers(markers_file), o.centroid_noise_px,
                                                       vo.seed);
  vo.camera = [camera](const Vec6d& pose) { return camera->measure_pose(pose); };
  return [camera, o, rig_file, markers_file](PoseTrace& t) {
    t.metadata["camera"] = {{"model", "stereo"},
                            {"centroid_noise_px", o.centroid_noise_px},
                            {"rig", file_entry(rig_file)},
                            {"markers", file_entry(markers_file)},
                            {"frames", camera->frames()},
                            {"invalid_frames", camera->invalid_frames()}};
    t.metadata.erase("noise_sigma");  // not used with this camera
  };
}

}  // namespace vcloe::rig
