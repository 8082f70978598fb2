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
#include <utility>
#include <vector>

#include "vcloe/core/error.hpp"

namespace vcloe {

// A setting out of range: its key as the settings file or the command line names it
// ("timing.camera_hz", "loss.scale", "--duration") and what is wrong, in the struct's own words
// (most of them begin with the key: "harmonics: expected 1 to 20, got 0").
// A bound that couples keys ("regressor_period: expected 11 to 10^4 samples over the duration")
// lists the others in `also`: a settings file that leaves `key` at its default points at the
// first of them it gives (YamlNode::fail_if), the line the user wrote.
struct SettingProblem {
  SettingProblem() = default;
  SettingProblem(std::string key_, std::string message_, std::vector<std::string> also_ = {})
      : key(std::move(key_)), message(std::move(message_)), also(std::move(also_)) {}
  std::string key;
  std::string message;
  std::vector<std::string> also;
};

// A setting's problem thrown: a vcloe::Error "<where>: <message>" that keeps the key, so that the
// command line can say it with the option the user typed for that key (apps/src/cli_options.hpp,
// said_with_options: `--max-invalid: …` rather than `robot serve: max_invalid_in_row: …`).
class SettingError : public Error {
 public:
  SettingError(const std::string& where, SettingProblem problem);
  const std::string& where() const { return where_; }
  const SettingProblem& problem() const { return problem_; }

 private:
  std::string where_;
  SettingProblem problem_;
};

// Throws SettingError "<where>: <message>" (the message alone when `where` is empty) if there
// is a problem; returns otherwise.
void throw_if(const std::optional<SettingProblem>& problem, const std::string& where);

}  // namespace vcloe
