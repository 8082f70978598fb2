#pragma once
// `vcloe study`: the identification checked on virtual robots it was not tuned on
// (docs/identification.md, "Truths it was not tuned on"). Per truth, each step the command a
// user would type, run as a child process with its output in DIR/truth-SEED/: `truth random`,
// `run` without and with the known payload, `identify`, `validate` on fresh trajectories. Then
// one row per truth and the coverage of the reported sigma over all (vcloe/report/study.hpp),
// printed and written to DIR/study.json and DIR/study.md.
#include <cstdint>
#include <optional>
#include <string>

#include "vcloe/core/settings.hpp"

namespace vcloe::workflow {

struct StudyOptions {
  std::string dir = "vcloe-study", reference, priors, config, experiment;
  int truths = 10, n = 3;
  std::uint64_t seed = 1;
  bool unmodelled = false, force = false, quiet = false;

  // problem(): the counts in range (core/settings.hpp, the messages beginning with the option).
  // validate(): those, then --dir usable and every input file read as its step will read it
  // (the file system, so not in problem(), which stays pure).
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where = "") const;
};

void study(StudyOptions options);

}  // namespace vcloe::workflow
