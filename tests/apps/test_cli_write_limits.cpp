// Issue 27's classes B, D and I as a user meets them (docs/robustness.md, "By mechanism, not by
// case"): a file-size limit (ulimit -f) reported by every writer instead of SIGXFSZ killing the
// process (apps/main.cpp ignores it; the one writer reports EFBIG), an output directory that
// takes no file refused before any work with the system's reason (the IoPlan check), and an
// extension in capitals accepted (core's file_extension).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <utility>
#include <vector>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using namespace cli_test;

namespace test_cli_write_limits {

// `vcloe <args>` (a shell line, from `dir`) under a file-size limit of `bytes`, with SIGXFSZ at
// its default as a user's shell leaves it: set in a forked child, then exec.
CommandResult run_under_file_limit(rlim_t bytes, const fs::path& dir, const std::string& args) {
  int out[2];
  if (::pipe(out) != 0) return {-1, "pipe failed"};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(out[0]);
    ::dup2(out[1], STDERR_FILENO);
    if (args.find(" > ") == std::string::npos) ::dup2(out[1], STDOUT_FILENO);
    std::signal(SIGXFSZ, SIG_DFL);
    const rlimit limit{bytes, bytes};
    if (::chdir(dir.c_str()) != 0 || ::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(126);
    const std::string line = "exec " + std::string(VCLOE_BINARY) + " " + args;
    ::execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), text};
}

// `vcloe <args>` run through `prefix` (another user's `setpriv …`, or nothing).
CommandResult run_vcloe_as(const std::string& prefix, const std::string& args) {
  FILE* p = popen((prefix + VCLOE_BINARY + " " + args + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int rc = pclose(p);
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc), out};
}

bool temporaries_left(const fs::path& dir) {
  for (const auto& f : fs::recursive_directory_iterator(dir))
    if (f.path().filename().string().find(".tmp-") != std::string::npos) return true;
  return false;
}

// Every kind of writer under `ulimit -f`: a trace and its sidecar, a YAML file over an old one
// (--force), the rig's keys, a plot drawn by gnuplot, a report on stdout redirected to a file.
// Before, each was killed by SIGXFSZ (exit 153, no message, X.tmp-PID left beside X).
TEST(CliWriteLimits, AFileSizeLimitIsAOneLineWriteErrorInEveryWriterAndLeavesNothingBeside) {
  const fs::path d = fresh_dir("vcloe-cli-write-limits", "ulimit");
  ASSERT_EQ(run_vcloe("trajectory random --seed 5 --duration 1 --out " + (d / "ref.yaml").string()).status, 0);
  ASSERT_EQ(run_vcloe("simulate --reference " + (d / "ref.yaml").string() + " --out " + (d / "a.csv").string()).status, 0);
  std::ofstream(d / "old.yaml") << "the user's trajectory\n";
  struct Case {
    rlim_t bytes;
    std::string args, expected;
  };
  const std::vector<Case> cases = {
      {20000, "simulate --reference ref.yaml --out s.csv", "s.csv: write failed: File too large"},
      {0, "trajectory random --seed 1 --duration 1 --out old.yaml --force", "old.yaml: write failed: File too large "
                                                                            "(larger than the file-size limit, ulimit -f); old.yaml is left as it was"},
      {0, "rig keys --dir keys", "write failed: File too large"},
      {30000, "compare a.csv a.csv --plot p.png > /dev/null", "p.png: gnuplot failed (killed by SIGXFSZ: a file it wrote grew past the "
                                                  "file-size limit, ulimit -f); nothing written"},
      // gnuplot's data (a temporary the user never named) failing: said of the plot (it named the temporary).
      {2048, "compare a.csv a.csv --plot q.png > /dev/null", "q.png: not written: gnuplot's data for it could not be written"},
      {0, "trajectory check ref.yaml > out.txt", "stdout: the output could not be written (File too large)"},
  };
  for (const Case& c : cases) {
    const CommandResult r = run_under_file_limit(c.bytes, d, c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.out;
    EXPECT_EQ(r.out.rfind("vcloe: error: ", 0), 0u) << c.args << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.expected), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_FALSE(temporaries_left(d)) << c.args;
  }
  EXPECT_FALSE(fs::exists(d / "s.csv") || fs::exists(d / "s.csv.meta.json") || fs::exists(d / "p.png") || fs::exists(d / "q.png"));
  EXPECT_EQ(read_file(d / "old.yaml"), "the user's trajectory\n");
}

// Probe 26's class D: `render --force` over an earlier render put its images in place one by one,
// and the disk filling at truth.csv left the new images beside the old truth; `measure --truth`
// then read the mix and printed a wrong error (4 mm). The images and the truth are one group:
// a failure anywhere leaves the folder as it was, and the line says none of the set was written.
TEST(CliWriteLimits, ARenderThatFailsPartwayLeavesTheEarlierSetAsItWas) {
  const fs::path d = fresh_dir("vcloe-cli-write-limits", "render");
  write_small_rig(d / "rig.yaml");  // PNGs of under 5 kB
  const std::string render = "render --rig rig.yaml --noise-dn 0 --frames 24 --out img";
  ASSERT_EQ(run_under_file_limit(RLIM_INFINITY, d, render).status, 0);
  std::vector<std::pair<std::string, std::string>> before;
  for (const auto& f : fs::directory_iterator(d / "img")) before.emplace_back(f.path().filename().string(), read_file(f.path()));
  std::sort(before.begin(), before.end());
  // Every image fits the limit; truth.csv (24 rows, 9 kB) does not: the last file of the set.
  const CommandResult r = run_under_file_limit(6000, d, render + " --blur-px 2 --force");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("img/truth.csv: write failed: File too large"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; written together, none of the 48 images and truth.csv of img was"), std::string::npos) << r.out;
  std::vector<std::pair<std::string, std::string>> after;
  for (const auto& f : fs::directory_iterator(d / "img")) after.emplace_back(f.path().filename().string(), read_file(f.path()));
  std::sort(after.begin(), after.end());
  EXPECT_EQ(after.size(), before.size());
  EXPECT_TRUE(after == before) << "the earlier render was changed";  // no new image, no temporary
}

// An output directory without write permission (a read-only mount the same: EROFS) was found at
// the final write — after identify's fit, validate, excite's 39 s — and said as "No such file
// or directory". Now refused before any work with the system's reason. Run as another user
// when root (root may write anywhere).
TEST(CliWriteLimits, AnOutputDirectoryThatTakesNoFileIsRefusedBeforeAnyWorkWithTheSystemsReason) {
  const fs::path d = fresh_dir("vcloe-cli-write-limits", "nowrite");
  fs::create_directories(d / "ro");
  fs::permissions(d / "ro", fs::perms::owner_all, fs::perm_options::remove);
  fs::permissions(d / "ro", fs::perms::owner_read | fs::perms::owner_exec, fs::perm_options::add);
  std::string as_other;
  if (::geteuid() == 0) {
    if (::access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "root without setpriv: cannot test a permission";
    as_other = "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups ";
    if (run_vcloe_as(as_other, "--version").status != 0) GTEST_SKIP() << "another user cannot run " << VCLOE_BINARY;
  }
  const std::string ro = (d / "ro").string();
  for (const std::string& args :
       {"excite --out " + ro + "/e.yaml", "simulate --reference " + config_dir + "reference.yaml --out " + ro + "/s.csv",
        "truth random --seed 1 --out " + ro + "/t.yaml"}) {
    const auto t0 = std::chrono::steady_clock::now();
    const CommandResult r = run_vcloe_as(as_other, args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("cannot be written: its directory " + ro + " takes no new file (Permission denied)"),
              std::string::npos)
        << args << "\n" << r.out;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0) << args;
  }
  EXPECT_TRUE(fs::is_empty(d / "ro"));
}

// `--plot P.PNG`, `--plot Q.SVG` were refused ("unknown plot format '.PNG'"): accepted, drawn
// in the format the name says.
TEST(CliWriteLimits, AnExtensionInCapitalsIsAccepted) {
  const fs::path d = fresh_dir("vcloe-cli-write-limits", "caps");
  ASSERT_EQ(run_vcloe("trajectory random --seed 5 --duration 1 --out " + (d / "ref.yaml").string()).status, 0);
  const std::string a = (d / "a.csv").string();
  ASSERT_EQ(run_vcloe("simulate --reference " + (d / "ref.yaml").string() + " --out " + a).status, 0);
  for (const char* plot : {"P.PNG", "Q.Svg"}) {
    const CommandResult r = run_vcloe("compare " + a + " " + a + " --plot " + (d / plot).string());
    EXPECT_EQ(r.status, 0) << plot << "\n" << r.out;
  }
  EXPECT_EQ(read_file(d / "P.PNG").substr(1, 3), "PNG");
  EXPECT_NE(read_file(d / "Q.Svg").find("<svg"), std::string::npos);
}

}  // namespace test_cli_write_limits
