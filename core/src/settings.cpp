// core/src/settings.cpp — the one throw of a settings struct's validate() (settings.hpp).
#include "vcloe/core/seed_range.hpp"
#include "vcloe/core/series_size.hpp"

#include "vcloe/core/error.hpp"
#include "vcloe/core/settings.hpp"

#include <cmath>
#include <cstdio>
#include <utility>

namespace vcloe {

SettingError::SettingError(const std::string& where, SettingProblem problem)
    : Error(where.empty() ? problem.message : where + ": " + problem.message),
      where_(where),
      problem_(std::move(problem)) {}

void throw_if(const std::optional<SettingProblem>& problem, const std::string& where) {
  if (problem) throw SettingError(where, *problem);
}

std::optional<SettingProblem> seed_range_problem(const std::string& option, std::uint64_t first, std::uint64_t count,
                                                 std::uint64_t max, std::uint64_t offset, std::uint64_t stride) {
  const std::uint64_t span = (count > 0 ? count - 1 : 0) + offset;  // the largest seed is first * stride + span
  const std::uint64_t step = stride > 0 ? stride : 1;
  if (span > max || first > (max - span) / step) {
    const std::string base = std::to_string(first) + (step > 1 ? " x " + std::to_string(step) : std::string());
    return SettingProblem{option, option + ": " + std::to_string(first) + " is too large: its " + std::to_string(count) +
                                      " seeds (" + base + " + 0 to " + std::to_string(span) + ") would pass " +
                                      std::to_string(max) + ", the largest this command carries, and wrap round to 0; expected " +
                                      option + " from 0 to " + std::to_string(span > max ? 0 : (max - span) / step)};
  }
  return std::nullopt;
}

std::optional<SettingProblem> series_size_problem(const std::string& option, double duration, double period,
                                                  double bytes_per_sample, const std::string& of) {
  const std::string over = "over the " + exact_number(duration) + " s of " + of;
  if (!(std::isfinite(period) && period > 0) || !(std::isfinite(duration) && duration > 0))
    return SettingProblem{option, option + ": expected a positive sample period " + over + ", got " + exact_number(period) + " s"};
  const double samples = std::floor(duration / period + 1e-9) + 1, bytes = samples * bytes_per_sample;
  if (bytes <= kMaxSeriesBytes) return std::nullopt;
  const double shortest = duration * bytes_per_sample / (kMaxSeriesBytes - bytes_per_sample);
  char size[64], least[64];
  std::snprintf(size, sizeof size, "%.3g GB", bytes / 1e9);
  std::snprintf(least, sizeof least, "%.3g", shortest * 1.005);  // rounded up, within the bound
  return SettingProblem{option, option + ": " + exact_number(period) + " s between samples " + over + " is " +
                                    exact_number(samples) + " samples, " + size + " at " + exact_number(bytes_per_sample) +
                                    " bytes each (at most " + exact_number(kMaxSeriesBytes / 1e9) +
                                    " GB a series): expected at least " + least + " s"};
}

}  // namespace vcloe
