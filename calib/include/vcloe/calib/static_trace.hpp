#pragma once
// vcloe/calib/static_trace.hpp — the static-pose trace of a kinematic calibration: one row per
// pose held still (docs/traces.md, "Static-pose trace"), the one writer and the one reader.
//   CSV:      pose, cmd_1..cmd_6 (rad), enc_1..enc_6 (rad, the encoders at rest), x, y, z, alpha,
//             beta, gamma (mean measured pose, m, rad), sd_x..sd_gamma (scatter of its frames),
//             frames, settled_s (when the joints stopped moving after the move, s; NaN unknown)
//   sidecar:  <csv>.meta.json — format, source, software, robot and truth files (SHA-256),
//             csv_sha256, camera_hz, move_s, settle_s, measure_s, seed, noise_sigma; sealed
//             (content_sha256, core/required_sidecar.hpp)
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vcloe/calib/kinematic_calibration.hpp"
#include "vcloe/core/file_record.hpp"
#include "vcloe/core/required_sidecar.hpp"

namespace vcloe::calib {

inline constexpr const char* kStaticTraceFormat = "vcloe-static-poses-1";

struct StaticTraceInfo {
  std::string source = "virtual";          // "virtual" or "rig"
  std::string software;
  std::optional<FileRecord> robot, truth;
  double camera_hz = 0, move_s = 0, settle_s = 0, measure_s = 0;
  std::uint64_t seed = 0;
  std::optional<Vec6d> noise_sigma;        // the virtual camera's per frame (absent on a rig)
};

struct StaticTrace {
  std::vector<Vec6d> command;
  std::vector<StaticPose> poses;           // joints = the encoders at rest
  std::vector<double> settled_s;
  StaticTraceInfo info;
};

// Writes path and path.meta.json atomically (refuses to overwrite without force).
void write_static_trace(const std::string& path, const StaticTrace& trace, bool force);
// Reads both; every problem one vcloe::Error naming file, line and column or key.
// `seal` Adopt reads an unsealed sidecar (only `vcloe seal`, core/required_sidecar.hpp).
StaticTrace read_static_trace(const std::string& path, SidecarSeal seal = SidecarSeal::Required);
// What a static-pose trace's sidecar is, for read_sidecar.
extern const SidecarKind kStaticTraceSidecar;

}  // namespace vcloe::calib
