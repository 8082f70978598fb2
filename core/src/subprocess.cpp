// Running another program without a shell (subprocess.hpp).
#include "vcloe/core/subprocess.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>

#include "vcloe/core/error.hpp"

namespace vcloe {

namespace {

// The children being waited for (0: a free slot) and the SIGINT/SIGTERM received meanwhile. One
// group waits at a time (a process runs its children from its main thread).
constexpr int kMaxChildren = 8;
volatile sig_atomic_t g_children[kMaxChildren] = {};
volatile sig_atomic_t g_signal = 0;
volatile sig_atomic_t g_groups = 0;

extern "C" void pass_on_interrupt(int sig) {
  g_signal = sig;
  for (int i = 0; i < kMaxChildren; ++i)
    if (g_children[i] > 0) ::kill(static_cast<pid_t>(g_children[i]), sig);
}

void watch(pid_t pid, bool on) {
  for (int i = 0; i < kMaxChildren; ++i)
    if (on ? g_children[i] == 0 : g_children[i] == pid) {
      g_children[i] = on ? pid : 0;
      return;
    }
}

// In the child (after fork, before exec: async-signal-safe calls only). Reports errno on `report`.
[[noreturn]] void exec_child(const std::string& program, const std::vector<char*>& argv, const ChildIo& io,
                             pid_t parent, int report) {
  auto die = [report](int stage) {  // reports, then _exit
    const int e[2] = {stage, errno};
    (void)!::write(report, e, sizeof e);
    ::_exit(127);
  };
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) ::_exit(127);  // the parent died before the line above
  if (!io.cwd.empty() && ::chdir(io.cwd.c_str()) != 0) die(1);
  for (const auto& [fd, path] : {std::pair{STDOUT_FILENO, &io.stdout_path}, {STDERR_FILENO, &io.stderr_path}}) {
    if (path->empty()) continue;
    const int f = ::open(path->c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (f < 0 || ::dup2(f, fd) < 0) die(2);
  }
  for (const int sig : kStopSignals) ::signal(sig, SIG_DFL);  // not the parent's pass-on handler (blocked until here)
  // vcloe ignores SIGXFSZ (apps/main.cpp: a file-size limit is a write error it reports); a
  // program like gnuplot might not check its writes, so it is stopped by the limit, and said so.
  ::signal(SIGXFSZ, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execv(program.c_str(), argv.data());
  die(3);
  ::_exit(127);
}

}  // namespace

std::string ChildExit::describe() const {
  if (timed_out_after > 0)
    return "no end within " + exact_number(timed_out_after) + " s: stopped (" +
           (signal ? "signal " + std::to_string(signal) : "exit status " + std::to_string(exit_status)) + ")";
  if (signal == SIGXFSZ) return "killed by SIGXFSZ: a file it wrote grew past the file-size limit, ulimit -f";
  if (signal) return "killed by signal " + std::to_string(signal) + ", " + strsignal(signal);
  return "exit status " + std::to_string(exit_status);
}

std::string find_program(const std::string& name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

// The stop signals passed on to the watched children for as long as the group lives.
struct ChildGroup::SavedHandlers {
  struct sigaction old[std::size(kStopSignals)] {};
};

ChildGroup::ChildGroup() {
  if (g_groups != 0) fail("(child processes)", "internal: a second group of children while one is waited for");
  g_groups = 1;
  g_signal = 0;
  saved_ = std::make_unique<SavedHandlers>();
  struct sigaction sa {};
  sa.sa_handler = pass_on_interrupt;
  sigemptyset(&sa.sa_mask);
  for (std::size_t i = 0; i < std::size(kStopSignals); ++i) ::sigaction(kStopSignals[i], &sa, &saved_->old[i]);
}

ChildGroup::~ChildGroup() {
  bool running = false;
  for (const Child& c : children_) running = running || !c.ended;
  if (running) {
    for (const Child& c : children_)
      if (!c.ended) ::kill(c.pid, SIGTERM);
    wait_all(1.0);
  }
  for (std::size_t i = 0; i < std::size(kStopSignals); ++i) ::sigaction(kStopSignals[i], &saved_->old[i], nullptr);
  g_groups = 0;
}

void ChildGroup::start(const std::string& name, const std::vector<std::string>& args, const ChildIo& io) {
  if (args.empty()) fail(name, "nothing to run");
  if (static_cast<int>(children_.size()) >= kMaxChildren) fail(name, "more than 8 children in one group");
  const std::string program = find_program(args[0]);
  if (program.empty()) fail(args[0], "not found (searched PATH) or not executable");
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) fail(args[0], std::string("cannot start: ") + std::strerror(errno));
  // SIGINT/SIGTERM held back until the child is watched (then passed on to it too); the child
  // takes the default handlers before it lets them through.
  sigset_t interrupts, before;
  sigemptyset(&interrupts);
  for (const int sig : kStopSignals) sigaddset(&interrupts, sig);
  ::sigprocmask(SIG_BLOCK, &interrupts, &before);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) exec_child(program, argv, io, parent, report[1]);
  if (pid > 0) {
    children_.push_back({name, pid, false, ChildExit{}});
    watch(pid, true);
    if (g_signal) ::kill(pid, g_signal);  // a signal that came before this start
  }
  ::sigprocmask(SIG_SETMASK, &before, nullptr);
  if (pid < 0) {
    const int error = errno;
    ::close(report[0]);
    ::close(report[1]);
    fail(args[0], std::string("cannot start (fork): ") + std::strerror(error));
  }
  ::close(report[1]);
  int e[2] = {0, 0};
  ssize_t n;
  while ((n = ::read(report[0], e, sizeof e)) < 0 && errno == EINTR) {
  }
  ::close(report[0]);
  if (n == static_cast<ssize_t>(sizeof e)) {  // exec failed: the child has _exit'ed
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    watch(pid, false);
    children_.pop_back();
    const std::string stage = e[0] == 1   ? "cannot enter the working directory " + io.cwd
                              : e[0] == 2 ? "cannot open its output files (" + io.stdout_path + ", " + io.stderr_path + ")"
                                          : "cannot be started";
    fail(args[0], stage + ": " + std::strerror(e[1]));
  }
}

std::vector<ChildGroup::Ended> ChildGroup::wait_all(double grace_s, double time_limit_s, bool stop_at_once) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  bool timed_out = false;
  std::optional<Clock::time_point> since;  // the first failure or signal
  int escalated = 0;                       // 0, then SIGTERM sent, then SIGKILL sent
  double first_grace = grace_s;            // from `since` to the SIGTERM
  for (;;) {
    bool running = false;
    for (Child& c : children_) {
      if (c.ended) continue;
      int status = 0;
      if (::waitpid(c.pid, &status, WNOHANG) == c.pid) {
        c.exit.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        c.exit.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        c.ended = true;
        watch(c.pid, false);
        if (!c.exit.ok() && !since) {
          since = Clock::now();
          if (stop_at_once) first_grace = 0;
        }
      } else {
        running = true;
      }
    }
    if (!running) break;
    if (g_signal && !since) since = Clock::now();
    if (time_limit_s > 0 && !since && std::chrono::duration<double>(Clock::now() - start).count() > time_limit_s) {
      since = Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(grace_s));
      timed_out = true;  // stopped now: SIGTERM at once, SIGKILL grace_s later
    }
    const double waited = since ? std::chrono::duration<double>(Clock::now() - *since).count() : 0;
    if (since && escalated < 2 && waited >= first_grace + escalated * grace_s) {
      for (Child& c : children_)
        if (!c.ended) {
          ::kill(c.pid, escalated == 0 ? SIGTERM : SIGKILL);
          c.exit.stopped = true;
        }
      ++escalated;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::vector<Ended> out;
  for (Child& c : children_) {
    c.exit.interrupted_by = g_signal;
    if (timed_out) c.exit.timed_out_after = time_limit_s;
    out.push_back({c.name, c.exit});
  }
  return out;
}

std::string signal_name(int sig) {
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "signal " + std::to_string(sig);
}

ChildExit run_child(const std::vector<std::string>& args, const ChildIo& io, double grace_s, double time_limit_s) {
  ChildGroup group;
  group.start(args.empty() ? "(no program)" : args[0], args, io);
  return group.wait_all(grace_s, time_limit_s).front().exit;
}

}  // namespace vcloe
