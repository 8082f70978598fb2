#pragma once
// The camera-side helpers moved to the libraries: the default rig and marker files to
// core/defaults.hpp, the image-pair checks to calib/measure.hpp. These names remain for
// `vision serve` until it includes those headers itself.
#include <string>

#include "vcloe/calib/measure.hpp"
#include "vcloe/core/defaults.hpp"

namespace vcloe::app {

inline std::string default_rig_file() { return defaults::rig_file(); }
inline std::string default_markers_file() { return defaults::markers_file(); }
using calib::check_image_pairs;
using calib::measure_pair;

}  // namespace vcloe::app
