#pragma once
// Small helpers shared by the camera-side commands (calibrate stereo|base, render, measure,
// filter): default config files, transforms as JSON, fixed-point text, images. (File entries
// {path, sha256} for sidecars: vcloe::file_entry, core/trace.hpp.)
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "vcloe/calib/image_pairs.hpp"
#include "vcloe/vision/camera.hpp"
#include "vcloe/vision/pose.hpp"

namespace vcloe::app {

// config/rig.yaml and config/markers.yaml under default_config_dir().
std::string default_rig_file();
std::string default_markers_file();

// {"rotation_vector": [..], "translation": [..]} of a rigid transform.
nlohmann::json transform_json(const vision::Transform& T);

// v with a fixed number of digits after the point.
std::string fixed(double v, int digits);

// Before any pair is measured: every image's file checked (vision::image_file_size) and, where
// its header tells (PNG), its size compared with the rig file's camera — an image of another
// size gave "no valid pose" or "0 of 1 frames valid" without saying why.
void check_image_pairs(const std::vector<calib::ImagePair>& pairs, const vision::StereoRig& rig,
                       const std::string& rig_file);

// One pair read (vision::read_image, as stored), each image's size compared with the rig
// file's camera, and measured.
vision::PoseMeasurement measure_pair(const vision::PosePipeline& pipeline, const calib::ImagePair& pair,
                                     const std::string& rig_file);

}  // namespace vcloe::app
