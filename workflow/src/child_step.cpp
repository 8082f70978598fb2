// Running `vcloe <args>` as a child process (child_step.hpp).
#include "child_step.hpp"

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "vcloe/core/error.hpp"
#include "vcloe/core/subprocess.hpp"

namespace vcloe::workflow {

namespace {

std::string self_executable() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) fail("vcloe", "cannot find the vcloe executable (/proc/self/exe): " + ec.message());
  return p.string();
}

}  // namespace

int run_vcloe_step(const std::string& title, const std::vector<std::string>& args, std::ostream* echo,
                    const ChildOutput& output) {
  if (echo) {
    *echo << "$ vcloe";
    for (const auto& a : args) *echo << " " << a;
    *echo << "\n" << std::flush;
  }
  std::vector<std::string> argv = {self_executable()};
  argv.insert(argv.end(), args.begin(), args.end());
  const ChildExit e = run_child(argv, {"", output.stdout_path, output.stderr_path});
  if (e.interrupted_by) {  // passed on to the step and waited for: nothing is left writing
    std::cout << std::flush;
    std::cerr << "vcloe: error: step '" << title << "': interrupted by "
              << signal_name(e.interrupted_by)
              << ", passed on to the step, which has ended (" << e.describe() << "); nothing is left running\n"
              << std::flush;
    std::signal(e.interrupted_by, SIG_DFL);
    std::raise(e.interrupted_by);
    std::_Exit(128 + e.interrupted_by);
  }
  if (e.ok()) return 0;
  if (e.signal == 0 && output.also_accepted != 0 && e.exit_status == output.also_accepted) return e.exit_status;
  std::string why = e.describe();
  if (!output.stderr_path.empty()) why += "; see " + output.stderr_path;
  fail("step '" + title + "'", "failed (" + why + ")");
}

}  // namespace vcloe::workflow
