// The one way to run a program (core/subprocess.hpp) and its temporary directory
// (core/output_file.hpp): a child that never returns is stopped at its time limit and said so; a
// relative TMPDIR still names a directory the child can reach from its own working directory.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "../test_support.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/core/subprocess.hpp"

namespace test_subprocess {

using namespace vcloe;
namespace fs = std::filesystem;

TEST(Subprocess, AChildStillRunningAtItsTimeLimitIsStoppedAndSaidSo) {
  // A gnuplot that never returned kept `compare --plot` waiting for ever.
  for (const std::vector<std::string>& argv : {std::vector<std::string>{"sleep", "30"},
                                               {"sh", "-c", "trap '' TERM; while :; do sleep 0.02; done"}}) {
    const auto start = std::chrono::steady_clock::now();
    const ChildExit e = run_child(argv, {}, 0.3, 0.4);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_FALSE(e.ok()) << argv.back();
    EXPECT_EQ(e.timed_out_after, 0.4) << argv.back();
    EXPECT_NE(e.describe().find("no end within 0.4 s: stopped"), std::string::npos) << e.describe();
    EXPECT_GT(took, 0.4);
    EXPECT_LT(took, 10.0);  // SIGTERM at the limit; SIGKILL for one that ignores it, 0.3 s later
  }
  const ChildExit quick = run_child({"true"}, {}, 0.3, 5.0);
  EXPECT_TRUE(quick.ok());
  EXPECT_EQ(quick.timed_out_after, 0.0);
}

TEST(TemporaryDirectory, ARelativeTmpdirIsMadeAbsoluteForChildrenElsewhere) {
  // TMPDIR=t broke every plot: gnuplot, run in the directory, could not open "t/vcloe-…/out.txt".
  const fs::path d = test::fresh_directory("vcloe-subprocess", "tmpdir");
  fs::create_directories(d / "t");
  const fs::path was = fs::current_path();
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  fs::current_path(d);
  ::setenv("TMPDIR", "t", 1);
  {
    const TemporaryDirectory tmp("p.png", "gnuplot");
    EXPECT_TRUE(fs::path(tmp.path()).is_absolute()) << tmp.path();
    EXPECT_EQ(fs::path(tmp.path()).parent_path(), d / "t");
    const ChildExit e = run_child({"sh", "-c", "echo x > out.txt"}, {tmp.path(), tmp.file("o.txt"), tmp.file("e.txt")});
    EXPECT_TRUE(e.ok()) << e.describe();
    EXPECT_TRUE(fs::exists(fs::path(tmp.path()) / "out.txt"));
  }
  if (old) ::setenv("TMPDIR", saved.c_str(), 1);
  else ::unsetenv("TMPDIR");
  fs::current_path(was);
}

}  // namespace test_subprocess
