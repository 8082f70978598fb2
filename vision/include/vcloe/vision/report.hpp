#pragma once
// vcloe/vision/report.hpp — the camera side's part of a workflow report (core/report.hpp):
// rigid transforms as JSON.
#include <nlohmann/json.hpp>

#include "vcloe/core/report.hpp"
#include "vcloe/vision/camera.hpp"

namespace vcloe::vision {

// {"rotation_vector": [..], "translation": [..]} of a rigid transform.
nlohmann::json transform_json(const Transform& T);

}  // namespace vcloe::vision
