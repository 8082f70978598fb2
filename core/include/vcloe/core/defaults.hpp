#pragma once
// vcloe/core/defaults.hpp — the defaults every command shares, each written once: where the
// default config files are ($VCLOE_CONFIG_DIR, the installation's, else the source tree's), the virtual
// camera's noise and its bounds, and the software version sidecars record.
#include <string>

#include "vcloe/core/settings.hpp"
#include "vcloe/core/rotation.hpp"

namespace vcloe::defaults {

// The one place the default config files are found: $VCLOE_CONFIG_DIR if set and not empty;
// else the installation's share/vcloe/config beside the running binary's bin/ (`cmake --install`,
// found through /proc/self/exe), if there; else the source tree the binary was built from
// (a build tree's binary). config_file(name) is a file in it; config_source() says which of the
// three it is ("$VCLOE_CONFIG_DIR", "the installation", "the source tree vcloe was built from").
std::string config_dir();
std::string config_source();
std::string config_file(const std::string& name);

// The default config files, in config_dir().
inline std::string robot_file() { return config_file("robot.yaml"); }          // the twin's priors
inline std::string truth_file() { return config_file("truth.yaml"); }          // the virtual robot's truth
inline std::string experiment_file() { return config_file("experiment.yaml"); }
inline std::string reference_file() { return config_file("reference.yaml"); }
inline std::string excitation_file() { return config_file("excitation.yaml"); }
inline std::string identify_file() { return config_file("identify.yaml"); }
inline std::string rig_file() { return config_file("rig.yaml"); }              // the stereo rig
inline std::string markers_file() { return config_file("markers.yaml"); }

// The virtual camera's Gaussian pose noise: sigma per position channel (m) and per angle
// channel (rad), and the most a command accepts (1e300 made the engine diverge; a noise-free
// camera, 0, is allowed).
inline constexpr double kCameraNoisePosition = 2e-5, kCameraNoiseAngle = 5e-5;
inline constexpr double kMaxCameraNoisePosition = 0.01, kMaxCameraNoiseAngle = 0.1;
// [position x3, angle x3] as the loop's noise model takes it.
Vec6d camera_noise_sigma(double position = kCameraNoisePosition, double angle = kCameraNoiseAngle);
// Both sigmas within [0, max]; the problem (core/settings.hpp) or a vcloe::Error naming
// --noise-position or --noise-angle.
std::optional<SettingProblem> camera_noise_problem(double position, double angle);
void check_camera_noise(double position, double angle);
// The camera noise a figure is divided by (an RMS "over the noise"): the declared one, with the
// default's channel for each channel declared 0 (a noise-free virtual camera, `--noise-* 0`: a
// ratio over 0 is inf or nan, never a figure). The one yardstick of learn, report and identify.
Vec6d noise_yardstick(const Vec6d& declared);
// Said where a yardstick replaced a declared 0 ("" when none did): "`what` declares no camera
// noise on positions (0 m): its ratios are over the default camera noise, 2e-05 m".
std::string noise_yardstick_note(const Vec6d& declared, const std::string& what);

// The stereo camera's marker-centroid noise sigma (px) and its bound; a vcloe::Error naming
// `option` outside [0, kMaxCentroidNoisePx].
inline constexpr double kCentroidNoisePx = 0.05, kMaxCentroidNoisePx = 10;
std::optional<SettingProblem> centroid_noise_problem(double sigma_px, const std::string& option);
void check_centroid_noise(double sigma_px, const std::string& option);

// The joint-rate limit, in one place. kMaxJointVelocity: what every reference is checked
// against (excitation::MotionLimits, `trajectory check`). kMaxCommandSpeed: the robot's rate
// limit (bridge::SafetyLimits, robot serve --max-command-speed), a speed over a camera period:
// a command stream at most that fast is applied untouched, so a reference that passes the check
// (with the controller's corrections on top, up to the difference) is never held back
// (docs/protocol.md, "The rate limit"; session 20's probe, class R).
inline constexpr double kMaxJointVelocity = 3.0;  // rad/s
inline constexpr double kMaxCommandSpeed = 10.0;  // rad/s
static_assert(kMaxCommandSpeed >= kMaxJointVelocity, "the robot must pass every reference the check passes");

// This build's version (the project's, CMakeLists.txt), as sidecars record it.
std::string software_version();

}  // namespace vcloe::defaults
