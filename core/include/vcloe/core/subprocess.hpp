#pragma once
// vcloe/core/subprocess.hpp — the one way vcloe runs another program (gnuplot for the plots,
// `vcloe` itself for the steps of `study` and `demo`): by argument vector, never through a
// shell (no path or name is ever parsed as a command line), in this process's group, with a
// parent-death signal (the child gets SIGTERM if vcloe dies, even by SIGKILL). While vcloe waits
// for it, the stop signals sent to vcloe (kStopSignals) are passed on to the child and the child is waited
// for (SIGTERM, then SIGKILL, after a grace period), so nothing is left writing. Several children
// waited for together (`rig run`'s robot, vision and control) are a ChildGroup; run_child is a
// group of one.
#include <sys/types.h>

#include <csignal>
#include <memory>
#include <string>
#include <vector>

namespace vcloe {

// The signals that ask a vcloe process to stop, each handled alike (never their default action):
// SIGINT (the operator), SIGTERM (a supervisor, `rig run` passing on its own), SIGHUP (the
// terminal or ssh session of a process closed). Passed on to children while they are waited for;
// in the rig's roles a controlled stop (rig/common.hpp, catch_interrupts).
inline constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
std::string signal_name(int signal);  // "SIGINT", "SIGTERM", "SIGHUP", else "signal N"

struct ChildIo {
  std::string cwd;          // the child's working directory (empty: this process's)
  std::string stdout_path;  // standard output to this file (created or truncated); empty: inherited
  std::string stderr_path;  // standard error likewise
};

struct ChildExit {
  int exit_status = -1;     // the exit status, or -1 if killed by a signal
  int signal = 0;           // the signal that killed it, or 0
  double timed_out_after = 0;  // s: it had not ended within the time limit and was stopped; 0 if not
  int interrupted_by = 0;   // a stop signal (kStopSignals) this process received and passed on while waiting; 0 if none
  bool stopped = false;     // still running when the group sent SIGTERM (another had failed, a signal, the time limit)
  bool ok() const { return exit_status == 0 && signal == 0; }
  std::string describe() const;  // "exit status 2", "killed by signal 15"
};

// The program's full path: `name` itself if it holds a '/', else searched in PATH; empty if not
// found or not executable.
std::string find_program(const std::string& name);

// Runs argv (argv[0] a path, or a name searched in PATH) and waits for it as described above.
// Throws vcloe::Error naming the program if it cannot be started (not found, an output file that
// cannot be opened, a working directory that is missing).
// A positive time_limit_s: a child still running that long after its start is stopped as after a
// failure (SIGTERM, then SIGKILL grace_s later) and its ChildExit says so (a program that never
// returns, e.g. a broken gnuplot, cannot keep vcloe waiting).
ChildExit run_child(const std::vector<std::string>& argv, const ChildIo& io = {}, double grace_s = 10.0,
                    double time_limit_s = 0);

// Children started one by one and waited for together. While wait_all() waits, the stop signals
// sent to this process are passed on to every child still running. Once one child has failed
// (not ok()) or a signal came, the others get grace_s to end their own way, then SIGTERM, then
// after as long SIGKILL: no child outlives wait_all(), nor the group (its destructor ends and
// waits for any child still running, e.g. after a later start() threw).
class ChildGroup {
 public:
  struct Ended {
    std::string name;
    ChildExit exit;
  };
  ChildGroup();
  ~ChildGroup();
  ChildGroup(const ChildGroup&) = delete;
  ChildGroup& operator=(const ChildGroup&) = delete;
  // Starts argv as run_child does; throws naming `name` (and the program) if it cannot start.
  void start(const std::string& name, const std::vector<std::string>& argv, const ChildIo& io = {});
  // Every child's end, in the order started. With stop_at_once, a child's failure stops the
  // others at once (SIGTERM, then SIGKILL grace_s later): their ends are its consequences.
  std::vector<Ended> wait_all(double grace_s, double time_limit_s = 0,  // time_limit_s as run_child's
                              bool stop_at_once = false);

 private:
  struct Child {
    std::string name;
    pid_t pid = -1;
    bool ended = false;
    ChildExit exit;
  };
  std::vector<Child> children_;
  struct SavedHandlers;
  std::unique_ptr<SavedHandlers> saved_;
};

}  // namespace vcloe
