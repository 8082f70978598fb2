#include "vcloe/rig/camera.hpp"

#include <algorithm>
#include <memory>

#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/vision/pose.hpp"

namespace vcloe::rig {

std::optional<SettingProblem> CameraOption::problem() const {
  const auto given = [this](const std::string& name) {
    return std::find(stereo_options_given.begin(), stereo_options_given.end(), name) != stereo_options_given.end();
  };
  if (model != "stereo")
    for (const std::string& name : stereo_only_options())
      if (given(name))
        return SettingProblem{name, name + ": applies to --camera stereo only; the " + model + " camera would ignore it"};
  return defaults::centroid_noise_problem(centroid_noise_px, "--centroid-noise-px");
}

void CameraOption::validate(const std::string& where) const { throw_if(problem(), where); }

std::function<void(PoseTrace&)> install_camera(const CameraOption& o, VirtualRun& vo) {
  o.validate();
  if (o.model != "stereo") return [](PoseTrace&) {};
  const std::string rig_file = o.rig.empty() ? defaults::rig_file() : o.rig;
  const std::string markers_file = o.markers.empty() ? defaults::markers_file() : o.markers;
  const vision::StereoRig rig = vision::load_rig(rig_file);
  if (!rig.T_C_O) fail(rig_file, "the stereo camera needs camera_from_base (the virtual rig's truth)");
  auto camera = std::make_shared<vision::StereoCamera>(rig, vision::load_markers(markers_file), o.centroid_noise_px,
                                                       vo.seed);
  vo.camera = [camera](const Vec6d& pose) { return camera->measure_pose(pose); };
  return [camera, o, rig_file, markers_file](PoseTrace& t) {
    t.metadata.camera = CameraRecord{"stereo", o.centroid_noise_px, file_record(rig_file), file_record(markers_file),
                                     camera->frames(), camera->invalid_frames()};
    t.metadata.noise_sigma.reset();  // not used with this camera
  };
}

}  // namespace vcloe::rig
