// Running `vcloe <args>` as a child process (child_step.hpp).
#include "child_step.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <ostream>

#include "vcloe/core/error.hpp"

namespace vcloe::workflow {

namespace {

std::string self_executable() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) fail("vcloe", "cannot find the vcloe executable (/proc/self/exe): " + ec.message());
  return p.string();
}

// In the child: the stream `fd` to `path` (when given); false if it cannot be opened.
bool redirect(int fd, const std::string& path) {
  if (path.empty()) return true;
  const int f = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (f < 0) return false;
  return dup2(f, fd) >= 0;
}

}  // namespace

void run_vcloe_step(const std::string& title, const std::vector<std::string>& args, std::ostream* echo,
                    const ChildOutput& output) {
  if (echo) {
    *echo << "$ vcloe";
    for (const auto& a : args) *echo << " " << a;
    *echo << "\n" << std::flush;
  }
  const std::string exe = self_executable();
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) fail(title, "cannot start the step (fork failed)");
  if (pid == 0) {
    if (!redirect(STDOUT_FILENO, output.stdout_path) || !redirect(STDERR_FILENO, output.stderr_path)) _exit(126);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  std::string why = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                    : WEXITSTATUS(status) == 126 ? "its output files could not be opened"
                                                 : "exit status " + std::to_string(WEXITSTATUS(status));
  if (!output.stderr_path.empty()) why += "; see " + output.stderr_path;
  fail("step '" + title + "'", "failed (" + why + ")");
}

namespace {

// Everything `fd` gives until its end (EINTR retried).
std::string read_all(int fd) {
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) text.append(buffer, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR) return text;
  }
}

// In the child: stdout and stderr to `out`, then exec; on failure errno to `report`.
[[noreturn]] void exec_child(const std::vector<char*>& argv, int out, int report) {
  if (dup2(out, STDOUT_FILENO) >= 0 && dup2(out, STDERR_FILENO) >= 0) execvp(argv[0], argv.data());
  const int e = errno;
  (void)!write(report, &e, sizeof e);
  _exit(127);
}

}  // namespace

ProgramResult run_program(const std::string& title, const std::vector<std::string>& args) {
  if (args.empty()) fail(title, "no program to run");
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int out[2], report[2];  // the child's output; exec's errno (closed on a successful exec)
  if (pipe2(out, O_CLOEXEC) != 0) fail(title, std::string("cannot make a pipe: ") + std::strerror(errno));
  if (pipe2(report, O_CLOEXEC) != 0) {
    close(out[0]), close(out[1]);
    fail(title, std::string("cannot make a pipe: ") + std::strerror(errno));
  }
  const pid_t pid = fork();
  if (pid == 0) exec_child(argv, out[1], report[1]);
  close(out[1]), close(report[1]);
  if (pid < 0) {
    close(out[0]), close(report[0]);
    fail(title, "cannot start '" + args[0] + "' (fork failed)");
  }
  ProgramResult r;
  r.output = read_all(out[0]);
  const std::string exec_error = read_all(report[0]);
  close(out[0]), close(report[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (exec_error.size() == sizeof(int)) {
    int e = 0;
    std::memcpy(&e, exec_error.data(), sizeof e);
    fail(title, "cannot start '" + args[0] + "' (" + std::strerror(e) + ")");
  }
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

}  // namespace vcloe::workflow
