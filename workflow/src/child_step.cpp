// Running `vcloe <args>` as a child process (child_step.hpp).
#include "child_step.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

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

int run_vcloe_step(const std::string& title, const std::vector<std::string>& args, std::ostream* echo,
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
  if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || (output.also_accepted != 0 && WEXITSTATUS(status) == output.also_accepted)))
    return WEXITSTATUS(status);
  std::string why = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                    : WEXITSTATUS(status) == 126 ? "its output files could not be opened"
                                                 : "exit status " + std::to_string(WEXITSTATUS(status));
  if (!output.stderr_path.empty()) why += "; see " + output.stderr_path;
  fail("step '" + title + "'", "failed (" + why + ")");
}

}  // namespace vcloe::workflow
