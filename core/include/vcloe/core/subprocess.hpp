#pragma once
// vcloe/core/subprocess.hpp — the one way vcloe runs another program (gnuplot for the plots,
// `vcloe` itself for the steps of `study` and `demo`): by argument vector, never through a
// shell (no path or name is ever parsed as a command line), in this process's group, with a
// parent-death signal (the child gets SIGTERM if vcloe dies, even by SIGKILL). While vcloe waits
// for it, SIGINT and SIGTERM sent to vcloe are passed on to the child and the child is waited
// for (SIGKILL after a grace period), so nothing is left writing.
#include <sys/types.h>

#include <string>
#include <vector>

namespace vcloe {

struct ChildIo {
  std::string cwd;          // the child's working directory (empty: this process's)
  std::string stdout_path;  // standard output to this file (created or truncated); empty: inherited
  std::string stderr_path;  // standard error likewise
};

struct ChildExit {
  int exit_status = -1;     // the exit status, or -1 if killed by a signal
  int signal = 0;           // the signal that killed it, or 0
  int interrupted_by = 0;   // SIGINT/SIGTERM this process received (and passed on) while waiting; 0 if none
  bool ok() const { return exit_status == 0 && signal == 0; }
  std::string describe() const;  // "exit status 2", "killed by signal 15"
};

// The program's full path: `name` itself if it holds a '/', else searched in PATH; empty if not
// found or not executable.
std::string find_program(const std::string& name);

// Runs argv (argv[0] a path, or a name searched in PATH) and waits for it as described above.
// Throws vcloe::Error naming the program if it cannot be started (not found, an output file that
// cannot be opened, a working directory that is missing).
ChildExit run_child(const std::vector<std::string>& argv, const ChildIo& io = {}, double grace_s = 10.0);

}  // namespace vcloe
