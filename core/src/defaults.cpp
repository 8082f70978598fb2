#include "vcloe/core/defaults.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "vcloe/core/error.hpp"

namespace vcloe::defaults {

std::string config_dir() {
  if (const char* dir = std::getenv("VCLOE_CONFIG_DIR"); dir && *dir) return dir;
  // Installed: share/vcloe/config beside the binary's bin/ (the files installed with it), found
  // from the running binary itself, wherever the installation was moved.
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path installed = (exe.parent_path() / VCLOE_CONFIG_FROM_BINDIR).lexically_normal();
    if (std::filesystem::is_directory(installed, ec)) return installed.string();
  }
  return VCLOE_DEFAULT_CONFIG_DIR;  // a build tree: the source tree's config/
}

std::string config_source() {
  if (const char* dir = std::getenv("VCLOE_CONFIG_DIR"); dir && *dir) return "$VCLOE_CONFIG_DIR";
  return config_dir() == VCLOE_DEFAULT_CONFIG_DIR ? "the source tree vcloe was built from" : "the installation";
}

std::string config_file(const std::string& name) { return config_dir() + "/" + name; }

Vec6d camera_noise_sigma(double position, double angle) {
  return (Vec6d() << position, position, position, angle, angle, angle).finished();
}

std::optional<SettingProblem> camera_noise_problem(double position, double angle) {
  if (!(position >= 0 && position <= kMaxCameraNoisePosition))
    return SettingProblem{"--noise-position", "--noise-position: expected a camera noise sigma in [0, " +
                                                  exact_number(kMaxCameraNoisePosition) + "] m, got " +
                                                  exact_number(position)};
  if (!(angle >= 0 && angle <= kMaxCameraNoiseAngle))
    return SettingProblem{"--noise-angle", "--noise-angle: expected a camera noise sigma in [0, " +
                                               exact_number(kMaxCameraNoiseAngle) + "] rad, got " + exact_number(angle)};
  return std::nullopt;
}

void check_camera_noise(double position, double angle) { throw_if(camera_noise_problem(position, angle), ""); }

Vec6d noise_yardstick(const Vec6d& declared) {
  const Vec6d fallback = camera_noise_sigma();
  Vec6d out = declared;
  for (int c = 0; c < 6; ++c)
    if (!(declared(c) > 0)) out(c) = fallback(c);
  return out;
}

std::string noise_yardstick_note(const Vec6d& declared, const std::string& what) {
  std::string kinds, defaults;
  const char* const name[2] = {"positions", "angles"};
  const char* const unit[2] = {" m", " rad"};
  const double value[2] = {kCameraNoisePosition, kCameraNoiseAngle};
  for (int g = 0; g < 2; ++g)
    if (!(declared.segment<3>(3 * g).minCoeff() > 0)) {
      kinds += std::string(kinds.empty() ? "" : " and ") + name[g];
      defaults += (defaults.empty() ? "" : ", ") + exact_number(value[g]) + unit[g];
    }
  if (kinds.empty()) return "";
  return what + " declares no camera noise on " + kinds + " (0): its ratios are over the default camera noise, " +
         defaults + " (a ratio over 0 is no figure)";
}

std::optional<SettingProblem> centroid_noise_problem(double sigma_px, const std::string& option) {
  if (!(sigma_px >= 0 && sigma_px <= kMaxCentroidNoisePx))
    return SettingProblem{option, option + ": expected a centroid noise sigma in [0, " +
                                      exact_number(kMaxCentroidNoisePx) + "] px, got " + exact_number(sigma_px)};
  return std::nullopt;
}

void check_centroid_noise(double sigma_px, const std::string& option) {
  throw_if(centroid_noise_problem(sigma_px, option), "");
}

std::string software_version() { return VCLOE_VERSION; }

}  // namespace vcloe::defaults
