#pragma once
// `vcloe study --slurm`: a study too large for one machine as a Slurm job array — one truth per
// task (`vcloe study --shard K/N` in DIR/shard-K), then one job that waits for the array
// (afterany) and joins the shards' tables into DIR (`vcloe study merge`). Written as two batch
// scripts in DIR/slurm/ and submitted with `sbatch` (by argument vector, no shell of ours);
// the cluster's rows equal a local study's (tests/workflow/test_study_slurm.cpp, on a
// single-node Slurm). Requires a file system the nodes share and the same vcloe path on them
// (docs/identification.md, "Studies on a Slurm cluster").
#include <string>
#include <vector>

#include "vcloe/workflow/study.hpp"

namespace vcloe::workflow {

// The two batch scripts for `o` (o.reference set, paths absolute), as text.
struct SlurmScripts {
  std::string array, merge;
};
SlurmScripts slurm_scripts(const StudyOptions& o, const std::string& vcloe_executable);

// One word of a POSIX shell script: single-quoted, a ' inside written '\''. A path with a
// newline, which no batch script line can carry, is refused naming the option.
std::string shell_word(const std::string& text, const std::string& option);

// Writes the scripts, submits them (o.dir/slurm/array.sbatch, then merge.sbatch with
// --dependency=afterany:<array job>) and prints the job ids; with o.slurm.wait, waits for the
// merge job (sbatch --wait) and prints the joined table. Throws vcloe::Error naming sbatch's
// own message when a submission is refused.
void study_on_slurm(StudyOptions o);

}  // namespace vcloe::workflow
