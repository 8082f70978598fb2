// core/src/settings.cpp — the one throw of a settings struct's validate() (settings.hpp).
#include "vcloe/core/settings.hpp"

#include "vcloe/core/error.hpp"

namespace vcloe {

void throw_if(const std::optional<SettingProblem>& problem, const std::string& where) {
  if (problem) fail(where, problem->message);  // (fail: the message alone when where is empty)
}

}  // namespace vcloe
