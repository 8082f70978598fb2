// core/src/settings.cpp — the one throw of a settings struct's validate() (settings.hpp).
#include "vcloe/core/seed_range.hpp"

#include "vcloe/core/error.hpp"
#include "vcloe/core/settings.hpp"

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
                                                 std::uint64_t max, std::uint64_t offset) {
  const std::uint64_t span = (count > 0 ? count - 1 : 0) + offset;  // the largest seed is first + span
  if (span > max || first > max - span)
    return SettingProblem{option, option + ": " + std::to_string(first) + " is too large: its " + std::to_string(count) +
                                      " seeds (" + std::to_string(first) + " + 0 to " + std::to_string(span) +
                                      ") would pass " + std::to_string(max) +
                                      ", the largest this command carries, and wrap round to 0; expected " + option +
                                      " from 0 to " + std::to_string(span > max ? 0 : max - span)};
  return std::nullopt;
}

}  // namespace vcloe
