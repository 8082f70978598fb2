#include "vcloe/core/defaults.hpp"

#include <cstdlib>

#include "vcloe/core/error.hpp"

namespace vcloe::defaults {

std::string config_dir() {
  if (const char* dir = std::getenv("VCLOE_CONFIG_DIR"); dir && *dir) return dir;
  return VCLOE_DEFAULT_CONFIG_DIR;
}

std::string config_file(const std::string& name) { return config_dir() + "/" + name; }

Vec6d camera_noise_sigma(double position, double angle) {
  return (Vec6d() << position, position, position, angle, angle, angle).finished();
}

void check_camera_noise(double position, double angle) {
  if (!(position >= 0 && position <= kMaxCameraNoisePosition))
    fail("--noise-position", "expected a camera noise sigma in [0, " + exact_number(kMaxCameraNoisePosition) +
                                 "] m, got " + exact_number(position));
  if (!(angle >= 0 && angle <= kMaxCameraNoiseAngle))
    fail("--noise-angle", "expected a camera noise sigma in [0, " + exact_number(kMaxCameraNoiseAngle) + "] rad, got " +
                              exact_number(angle));
}

void check_centroid_noise(double sigma_px, const std::string& option) {
  if (!(sigma_px >= 0 && sigma_px <= kMaxCentroidNoisePx))
    fail(option, "expected a centroid noise sigma in [0, " + exact_number(kMaxCentroidNoisePx) + "] px, got " +
                     exact_number(sigma_px));
}

std::string software_version() { return VCLOE_VERSION; }

}  // namespace vcloe::defaults
