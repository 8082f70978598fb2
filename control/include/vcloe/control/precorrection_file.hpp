#pragma once
// vcloe/control/precorrection_file.hpp — the pre-corrected command as a file (docs/control.md):
// a CSV `t,cmd_theta1,...,cmd_theta6` with one row per controller tick (s, rad), and a JSON
// sidecar `<file>.meta.json` recording what it was made from — the model, the robot file and the
// reference (absolute path and SHA-256 of the bytes parsed, core/file_record.hpp), the
// experiment, the controller rate — and the CSV's SHA-256. `vcloe run` and `vcloe simulate`
// consume it with --precorrection; a file made for another reference, rate or robot is refused.
#include <optional>
#include <string>
#include <vector>

#include "vcloe/core/file_record.hpp"
#include "vcloe/core/rotation.hpp"

namespace vcloe::control {

inline constexpr const char* kPrecorrectionFormat = "vcloe precorrection 1";

// The loop a command is meant to run in (sidecar key `loop`): inside the visual servo (what
// `vcloe precorrect` writes, and `vcloe learn --loop servo`), or on the drives' loop alone, the
// outer gains zero (`vcloe learn --loop drives`: the command learnt with the camera only measuring).
inline constexpr const char* kLoopServo = "servo";
inline constexpr const char* kLoopDrives = "drives";

// What made the command (sidecar key `kind`): a model's pre-correction (`vcloe precorrect`; a
// sidecar without the key, written before it was recorded, reads as this), or learnt by trials on
// a virtual robot (`vcloe learn`: its sidecar also records that robot's truth file, `truth`).
// `vcloe report` takes a run of the one as --precorrected and of the other as --learnt, never the
// reverse; a learnt command drives only the virtual robot it was learnt on.
inline constexpr const char* kKindPrecorrection = "precorrection";
inline constexpr const char* kKindLearnt = "learnt";

struct PrecorrectionFile {
  double controller_hz = 0;
  std::string loop = kLoopServo;  // kLoopServo or kLoopDrives; absent from a sidecar: servo
  std::string kind = kKindPrecorrection;  // kKindPrecorrection or kKindLearnt
  FileRecord truth;                       // learnt: the virtual robot its trials ran on (none otherwise)
  std::vector<Vec6d> command;  // q_c(t_k), k = 0 ... (t_k = k / controller_hz)
  FileRecord model, robot, reference, experiment;  // experiment: none for the default
  std::string software_version;
};

// Writes the CSV and its sidecar as one (the sidecar, which records the CSV's hash, first).
void write_precorrection(const std::string& path, const PrecorrectionFile& file, bool force);
// Reads both; every problem is one vcloe::Error naming the file, line and column or key.
PrecorrectionFile read_precorrection(const std::string& path);

// What a run needs to hold against a pre-correction: the reference it was made for (SHA-256 of
// the reference file the run read), the controller rate, enough ticks. Throws naming the file.
void check_precorrection_for(const PrecorrectionFile& file, const std::string& path, const std::string& reference_file,
                             double controller_hz, int ticks);

}  // namespace vcloe::control
