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
#include <thread>

#include "vcloe/core/error.hpp"

namespace vcloe {

namespace {

volatile sig_atomic_t g_child = 0;   // the child being waited for (0: none)
volatile sig_atomic_t g_signal = 0;  // SIGINT/SIGTERM received while waiting

extern "C" void pass_on_interrupt(int sig) {
  g_signal = sig;
  if (g_child > 0) ::kill(static_cast<pid_t>(g_child), sig);
}

// SIGINT and SIGTERM passed on to the child for as long as this object lives.
class PassOnInterrupts {
 public:
  explicit PassOnInterrupts(pid_t child) {
    g_signal = 0;
    g_child = child;
    struct sigaction sa {};
    sa.sa_handler = pass_on_interrupt;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &old_int_);
    ::sigaction(SIGTERM, &sa, &old_term_);
  }
  ~PassOnInterrupts() {
    g_child = 0;
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }
  PassOnInterrupts(const PassOnInterrupts&) = delete;
  PassOnInterrupts& operator=(const PassOnInterrupts&) = delete;

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

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
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execv(program.c_str(), argv.data());
  die(3);
  ::_exit(127);
}

}  // namespace

std::string ChildExit::describe() const {
  return signal ? "killed by signal " + std::to_string(signal) : "exit status " + std::to_string(exit_status);
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

ChildExit run_child(const std::vector<std::string>& args, const ChildIo& io, double grace_s) {
  if (args.empty()) fail("(no program)", "nothing to run");
  const std::string program = find_program(args[0]);
  if (program.empty()) fail(args[0], "not found (searched PATH) or not executable");
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) fail(args[0], std::string("cannot start: ") + std::strerror(errno));
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) fail(args[0], std::string("cannot start (fork): ") + std::strerror(errno));
  if (pid == 0) exec_child(program, argv, io, parent, report[1]);
  ::close(report[1]);
  ChildExit out;
  {
    const PassOnInterrupts pass_on(pid);
    int e[2] = {0, 0};
    ssize_t n;
    while ((n = ::read(report[0], e, sizeof e)) < 0 && errno == EINTR) {
    }
    ::close(report[0]);
    using Clock = std::chrono::steady_clock;
    Clock::time_point since{};
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
      if (g_signal && since == Clock::time_point{}) since = Clock::now();
      if (g_signal && Clock::now() - since > std::chrono::duration<double>(grace_s)) ::kill(pid, SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    out.interrupted_by = g_signal;
    out.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    out.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (n == static_cast<ssize_t>(sizeof e)) {
      const std::string stage = e[0] == 1   ? "cannot enter the working directory " + io.cwd
                                : e[0] == 2 ? "cannot open its output files (" + io.stdout_path + ", " + io.stderr_path + ")"
                                            : "cannot be started";
      fail(args[0], stage + ": " + std::strerror(e[1]));
    }
  }
  return out;
}

}  // namespace vcloe
