#pragma once
// What `vcloe study` and `vcloe study --slurm` share (study.cpp, study_slurm.cpp).
#include <optional>
#include <string>
#include <vector>

#include "vcloe/core/settings.hpp"
#include "vcloe/workflow/study.hpp"

namespace vcloe::workflow {

// Without --reference: `vcloe excite` once into o.dir/excitation.yaml, for all truths (o.dir exists).
void excite_once(StudyOptions& o);

// With departures.realistic: `--realistic` and the magnitude of each departure, the words both
// `vcloe truth random` and `vcloe study` take (the truth step, the Slurm tasks); none otherwise.
std::vector<std::string> realistic_words(const StudyOptions& o);

// The --slurm options' first problem (study_slurm.cpp), for StudyOptions::problem().
std::optional<SettingProblem> slurm_problem(const StudyOptions& o);

}  // namespace vcloe::workflow
