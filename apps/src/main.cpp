// vcloe — identify the dynamics of 6-DOF parallel robots from camera pose measurements.
#include <CLI/CLI.hpp>
#include <glog/logging.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli_options.hpp"
#include "command_line_errors.hpp"
#include "command_tree.hpp"
#include "commands.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/input_ledger.hpp"

namespace {

// Output written to a closed or full stdout is lost without a word (a report, a JSON): an error.
// A closed descriptor 1 would also be given to the first file vcloe opens, and the report
// written into it.
bool stdout_is_open() { return fcntl(STDOUT_FILENO, F_GETFD) != -1 || errno != EBADF; }

int check_stdout_written() {
  errno = 0;
  std::cout.flush();
  if (std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout) return 0;
  std::cerr << "vcloe: error: stdout: the output could not be written (" << (errno ? std::strerror(errno) : "write error")
            << ")\n";
  return 2;
}

// The file descriptors a command may hold at once. A role of `rig run` held at most 24 (ZeroMQ:
// the context's poller and mailboxes, each socket's mailbox, connections; docs/robustness.md);
// below this ZeroMQ aborts inside (an assertion in src/epoll.cpp) or a socket fails halfway
// through the handshake (session 20's probe, class I).
constexpr rlim_t kMinFreeDescriptors = 64;

// The soft limit on open files raised to the hard limit (what any process may do), then the
// floor: "" or the one line that says what is missing.
std::string descriptor_problem() {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) != 0) return "";
  if (r.rlim_cur < r.rlim_max) {
    rlimit raised = r;
    raised.rlim_cur = r.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) r = raised;
  }
  std::error_code ec;
  rlim_t open = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec)) ++open;
  if (ec || open == 0) return "";  // no /proc: nothing to count
  --open;  // the iterator's own
  if (r.rlim_cur == RLIM_INFINITY || r.rlim_cur >= open + kMinFreeDescriptors) return "";
  return "only " + std::to_string(r.rlim_cur > open ? r.rlim_cur - open : 0) +
         " more file descriptors can be opened (ulimit -n " + std::to_string(r.rlim_cur) + ", the hard limit; " +
         std::to_string(open) + " open); vcloe needs " + std::to_string(kMinFreeDescriptors) +
         " (ZeroMQ's sockets, a folder's images): raise it, e.g. ulimit -n 1024";
}

// The command proper, on the thread main() starts for it.
int run_command(int argc, char** argv) {
  // A file-size limit (ulimit -f) is a write error like a full disk: write(2) then fails with
  // EFBIG, which the one writer reports ("write failed: File too large …; X is left as it was")
  // and cleans up after. By default the kernel's SIGXFSZ would kill the process mid-write:
  // exit 153, no message, a temporary left beside the output. Children get the default back
  // (core/subprocess.cpp); vcloe's own children ignore it again here.
  std::signal(SIGXFSZ, SIG_IGN);
  if (const std::string why = descriptor_problem(); !why.empty()) {
    std::cerr << "vcloe: error: " << why << "\n";
    return 2;
  }
  if (!stdout_is_open()) {
    std::cerr << "vcloe: error: stdout: is closed, the command's output would be lost (send it to /dev/null to "
                 "discard it)\n";
    return 2;
  }
  // Ceres logs through glog; its per-step warnings (e.g. a rejected trial step whose twin
  // diverged, which identify handles) are not for the user. --verbose in identify prints them.
  FLAGS_minloglevel = 3;  // errors too: identify says in its own words when the fit fails
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
  CLI::App app{
      "vcloe " VCLOE_VERSION
      " - dynamics identification of 6-RSS parallel robots from camera pose measurements.\n"
      "Run `vcloe <command> --help` for each command."};
  app.require_subcommand(1);
  app.set_version_flag("--version", VCLOE_VERSION);
  vcloe::app::build_command_tree(app);
  const vcloe::InputLedger ledger;  // every input hashed from the bytes the command parsed
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::RuntimeError& e) {  // a command's own exit status (CLI11's way), not a parse error
    const int written = check_stdout_written();
    return written != 0 ? written : e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    // A malformed command line is bad input like any other: one line, exit status 2 (CLI11's
    // own codes, 101-115, said nothing to scripts that test for 2), in vcloe's words.
    std::cerr << "vcloe: error: " << vcloe::app::said_of_command_line(e, app) << "\n";
    return 2;
  } catch (const vcloe::app::CommandExit& e) {
    const int written = check_stdout_written();
    return written != 0 ? written : e.status;
  } catch (const vcloe::SettingError& e) {  // a setting's problem, said with the option typed for it
    std::cerr << "vcloe: error: " << vcloe::app::said_of_defaults(vcloe::app::said_with_options(e, app), app) << "\n";
    return 2;
  } catch (const vcloe::Error& e) {
    std::cerr << "vcloe: error: " << vcloe::app::said_of_defaults(e.what(), app) << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    // The system refused a path no check foresaw (a loop, a name too long): its reason and the path.
    std::cerr << "vcloe: error: " << (e.path1().empty() ? std::string("(path)") : e.path1().string()) << ": "
              << e.code().message() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "vcloe: internal error: " << e.what() << "\n";
    return 3;
  }
  return check_stdout_written();
}

// The stack every command runs on, whatever the process's stack limit (ulimit -s): the virtual
// robot (MuJoCo) needed more than 1 MiB, identify more than 128 KiB, and a limit below that ended
// in SIGSEGV with no word (session 20's probe, class S). A thread's stack is mapped by the
// thread library, not bounded by RLIMIT_STACK, and pages are committed only when touched.
constexpr std::size_t kCommandStack = std::size_t{64} << 20;

struct CommandThread {
  int argc;
  char** argv;
  int status = 3;
};

void* command_thread(void* arg) {
  auto* c = static_cast<CommandThread*>(arg);
  c->status = run_command(c->argc, c->argv);
  return nullptr;
}

// The command on a thread of kCommandStack bytes; every thread a library starts later (ZeroMQ's,
// Ceres', OpenMP's) gets that size by default too, where glibc would take the stack limit's.
int run_on_a_sufficient_stack(int argc, char** argv) {
  pthread_attr_t attr;
  CommandThread c{argc, argv};
  pthread_t thread;
  int rc = pthread_attr_init(&attr);
  if (rc == 0) rc = pthread_attr_setstacksize(&attr, kCommandStack);
  if (rc == 0) rc = pthread_setattr_default_np(&attr);
  if (rc == 0) rc = pthread_create(&thread, &attr, command_thread, &c);
  if (rc != 0) {
    std::cerr << "vcloe: error: cannot start the command's thread with a " << (kCommandStack >> 20)
              << " MiB stack (" << std::strerror(rc) << "; is the address space limited, ulimit -v?)\n";
    return 2;
  }
  pthread_attr_destroy(&attr);
  // Signals are the command's: this thread only waits, so a signal sent to the process (SIGINT,
  // SIGTERM, SIGCHLD) is delivered to the command's thread (or those it starts), as before.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  pthread_join(thread, nullptr);
  return c.status;
}

}  // namespace

int main(int argc, char** argv) { return run_on_a_sufficient_stack(argc, argv); }
