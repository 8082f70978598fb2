#pragma once
// Small helpers shared by the camera-side commands (calibrate stereo|base, render, measure,
// filter): default config files, transforms as JSON, fixed-point text, images. (File entries
// {path, sha256} for sidecars: vcloe::file_entry, core/trace.hpp.)
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <string>

#include "vcloe/vision/camera.hpp"

namespace vcloe::app {

// config/rig.yaml and config/markers.yaml under default_config_dir().
std::string default_rig_file();
std::string default_markers_file();

// {"rotation_vector": [..], "translation": [..]} of a rigid transform.
nlohmann::json transform_json(const vision::Transform& T);

// v with a fixed number of digits after the point.
std::string fixed(double v, int digits);

// Images read as stored (8- or 16-bit grayscale); a vcloe::Error naming the file if unreadable.
cv::Mat read_gray(const std::string& path);


}  // namespace vcloe::app
