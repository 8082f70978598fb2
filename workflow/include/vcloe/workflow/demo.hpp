#pragma once
// `vcloe demo`: the whole chain on the virtual rig with the default configs (excite -> run, and
// again with the known payload -> identify -> validate -> precorrect, run pre-corrected, predict
// -> report with its tracking and load sections), each step printed as the
// command a user would type and run as a child process (the `vcloe` executable itself). Before
// --dir is made or any step runs, one input/output check: every file a step will write (named
// once, with the step's command line) against the default config files the steps read, so none
// is ever written over, even with --force (docs/robustness.md, "Session 24's probe").
#include <optional>
#include <string>

#include "vcloe/core/output_file.hpp"
#include "vcloe/core/settings.hpp"

namespace vcloe::workflow {

struct DemoOptions {
  std::string dir = "vcloe-demo";
  int n = 10;
  bool force = false, rig = false;
  std::string config;  // the identification settings the demo's identify uses (their anchor)

  // Before any step runs (they take minutes): problem() the count (core/settings.hpp, the message
  // beginning with the option); validate() then --dir claimed (OutputDirectory: made now, or
  // with --force used), which is the file system.
  std::optional<SettingProblem> problem() const;
  [[nodiscard]] OutputDirectory validate(const std::string& where = "") const;
};

void demo(const DemoOptions& options);

}  // namespace vcloe::workflow
