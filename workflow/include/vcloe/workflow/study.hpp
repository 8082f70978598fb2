#pragma once
// `vcloe study`: the identification checked on virtual robots it was not tuned on
// (docs/identification.md, "Truths it was not tuned on"). Per truth, each step the command a
// user would type, run as a child process with its output in DIR/truth-SEED/: `truth random`,
// `run` without and with the known payload, `identify`, `validate` on fresh trajectories; with
// --realistic also the kinematic calibration (in this process) and `identify` and `validate`
// from the calibrated file beside those from the drawn one (docs/calibration.md, "The chain"). Then
// one row per truth and the coverage of the reported sigma over all (vcloe/report/study.hpp),
// printed and written to DIR/study.json and DIR/study.md. A study too large for one machine
// runs as shards (`--shard K/N`: the truths k with k mod N = K - 1, one process each, e.g. a
// Slurm job array: `vcloe study --slurm`, study_slurm.hpp) whose directories `study merge` joins.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vcloe/core/output_file.hpp"
#include "vcloe/core/settings.hpp"
#include "vcloe/hw/truth_family.hpp"
#include "vcloe/report/study.hpp"
#include "vcloe/workflow/calibrate_kinematics.hpp"

namespace vcloe::workflow {

// How a study runs on a Slurm cluster (vcloe/workflow/study_slurm.hpp).
struct SlurmSubmission {
  bool enabled = false;                    // --slurm: a job array instead of this process
  std::vector<std::string> sbatch_options; // --slurm-option: sbatch's long options without "--", e.g. partition=batch
  bool wait = false;                       // --wait: until the merged table is written
  std::string sbatch = "sbatch";           // the submitting program (found on PATH)
};

struct StudyOptions {
  std::string dir = "vcloe-study", reference, priors, config, experiment;
  int truths = 10, n = 3;
  int shard = 1, shards = 1;  // this process runs truths k = shard - 1, shard - 1 + shards, ...
  std::uint64_t seed = 1;
  bool unmodelled = false, far = false, force = false, quiet = false;
  // The realistic chain (docs/calibration.md, "The chain"): `departures.realistic` draws the
  // truths with a real rig's departures (their magnitudes as `truth random --realistic` takes
  // them); each is calibrated (calibrate_kinematics_files with `calibration`'s count, candidates
  // and timings; the files, seed and camera residual are the truth's) and identified from the
  // drawn file and from the calibrated one.
  hw::TruthFamily departures;
  CalibrateKinematicsOptions calibration;
  double validation_duration = 20.0;  // s: each fresh validation trajectory's (vcloe validate --duration)
  SlurmSubmission slurm;

  // problem(): the counts in range (core/settings.hpp, the messages beginning with the option),
  // and with --slurm the sbatch options (each "name[=value]", none that the job array sets).
  // validate(): those, then --dir claimed (OutputDirectory: made now, or with --force used; the
  // claim held while the study runs), every input file read as its step will read it, and
  // study_plan checked (the file system, so not in problem(), which stays pure).
  std::optional<SettingProblem> problem() const;
  [[nodiscard]] OutputDirectory validate(const std::string& where = "") const;
};

// What makes the rows of two studies comparable, recorded in DIR/study.json ("settings"): the
// seeds and shard count, the truth family's options, the SHA-256 of the priors, reference (the
// excitation once optimised), experiment and identification settings, the camera noise, the
// validation and (realistic) the calibration's counts and timings. `study merge` refuses shards
// whose settings differ (report::common_settings), naming the key and both values.
report::StudySettings study_settings(const StudyOptions& options);

// The study's one input/output check (StudyOptions::validate runs it, before the directory or
// any step): every file it reads (priors, settings, experiment, reference, and what their
// companions record) and every file it and its steps will write — each truth's step outputs and
// logs, the tables, the excitation optimised once, with --slurm the scripts, sbatch's answers,
// the jobs' logs and each task's study — so that no output ever replaces an input, even with
// --force.
IoPlan study_plan(const StudyOptions& options);

// Runs the study here, or with options.slurm.enabled submits it (study_on_slurm).
void study(StudyOptions options);

// `vcloe study merge`: the rows of several studies' DIR/study.json (shards of one study) in one
// table, ordered by truth seed; a seed in two inputs is refused naming both.
struct StudyMergeOptions {
  std::string out;                  // directory for study.md and study.json
  std::vector<std::string> inputs;  // study directories
  bool force = false;
  std::optional<SettingProblem> problem() const;  // at least one input, an output
  // The shards' tables read, the outputs checked against them, then --out claimed (OutputDirectory).
  [[nodiscard]] OutputDirectory validate(const std::string& where = "") const;
};

void study_merge(const StudyMergeOptions& options);

}  // namespace vcloe::workflow
