#pragma once
// The names of every file `vcloe study` writes, in one place: the study's own (its tables, the
// excitation optimised once and its logs), each truth's (its steps' outputs and logs), and with
// --slurm the scripts, sbatch's answers and the jobs' logs. The steps that write them take their
// names from here, and so does the one input/output check (study_plan), which declares them all
// before any step runs.
#include <cstdint>
#include <string>
#include <vector>

namespace vcloe::workflow {

// The steps of one truth, each a child process whose output and errors go to <step>.out and
// <step>.err in the truth's directory. The fits from the calibrated file are the same steps with
// kCalibrated after their name.
inline constexpr const char* kTruthStep = "truth";
inline constexpr const char* kRunStep = "run";
inline constexpr const char* kRunPayloadStep = "run-payload";
inline constexpr const char* kIdentifyStep = "identify";
inline constexpr const char* kValidateStep = "validate";
inline constexpr const char* kCalibrated = "-calibrated";

// One truth's directory, DIR/truth-SEED/, and the files in it.
struct TruthFiles {
  std::string dir;  // ends with '/'
  TruthFiles(const std::string& study_dir, std::uint64_t seed)
      : dir(study_dir + "/truth-" + std::to_string(seed) + "/") {}
  std::string truth() const { return dir + "truth.yaml"; }                       // truth random --out
  std::string measured() const { return dir + "measured.csv"; }                  // run --out (a trace)
  std::string measured_payload() const { return dir + "measured-payload.csv"; }  // run with the payload
  std::string model(const std::string& suffix) const { return dir + "identified" + suffix + ".yaml"; }
  std::string log(const std::string& step) const { return dir + step + ".out"; }  // the step's output
  std::string errors(const std::string& step) const { return dir + step + ".err"; }
  // The kinematic calibration's (--realistic): the static poses measured (a trace), the calibrated
  // robot file, its result and its text.
  std::string static_poses() const { return dir + "static.csv"; }
  std::string calibrated() const { return dir + "calibrated.yaml"; }
  std::string calibration() const { return dir + "calibration.json"; }
  std::string calibration_log() const { return dir + "calibrate.out"; }
};

// The study's own files in DIR.
struct StudyFiles {
  std::string dir;
  std::string table() const { return dir + "/study.md"; }
  std::string json() const { return dir + "/study.json"; }
  std::string excitation() const { return dir + "/excitation.yaml"; }  // without --reference
  std::string excite_log() const { return dir + "/excite.out"; }
  std::string excite_errors() const { return dir + "/excite.err"; }
};

// With --slurm: DIR/slurm/ (the scripts, sbatch's answer to each and the jobs' logs) and each
// task's study, DIR/shard-K (one truth each), which the merge job joins into DIR.
struct SlurmFiles {
  std::string dir;
  std::string folder() const { return dir + "/slurm"; }
  std::string array() const { return folder() + "/array.sbatch"; }
  std::string merge() const { return folder() + "/merge.sbatch"; }
  static std::string submitted(const std::string& script) { return script + ".submitted"; }  // sbatch's output
  static std::string refused(const std::string& script) { return script + ".refused"; }      // its errors
  std::string task_logs() const { return folder() + "/truth-%a.out"; }  // sbatch --output: %a the task
  std::string task_log(int k) const { return folder() + "/truth-" + std::to_string(k) + ".out"; }
  std::string merge_log() const { return folder() + "/merge.out"; }
  static constexpr const char* kShard = "/shard-";  // (plain characters: the array script says it too)
  std::string shard(int k) const { return dir + kShard + std::to_string(k); }
};

}  // namespace vcloe::workflow
