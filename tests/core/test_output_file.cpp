// The one writer, the one input/output check, the input ledger and the one way to run a program
// (core/output_file.hpp, core/input_ledger.hpp, core/subprocess.hpp): each tried on several
// cases of its class.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "../test_support.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/input_file.hpp"
#include "vcloe/core/input_ledger.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/core/subprocess.hpp"
#include "vcloe/core/rotation_difference.hpp"
#include "vcloe/core/seed_range.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/core/trace_compare.hpp"

namespace test_output_file {

using namespace vcloe;
using vcloe::test::error_of;
namespace fs = std::filesystem;

fs::path fresh(const std::string& name) { return test::fresh_directory("vcloe-output-file", name); }
std::string text_of(const fs::path& p) { return test::file_text(p); }

void put(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

PoseTrace one_row_trace() {
  PoseTrace t;
  t.time = {0.0};
  t.measured = {Vec6d::Zero()};
  return t;
}

TEST(OneWriter, ALinkAtTheNameIsReplacedNeverWrittenThrough) {
  const fs::path d = fresh("links");
  put(d / "user.txt", "the user's own file");
  // Every writer: a whole file, a trace and its sidecar, a file that grows (control's .partial).
  fs::create_symlink(d / "user.txt", d / "out.yaml");
  fs::create_symlink(d / "user.txt", d / "t.csv.meta.json");
  fs::create_symlink(d / "user.txt", d / "t.csv.partial");
  fs::create_symlink(d / "user.txt", d / ("out.yaml.tmp-" + std::to_string(::getpid())));  // a planted temporary
  write_file_atomically((d / "out.yaml").string(), "new\n", true);
  write_trace((d / "t.csv").string(), one_row_trace(), true);
  StreamedFile partial;
  partial.open((d / "t.csv.partial").string(), true);
  partial.write("time,x\n");
  partial.close();
  EXPECT_EQ(text_of(d / "user.txt"), "the user's own file");
  EXPECT_TRUE(fs::is_symlink(d / ("out.yaml.tmp-" + std::to_string(::getpid()))));  // not ours: left, never followed
  for (const char* name : {"out.yaml", "t.csv.meta.json", "t.csv.partial"}) {
    EXPECT_FALSE(fs::is_symlink(d / name)) << name;
    EXPECT_TRUE(fs::is_regular_file(d / name)) << name;
  }
  EXPECT_EQ(text_of(d / "out.yaml"), "new\n");
  EXPECT_EQ(text_of(d / "t.csv.partial"), "time,x\n");
  // Without --force an existing name (a link too) is never replaced, the link kept.
  fs::create_symlink(d / "user.txt", d / "again.yaml");
  EXPECT_EQ(error_of([&] { write_file_atomically((d / "again.yaml").string(), "x", false); })
                .rfind((d / "again.yaml").string() + ": exists (written meanwhile by another command?) and is not replaced without --force", 0),
            0u);
  EXPECT_NE(error_of([&] { partial.open((d / "again.yaml").string(), false); }).find("exists; pass --force"), std::string::npos);
  EXPECT_TRUE(fs::is_symlink(d / "again.yaml"));
}

using vcloe::test::FileSizeLimit;

TEST(OneWriter, AFullDiskLeavesTheOldFileAndSaysSo) {
  const fs::path d = fresh("full");
  put(d / "model.yaml", "old model\n");
  write_trace((d / "t.csv").string(), one_row_trace(), true);
  const std::string old_csv = text_of(d / "t.csv"), old_meta = text_of(d / "t.csv.meta.json");
  PoseTrace big;
  for (int i = 0; i < 20000; ++i) big.time.push_back(i * 0.01), big.measured.push_back(Vec6d::Constant(0.1));
  std::string e1, e2;
  {
    const FileSizeLimit limit(4096);
    e1 = error_of([&] { write_file_atomically((d / "model.yaml").string(), std::string(100000, 'x'), true); });
    e2 = error_of([&] { write_trace((d / "t.csv").string(), big, true); });
  }
  EXPECT_NE(e1.find("model.yaml: write failed: File too large (larger than the file-size limit, ulimit -f); " + (d / "model.yaml").string() +
                    " is left as it was"),
            std::string::npos)
      << e1;
  EXPECT_NE(e2.find("is left as it was"), std::string::npos) << e2;
  EXPECT_EQ(text_of(d / "model.yaml"), "old model\n");
  EXPECT_EQ(text_of(d / "t.csv"), old_csv);
  EXPECT_EQ(text_of(d / "t.csv.meta.json"), old_meta);
  for (const auto& f : fs::directory_iterator(d))
    EXPECT_EQ(f.path().filename().string().find(".tmp-"), std::string::npos) << f.path();  // nothing left beside
}

TEST(OneWriter, AGroupThatFailsNamesEveryFileOfItNotNothingWasWritten) {
  // Session 21's probe, class O: study merge's study.json failed with "nothing was written" while
  // its study.md, written just before, was there. Outputs that belong together are one group:
  // none written, and the line names them all, whichever fails.
  const fs::path d = fresh("group");
  const std::string json = (d / "study.json").string(), md = (d / "study.md").string(), txt = (d / "n.txt").string();
  for (const std::size_t big : {std::size_t{0}, std::size_t{1}, std::size_t{2}}) {
    std::vector<FileText> group = {{json, "{}\n"}, {md, "| a |\n"}, {txt, "n\n"}};
    group[big].text = std::string(100000, 'x');
    std::string e;
    {
      const FileSizeLimit limit(4096);
      e = error_of([&] { write_files_atomically(group, true); });
    }
    EXPECT_EQ(e.rfind(group[big].path + ": write failed: File too large", 0), 0u) << e;
    EXPECT_NE(e.find("; written together, none of " + json + ", " + md + " and " + txt + " was"), std::string::npos) << e;
    EXPECT_EQ(e.find("nothing was written"), std::string::npos) << e;
    for (const auto& f : fs::directory_iterator(d)) ADD_FAILURE() << "left: " << f.path();
  }
  // Two files: "A and B".
  std::string e;
  {
    const FileSizeLimit limit(4096);
    e = error_of([&] { write_files_atomically({{md, std::string(100000, 'x')}, {json, "{}\n"}}, true); });
  }
  EXPECT_NE(e.find("; written together, none of " + md + " and " + json + " was"), std::string::npos) << e;
}

TEST(IoPlan, OutputsThatAreInputsOrEachOtherAreRefusedNamingBoth) {
  const fs::path d = fresh("plan");
  put(d / "robot.yaml", "r");
  fs::create_directories(d / "img");
  put(d / "img" / "left_0000.png", "png");
  fs::create_hard_link(d / "robot.yaml", d / "hard.yaml");
  fs::create_symlink(d / "robot.yaml", d / "soft.yaml");
  const std::string robot = (d / "robot.yaml").string();
  auto refusal = [&](const std::string& out, const std::string& out2 = "") {
    return error_of([&] {
      IoPlan(true).input(robot, "--robot").input_folder((d / "img").string(), "an image of --images").input_trace(
          (d / "t.csv").string(), "--measured").output(out, "--out").output(out2, "--report").check();
    });
  };
  // An input under another name: a hard link, a symbolic link, a path with ./ and .., an image of
  // a folder, a trace's sidecar.
  for (const fs::path& same : {d / "hard.yaml", d / "soft.yaml", d / "." / "img" / ".." / "robot.yaml"})
    EXPECT_EQ(refusal(same.string()), same.string() + ": is also an input of this command (" + robot +
                                         ", --robot); refusing to overwrite it even with --force");
  EXPECT_NE(refusal((d / "img" / "left_0000.png").string()).find("is also an input of this command (" +
                                                                 (d / "img" / "left_0000.png").string() + ", an image of --images"),
            std::string::npos);
  // The companions any reader may open beside an input without being told (a trace's sidecar, a
  // model's identification report), whether they exist yet or not, of any kind of input.
  EXPECT_NE(refusal((d / "t.csv.meta.json").string()).find("the companion of " + (d / "t.csv").string()), std::string::npos);
  EXPECT_EQ(refusal(robot + ".report.json"), robot + ".report.json: is also an input of this command (" + robot +
                                                 ".report.json, the companion of " + robot +
                                                 ", --robot); refusing to overwrite it even with --force");
  EXPECT_NE(refusal(robot + ".meta.json").find("the companion of " + robot), std::string::npos);
  // Two outputs on one file, neither there yet (the quoted `--out r.html --report r.html`), or
  // the same under two spellings.
  const std::string r = (d / "r.html").string();
  EXPECT_EQ(refusal(r, r), r + ": is also another output of this command (" + r + ", --out); two outputs cannot share one file");
  EXPECT_NE(refusal(r, (d / "img" / ".." / "r.html").string()).find("is also another output"), std::string::npos);
  EXPECT_EQ(refusal(r, (d / "other.html").string()), "");  // distinct outputs pass
  EXPECT_EQ(error_of([&] { IoPlan(false).output(robot).check(); }), robot + ": exists; pass --force to overwrite");
}

// Probe 33, e06: `simulate --out $'s\n.csv'` printed its success line on two lines. No output, file
// or folder, takes a name with a control character; the refusal says the name escaped, on one line.
TEST(IoPlan, AnOutputNameWithAControlCharacterIsRefusedOnOneLine) {
  const fs::path d = fresh("control-character");
  for (const std::string bad : {"s\n.csv", "tab\t.csv", "esc\x1b.csv", "del\x7f.csv"}) {
    const std::string path = (d / bad).string();
    const std::string e = error_of([&] { IoPlan(true).output(path, "--out").check(); });
    EXPECT_NE(e.find("a name with a control character"), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    EXPECT_NE(error_of([&] { IoPlan(true).output_folder(path, "--out").check(); }), "");
    EXPECT_NE(error_of([&] { IoPlan(true).planned(path, "a step's").check(); }), "");
  }
  EXPECT_EQ(error_of([&] { IoPlan(true).output((d / "plain é.csv").string(), "--out").check(); }), "")
      << "a space or a letter beyond ASCII is no control character";
}

// Probe 33, o09: `predict --out x.csv.meta.json --force` replaced the sidecar of the trace x.csv
// beside it. An output named as the companion of a file this command does not write is refused
// even with --force; a trace's own sidecar, written with it, is not.
TEST(IoPlan, AnOutputNamedAsTheCompanionOfAnotherFileIsRefusedEvenWithForce) {
  const fs::path d = fresh("companion");
  put(d / "x.csv", "time,x\n");
  put(d / "m.yaml", "m");
  const std::string side = (d / "x.csv.meta.json").string(), report = (d / "m.yaml.report.json").string();
  EXPECT_EQ(error_of([&] { IoPlan(true).output(side, "--out").check(); }),
            side + ": is the sidecar of " + (d / "x.csv").string() +
                ", which this command does not write; refusing to replace it even with --force (give the output its own name)");
  EXPECT_NE(error_of([&] { IoPlan(true).output(report, "--out").check(); }).find("is the identification report of"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { IoPlan(true).output_trace((d / "x.csv").string(), "--out").check(); }), "");
  EXPECT_EQ(error_of([&] { IoPlan(true).output((d / "y.csv.meta.json").string(), "--out").check(); }), "")
      << "no y.csv there: nothing's companion";
}

// What a command that runs steps into a directory (study, demo) will write, declared before the
// directory is made: checked against every input (and its companions, through a link) and against
// each other, with the companions of a trace or a model; its directory, shape and --force are for
// whoever writes it, when it does.
TEST(IoPlan, PlannedOutputsAreCheckedAgainstEveryInputBeforeTheirDirectoryIsMade) {
  const fs::path d = fresh("planned");
  fs::create_directories(d / "s" / "truth-1");
  put(d / "s" / "truth-1" / "run.out", "the priors, kept here");
  fs::create_symlink(d / "s" / "truth-1" / "run.out", d / "priors.yaml");
  const std::string priors = (d / "priors.yaml").string(), s = (d / "s").string();
  auto refusal = [&](const std::string& out, IoPlan::Written what = IoPlan::Written::file, const std::string& out2 = "") {
    return error_of([&] {
      IoPlan(false).input(priors, "--priors").planned(out, "a step's", what).planned(out2, "another step's").check();
    });
  };
  using W = IoPlan::Written;
  EXPECT_EQ(refusal(s + "/truth-1/run.out"), s + "/truth-1/run.out: is also an input of this command (" + priors +
                                                 ", --priors); refusing to overwrite it even with --force");
  EXPECT_NE(refusal(s + "/truth-1/run.out", W::trace).find("is also an input"), std::string::npos);
  EXPECT_NE(refusal(s + "/m.yaml", W::model, s + "/m.yaml.report.json").find("is also another output"),
            std::string::npos);  // a model's report is written beside it
  EXPECT_NE(refusal(s + "/x", W::file, priors + ".meta.json").find("is also an input"), std::string::npos);  // a companion
  EXPECT_NE(refusal(s + "/m.csv", W::trace, s + "/m.csv.meta.json").find("is also another output"), std::string::npos);
  // Not yet there, in a directory not made yet, an existing file without force: all for later.
  EXPECT_EQ(refusal(s + "/truth-2/run.out", W::trace, s + "/truth-2/no/such/dir/x"), "");
  put(d / "s" / "study.md", "an earlier study's table");
  EXPECT_EQ(refusal(s + "/study.md"), "");
  EXPECT_EQ(IoPlan(true).planned(s + "/m.yaml", "", W::model).planned(s + "/t.csv", "", W::trace).output_paths(),
            (std::vector<std::string>{s + "/m.yaml", s + "/m.yaml.report.json", s + "/t.csv", s + "/t.csv.meta.json"}));
}

TEST(InputLedger, InputsAreHashedFromTheBytesParsedAndASecondDifferentReadIsRefused) {
  const fs::path d = fresh("ledger");
  const std::string f = (d / "robot.yaml").string();
  put(f, "first\n");
  {
    const InputLedger ledger;
    EXPECT_EQ(read_input_file(f, InputKind::Yaml), "first\n");
    put(f, "edited during the run\n");  // e.g. during a fit
    // What is recorded is what was parsed, not what is on disk now.
    EXPECT_EQ(file_record(f).sha256, sha256("first\n"));
    EXPECT_EQ(error_of([&] { read_input_file(f, InputKind::Yaml); }),
              f + ": changed while this command was running (read twice, with different contents: edited or replaced "
                  "meanwhile); nothing recorded from it, run the command again");
    // Replaced by a rename (another inode) is the same name: still the bytes parsed.
    put(d / "new.yaml", "replaced\n");
    fs::rename(d / "new.yaml", f);
    EXPECT_EQ(sha256_file(f), sha256("first\n"));
    // A file this command writes itself is forgotten: read back, it is its new content.
    write_file_atomically(f, "written\n", true);
    EXPECT_EQ(read_input_file(f, InputKind::Yaml), "written\n");
  }
  EXPECT_EQ(file_record(f).sha256, sha256("written\n"));  // no ledger: the file now
  EXPECT_EQ(read_input_file(f, InputKind::Yaml), "written\n");
}

TEST(Subprocess, ArgumentsAreNeverParsedByAShell) {
  const fs::path d = fresh("noshell");
  const std::string nasty = "a'b\"; touch " + (d / "pwned").string() + "; $(touch " + (d / "pwned2").string() + ")\n`x`";
  const ChildExit e = run_child({"printf", "%s", nasty}, {d.string(), (d / "out.txt").string(), ""});
  EXPECT_TRUE(e.ok()) << e.describe();
  EXPECT_EQ(text_of(d / "out.txt"), nasty);
  EXPECT_FALSE(fs::exists(d / "pwned"));
  EXPECT_FALSE(fs::exists(d / "pwned2"));
  EXPECT_NE(error_of([] { run_child({"vcloe-no-such-program"}); }).find("vcloe-no-such-program: not found"), std::string::npos);
  EXPECT_NE(error_of([&] { run_child({"true"}, {(d / "missing").string(), "", ""}); }).find("cannot enter the working directory"),
            std::string::npos);
}

// Ended: no such process, or a zombie (an orphan's exit is reaped by whatever init the machine
// runs, and some never reap: the process has ended all the same).
bool has_ended(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  const std::string stat = text_of("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
}

bool gone_within(pid_t pid, double seconds) {
  for (auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
       std::chrono::steady_clock::now() < end; std::this_thread::sleep_for(std::chrono::milliseconds(20)))
    if (has_ended(pid)) return true;
  return false;
}

pid_t read_pid(const fs::path& p) {
  for (int i = 0; i < 250 && text_of(p).find('\n') == std::string::npos; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return static_cast<pid_t>(std::stol("0" + text_of(p)));
}

// A parent (forked here) running a child that records its pid and, on SIGTERM, that it got it.
pid_t parent_of_child(const fs::path& d) {
  const pid_t parent = ::fork();
  if (parent == 0) {
    const std::string script = "echo $$ > pid.txt; trap 'echo got > term.txt; exit 3' TERM; while :; do sleep 0.02; done";
    const ChildExit e = run_child({"sh", "-c", script}, {d.string(), "", ""}, 5.0);
    ::_exit(e.interrupted_by ? 100 + e.interrupted_by : 1);
  }
  return parent;
}

TEST(Subprocess, AChildDiesWithItsParentAndInterruptsArePassedOnAndWaitedFor) {
  const fs::path d = fresh("children");
  // SIGTERM to the parent: passed on, the child ends its own way, the parent waits for it.
  pid_t parent = parent_of_child(d);
  pid_t child = read_pid(d / "pid.txt");
  ASSERT_GT(child, 0);
  ::kill(parent, SIGTERM);
  int status = 0;
  ::waitpid(parent, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 100 + SIGTERM) << status;
  EXPECT_EQ(text_of(d / "term.txt"), "got\n");
  const bool ended = gone_within(child, 1.0);
  EXPECT_TRUE(ended);
  if (!ended) ::kill(child, SIGKILL);
  // SIGKILL to the parent (nothing can be passed on): the parent-death signal ends the child.
  fs::remove(d / "pid.txt");
  fs::remove(d / "term.txt");
  parent = parent_of_child(d);
  child = read_pid(d / "pid.txt");
  ASSERT_GT(child, 0);
  ::kill(parent, SIGKILL);
  ::waitpid(parent, &status, 0);
  const bool gone = gone_within(child, 2.0);
  EXPECT_TRUE(gone);
  EXPECT_EQ(text_of(d / "term.txt"), "got\n");
  if (!gone) ::kill(child, SIGKILL);  // a red run leaves no orphan holding the test's output open
}

}  // namespace test_output_file

namespace test_output_file {

using namespace vcloe;

TEST(Rotation, AnglesAreComparedAsRotationsAcrossPlusMinusPi) {
  // The same rotations written on either side of +-pi, and on the other Euler branch.
  PoseTrace a, b;
  for (int i = 0; i < 50; ++i) {
    const double g = M_PI - 0.002 + 0.0001 * i;  // crosses pi
    Vec6d p = Vec6d::Zero(), q = Vec6d::Zero();
    p << 0.01, 0, 0.2, 0.1, 0.2, g;
    q << 0.01, 0, 0.2, 0.1, 0.2, std::remainder(g, 2 * M_PI);
    a.time.push_back(0.01 * i), a.measured.push_back(p);
    b.time.push_back(0.01 * i), b.measured.push_back(q);
  }
  TraceDifference d = compare_traces(a, b, TraceColumns::Measured, TraceColumns::Measured, "a", "b");
  for (double r : d.rms_mrad) EXPECT_LT(r, 1e-9);
  // The other branch (alpha + pi, pi - beta, gamma + pi) is the same rotation.
  const Vec3d e(0.3, 0.4, -0.5), other(0.3 + M_PI, M_PI - 0.4, -0.5 + M_PI);
  EXPECT_LT(euler_difference(e, other).norm(), 1e-12);
  EXPECT_TRUE(rotation_xyz(e(0), e(1), e(2)).isApprox(rotation_xyz(other(0), other(1), other(2)), 1e-12));
  // A real difference stays the per-angle one; interpolation goes the short way round.
  EXPECT_NEAR(euler_difference(Vec3d(0, 0, 0.01), Vec3d(0, 0, -0.02)).z(), 0.03, 1e-15);
  EXPECT_NEAR(std::remainder(pose_between(a.measured[0], b.measured.back(), 0.5)(5), 2 * M_PI),
              std::remainder(M_PI - 0.002 + 0.00245, 2 * M_PI), 1e-12);
  // Interpolated onto other times across the wrap: still no difference.
  PoseTrace half = a;
  half.time.resize(25), half.measured.resize(25);
  for (std::size_t i = 0; i < half.size(); ++i) half.time[i] += 0.005, half.measured[i](5) += 0.00005;  // on the line
  d = compare_traces(half, b, TraceColumns::Measured, TraceColumns::Measured, "a", "b");
  EXPECT_TRUE(d.interpolated);
  for (double r : d.rms_mrad) EXPECT_LT(r, 1e-6);
}

TEST(Subprocess, WhenOneChildOfAGroupFailsTheOthersGetTheGraceThenSigterm) {
  // rig run's roles: one fails, the others come to their own end within the grace, else SIGTERM.
  const fs::path d = fresh("group");
  const auto start = std::chrono::steady_clock::now();
  std::vector<ChildGroup::Ended> ended;
  {
    ChildGroup g;
    // The failing one ends only once the stubborn one has its handler (a loaded machine starts sh slowly).
    g.start("stubborn", {"sh", "-c", "trap 'echo term > term.txt; exit 7' TERM; touch ready; while :; do sleep 0.02; done"},
            {d.string(), "", ""});
    g.start("failing", {"sh", "-c", "while [ ! -f ready ]; do sleep 0.01; done; exit 3"}, {d.string(), "", ""});
    g.start("fine", {"true"});
    ended = g.wait_all(0.3);
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(ended.size(), 3u);
  EXPECT_EQ(ended[0].name, "stubborn");
  EXPECT_EQ(ended[0].exit.exit_status, 7);  // ended by the SIGTERM after the grace, its own way
  EXPECT_EQ(text_of(d / "term.txt"), "term\n");
  EXPECT_EQ(ended[1].exit.exit_status, 3);
  EXPECT_TRUE(ended[2].exit.ok());
  EXPECT_GT(took, 0.3);  // the grace was given
  EXPECT_LT(took, 30.0);
  EXPECT_EQ(ended[0].exit.interrupted_by, 0);
  // A program that cannot start: the group throws naming it, and ends the child already started.
  EXPECT_NE(error_of([&] {
              ChildGroup g;
              g.start("sleeper", {"sleep", "30"});
              g.start("missing", {"vcloe-no-such-program"});
            }).find("vcloe-no-such-program: not found"),
            std::string::npos);
}

TEST(Seeds, ARangeOfSeedsThatWouldWrapIsRefusedInOnePlace) {
  EXPECT_FALSE(seed_range_problem("--seed", 4294967294u, 2, 4294967295u));
  const auto p = seed_range_problem("--seed", 4294967295u, 2, 4294967295u);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->message, "--seed: 4294967295 is too large: its 2 seeds (4294967295 + 0 to 1) would pass 4294967295, the largest "
                        "this command carries, and wrap round to 0; expected --seed from 0 to 4294967294");
  EXPECT_TRUE(seed_range_problem("--seed", 4294967295u - 100000, 1, 4294967295u, 100001));  // a second stream
  EXPECT_FALSE(seed_range_problem("--seed", 0, 1000, 4294967295u, 100000));
  EXPECT_TRUE(seed_range_problem("--seed", 18446744073709551614u, 2, 18446744073709551614u));
  EXPECT_TRUE(seed_range_problem("--seed", 0, 10, 5, 100));  // the span alone too large
  // Seeds derived at a stride (render: --seed x 1000003 + frame): first x stride + span at most max.
  EXPECT_FALSE(seed_range_problem("--seed", 9, 5, 49, 0, 5));  // 45 + 4 = 49
  const auto r = seed_range_problem("--seed", 10, 5, 49, 0, 5);  // 50 + 0 to 4
  ASSERT_TRUE(r);
  EXPECT_EQ(r->message, "--seed: 10 is too large: its 5 seeds (10 x 5 + 0 to 4) would pass 49, the largest this command "
                        "carries, and wrap round to 0; expected --seed from 0 to 9");
  EXPECT_TRUE(seed_range_problem("--seed", 18446744073709551614u, 1, 18446744073709551614u, 0, 3));  // the product wraps
  EXPECT_FALSE(seed_range_problem("--seed", 6148914691236517204u, 1, 18446744073709551614u, 0, 3));
}

}  // namespace test_output_file

namespace test_output_file {

// Session 29's probe 30, C: on a full disk a recording's last row was left cut short (and
// counted as kept). A write that fails leaves the file as it was before it: whole rows only.
TEST(OneOutputCheck, ARecordingThatMeetsAFullDiskKeepsWholeRowsOnly) {
  const fs::path d = fresh("full");
  StreamedFile rows;
  rows.open((d / "o.csv.partial").string(), false);
  const std::string row = "0.01,0.1,0.2,0.3,0.4,0.5,0.6\n";  // 29 bytes
  {
    vcloe::test::FileSizeLimit limit(100);  // three rows fit, the fourth is cut at byte 100
    for (int k = 0; k < 3; ++k) rows.write(row);
    EXPECT_NE(error_of([&] { rows.write(row); }).find("o.csv.partial"), std::string::npos);
  }
  rows.close();
  EXPECT_EQ(vcloe::test::file_text(d / "o.csv.partial"), row + row + row);
}

// "o.csv.partial: exists; pass --force to overwrite" was said of another command's recording in
// progress (--force would have clobbered it), and "d: exists; pass --force" of a --dir that is
// a file (--force then said "is a file"): the wrong advice, from the one output check.
TEST(OneOutputCheck, ARecordingInProgressIsRefusedEvenWithForceAndADirThatIsAFileAsSuch) {
  const fs::path d = fresh("live");
  StreamedFile live;
  live.open((d / "o.csv.partial").string(), false);
  for (const bool force : {false, true}) {
    const std::string e = error_of([&] { IoPlan(force).output((d / "o.csv.partial").string()).check(); });
    EXPECT_NE(e.find("o.csv.partial: is being recorded by another running command"), std::string::npos) << e;
  }
  EXPECT_TRUE(being_recorded((d / "o.csv.partial").string()));
  live.close();  // the recording ended (or its process died): an ordinary file again
  EXPECT_FALSE(being_recorded((d / "o.csv.partial").string()));
  EXPECT_NE(error_of([&] { IoPlan(false).output((d / "o.csv.partial").string()).check(); }).find("exists; pass --force"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { IoPlan(true).output((d / "o.csv.partial").string()).check(); }), "");
  put(d / "f", "x");
  for (const bool force : {false, true})
    EXPECT_NE(error_of([&] { OutputDirectory((d / "f").string(), force, "--dir", "the demo files"); })
                  .find("f: is a file; --dir names a directory"),
              std::string::npos);
  fs::create_directory(d / "g");
  EXPECT_NE(error_of([&] { OutputDirectory((d / "g").string(), false, "--dir", "the demo files"); })
                .find("g: exists; pass --force to overwrite the demo files in it"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { OutputDirectory((d / "g").string(), true, "--dir", "the demo files"); }), "");
  EXPECT_TRUE(fs::is_directory(d / "g"));  // used with force, not made: kept though empty
}

}  // namespace test_output_file
