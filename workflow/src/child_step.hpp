#pragma once
// Running `vcloe <args>` — this very executable — as a child process: how `vcloe demo` and
// `vcloe study` chain the commands a user would type, so each step is exactly that command.
#include <iosfwd>
#include <string>
#include <vector>

namespace vcloe::workflow {

struct ChildOutput {
  std::string stdout_path;  // the child's standard output to this file (truncated); empty: inherited
  std::string stderr_path;  // its standard error to this file (truncated); empty: inherited
};

// Echoes "$ vcloe <args>" to `echo` (when non-null), runs the step and waits for it. Throws
// vcloe::Error "step '<title>' failed (...)" naming the exit status or signal, and the log
// file when the output went to one.
void run_vcloe_step(const std::string& title, const std::vector<std::string>& args, std::ostream* echo,
                    const ChildOutput& output = {});

// Another program, by argument vector (argv[0] looked up on PATH; no shell): waited for, its
// standard output and error together in `output`. Throws vcloe::Error "<title>: cannot start
// '<argv[0]>' (<reason>)" when it cannot be started (not on PATH, not executable).
struct ProgramResult {
  int status = 0;  // exit status; 128 + the signal if one ended it
  std::string output;
};
ProgramResult run_program(const std::string& title, const std::vector<std::string>& argv);

}  // namespace vcloe::workflow
