#pragma once
// `vcloe validate` (Li et al. 2019, Tables 4 and 5): an identified model against fresh random
// feasible trajectories run on the virtual robot — per trajectory the RMS of measured -
// twin(model) and the noise floor measured - twin(truth) — and, with reidentify, the spread of
// the parameters when each trajectory is used for a fresh identification from the priors. The
// result is printed (Table 4/5 form, or JSON) and written as vcloe/report/validation.hpp's file.
#include <optional>
#include <string>

#include "vcloe/core/settings.hpp"

namespace vcloe::workflow {

struct ValidateOptions {
  std::string model, truth, priors, experiment, config, out;
  int n = 10;
  std::uint64_t seed = 1001;  // a whole number below 2^64 - 1 (main's check), less the seeds it derives
  double duration = 20.0;  // s: each fresh trajectory's (excitation::RandomTrajectoryOptions)
  bool json = false, reidentify = false, force = false, quiet = false;

  // problem(): --n in range (core/settings.hpp, the message beginning with the option);
  // validate(): that, then --out checked as an output (the file system, not in problem()).
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where = "") const;
};

void validate(const ValidateOptions& options);

}  // namespace vcloe::workflow
