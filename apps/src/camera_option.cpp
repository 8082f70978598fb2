#include "camera_option.hpp"

#include "commands.hpp"

namespace vcloe::app {

std::vector<CLI::Option*> add_camera_options(CLI::App* cmd, rig::CameraOption& o) {
  cmd->add_option("--camera", o.model,
                  "camera model: gaussian (pose + noise) or stereo (marker centroids + noise through the stereo "
                  "pose pipeline, docs/vision.md)")
      ->check(CLI::IsMember({"gaussian", "stereo"}))
      ->capture_default_str();
  const std::vector<CLI::Option*> stereo_only = {
      cmd->add_option("--centroid-noise-px", o.centroid_noise_px, "stereo camera: centroid noise sigma (px)")
          ->capture_default_str(),
      cmd->add_option("--camera-rig", o.rig, "stereo camera: rig file with camera_from_base (default config/rig.yaml)"),
      cmd->add_option("--camera-markers", o.markers, "stereo camera: marker file (default config/markers.yaml)")};
  for (CLI::Option* opt : stereo_only)
    opt->each([&o, name = opt->get_name()](const std::string&) { o.stereo_options_given.push_back(name); });
  return stereo_only;
}

}  // namespace vcloe::app
