#pragma once
// Starting the rig's processes (`vcloe robot serve`, `vision serve`, `control`) one by one from a
// test, so that the test can listen beside them, impersonate one role or kill one mid-run.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

extern char** environ;

namespace cli_test {

class Process {
 public:
  // Runs `vcloe <args>` with its output to `log`.
  Process(const std::string& args, std::filesystem::path log) : log_(std::move(log)) {
    const std::string cmd = "exec " + std::string(VCLOE_BINARY) + " " + args + " > " + log_.string() + " 2>&1";
    const char* argv[] = {"/bin/sh", "-c", cmd.c_str(), nullptr};
    if (posix_spawn(&pid_, "/bin/sh", nullptr, nullptr, const_cast<char* const*>(argv), environ) != 0) pid_ = -1;
  }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process() {
    if (status_ < 0 && pid_ > 0) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }
  void kill(int signal) { ::kill(pid_, signal); }
  pid_t pid() const { return pid_; }
  // Its exit status (128 + signal if killed); -1 if it is still running after `timeout` (0:
  // looked at once).
  int wait(std::chrono::seconds timeout = std::chrono::seconds(120)) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (status_ < 0) {
      int st = 0;
      if (waitpid(pid_, &st, WNOHANG) == pid_) status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      else if (std::chrono::steady_clock::now() >= end) break;
      else std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return status_;
  }
  std::string output() const {
    std::ifstream in(log_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  std::filesystem::path log_;
  pid_t pid_ = -1;
  int status_ = -1;
};

// The four streams under a test directory, as `--...` options of each role.
struct RigStreams {
  std::string camera, poses, commands, status;
  explicit RigStreams(const std::filesystem::path& dir)
      : camera("ipc://" + (dir / "camera").string()),
        poses("ipc://" + (dir / "poses").string()),
        commands("ipc://" + (dir / "commands").string()),
        status("ipc://" + (dir / "status").string()) {}
  std::string robot() const {
    return " --camera-stream " + camera + " --poses " + poses + " --commands " + commands + " --status " + status;
  }
  std::string vision() const { return " --camera-stream " + camera + " --poses " + poses + " --status " + status; }
  std::string control() const { return " --poses " + poses + " --commands " + commands + " --status " + status; }
};

}  // namespace cli_test
