#pragma once
// vcloe/core/settings.hpp — how a settings struct checks its own values (docs/architecture.md,
// "Settings validate themselves"), in the manner of Ceres' Solver::Options::IsValid. Each
// settings struct of the library has the pair
//
//   std::optional<SettingProblem> problem() const;  // the first value out of range, or nullopt
//   void validate(const std::string& where) const;  // throws vcloe::Error for problem()
//
// problem() never throws: a file reader uses it to point at the key's line, a caller at the
// key it takes on the command line. validate() is throw_if(problem(), where).
#include <optional>
#include <string>

namespace vcloe {

// A setting out of range: its key as the settings file or the command line names it
// ("timing.camera_hz", "loss.scale", "--duration") and what is wrong, in the struct's own words
// (most of them begin with the key: "harmonics: expected 1 to 20, got 0").
struct SettingProblem {
  std::string key;
  std::string message;
};

// Throws vcloe::Error "<where>: <message>" (the message alone when `where` is empty) if there
// is a problem; returns otherwise.
void throw_if(const std::optional<SettingProblem>& problem, const std::string& where);

}  // namespace vcloe
