#pragma once
// vcloe/core/series_size.hpp — the one bound of a series a command holds in memory sample by
// sample (a prediction's samples, a motion sampled at a period, a run's frames): its samples times
// the bytes each holds, at most kMaxSeriesBytes, checked before the first sample is made and said
// of the option (or file and key) that set the period. A `predict --period 2.1e-8` over a 2 s
// reference ended in std::bad_alloc, exit 3, after allocating what the machine had (session 21's
// probe, B); each caller had its own count bound (10^8 samples of any size).
#include <optional>
#include <string>

#include "vcloe/core/settings.hpp"

namespace vcloe {

inline constexpr double kMaxSeriesBytes = 2e9;  // 2 GB: a tenth of a workstation's memory

// The series of floor(duration / period) + 1 samples of `bytes_per_sample` each, over the
// `duration` s of `of` (e.g. "ref.yaml"): within kMaxSeriesBytes, or the problem, naming `option`
// and the smallest period it allows. A non-positive or non-finite period or duration is a problem too.
std::optional<SettingProblem> series_size_problem(const std::string& option, double duration, double period,
                                                  double bytes_per_sample, const std::string& of);

}  // namespace vcloe
