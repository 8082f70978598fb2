#pragma once
// Running `vcloe <args>` — this very executable — as a child process (core/subprocess.hpp: no
// shell, dies with its parent, SIGINT/SIGTERM passed on and waited for): how `vcloe demo` and
// `vcloe study` chain the commands a user would type, so each step is exactly that command.
#include <iosfwd>
#include <string>
#include <vector>

namespace vcloe::workflow {

struct ChildOutput {
  std::string stdout_path;  // the child's standard output to this file (truncated); empty: inherited
  std::string stderr_path;  // its standard error to this file (truncated); empty: inherited
  int also_accepted = 0;    // an exit status besides 0 that is not a failure (identify's stuck fit: 4)
};

// Echoes "$ vcloe <args>" to `echo` (when non-null), runs the step and waits for it; returns
// its exit status (0, or output.also_accepted). Throws
// vcloe::Error "step '<title>' failed (...)" naming the exit status or signal, and the log
// file when the output went to one.
int run_vcloe_step(const std::string& title, const std::vector<std::string>& args, std::ostream* echo,
                    const ChildOutput& output = {});

}  // namespace vcloe::workflow
