// Issue 27's classes A, C, D and I stopped in core, each tried on several cases of its class
// (docs/robustness.md, "By mechanism, not by case"): JSON nested without bound (the one parser,
// core/json_file), writers racing without --force (the one writer's last step), an output
// directory that takes no file (the IoPlan check), an extension in capitals (file_extension).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../test_support.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/file_extension.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/core/trace.hpp"

namespace test_write_mechanisms {

using namespace vcloe;
using vcloe::test::error_of;
namespace fs = std::filesystem;

fs::path fresh_mech(const std::string& name) { return test::fresh_directory("vcloe-write-mechanisms", name); }
std::string mech_text(const fs::path& p) { return test::file_text(p); }

PoseTrace mech_trace(double x) {
  PoseTrace t;
  t.time = {0.0, 0.01};
  t.measured = {Vec6d::Constant(x), Vec6d::Constant(x)};
  return t;
}

// `n` times `open`, then `inner`, then `n` times `close`.
std::string nested(const std::string& open, const std::string& inner, const std::string& close, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += open;
  s += inner;
  for (int i = 0; i < n; ++i) s += close;
  return s;
}

// A sidecar key nested 2·10^5 arrays deep (kept as a key vcloe does not know) crashed every
// command reading the trace: copying it recursed until the stack ran out. Arrays, objects, a
// mix, at the top and under a key, in a sidecar and in any other JSON read: refused by the
// parser, naming the file; nesting up to the bound is read.
TEST(JsonFile, NestingDeeperThanTheBoundIsRefusedByTheOneParserWhateverReadsIt) {
  const std::string arrays = nested("[", "", "]", 200000), objects = nested("{\"a\":", "1", "}", 200000),
                    mixed = nested("[{\"k\":", "0", "}]", 100000);
  const std::string head = R"({"format": "vcloe-trace-1", "x": )";
  for (const std::string& text : {head + arrays + "}", head + objects + "}", head + mixed + "}"}) {
    const std::string e = error_of([&] { parse_sidecar(text, "run.csv.meta.json"); });
    EXPECT_EQ(e.rfind("run.csv.meta.json: arrays and objects nested deeper than 100 levels", 0), 0u) << e.substr(0, 200);
  }
  EXPECT_EQ(error_of([&] { parse_json(arrays, "r.json"); }).rfind("r.json: arrays and objects nested deeper", 0), 0u);
  EXPECT_EQ(error_of([&] { parse_json(objects, "v.json"); }).rfind("v.json: arrays and objects nested deeper", 0), 0u);
  EXPECT_NO_THROW(parse_json(nested("[", "", "]", 100), "ok.json"));
  EXPECT_NE(error_of([&] { parse_json(nested("[", "", "]", 101), "deep.json"); }).find("deeper than 100"),
            std::string::npos);
  const TraceMetadata m = parse_sidecar(head + nested("[", "", "]", 50) + "}", "s.json");
  EXPECT_TRUE(m.other.contains("x")) << "a deep but bounded unknown key is kept";
}

// Six writers racing to one trace, all started together (forked, released by one pipe); the
// exit status of each.
std::vector<int> race_writers(const std::string& out, bool force) {
  int go[2];
  if (::pipe(go) != 0) return {};
  std::vector<pid_t> writers;
  for (int w = 0; w < 6; ++w) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(go[1]);
      char c;
      (void)!::read(go[0], &c, 1);
      try {
        write_trace(out, mech_trace(w + 1), force);
      } catch (const Error&) {
        ::_exit(2);
      }
      ::_exit(0);
    }
    writers.push_back(pid);
  }
  ::close(go[0]);
  ::close(go[1]);  // the start
  std::vector<int> status;
  for (pid_t pid : writers) {
    int s = 0;
    ::waitpid(pid, &s, 0);
    status.push_back(WIFEXITED(s) ? WEXITSTATUS(s) : 128 + WTERMSIG(s));
  }
  return status;
}

// Six writers of one trace started together without --force: before, several passed the
// "exists?" check and each renamed over the previous one (exit 0 each; once the CSV of one
// with the sidecar of another). Now exactly one places its pair; every other keeps its own
// pair beside it under .kept-<pid> names and says so; the pair in place is one writer's.
TEST(OneWriter, WritersRacingWithoutForceLeaveOneWinnerAndKeepTheOthersResults) {
  for (int round = 0; round < 10; ++round) {
    const fs::path d = fresh_mech("race-" + std::to_string(round));
    const std::string out = (d / "o.csv").string();
    const std::vector<int> status = race_writers(out, false);
    const auto won = std::count(status.begin(), status.end(), 0);
    EXPECT_EQ(won, 1) << "round " << round;
    const PoseTrace placed = read_trace(out);  // the pair's hashes agree, or this throws
    int kept = 0;
    for (const auto& f : fs::directory_iterator(d)) {
      const std::string name = f.path().filename().string();
      EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
      if (name.find(".kept-") == std::string::npos || name.find(".meta.json") != std::string::npos) continue;
      ++kept;
      EXPECT_NE(read_trace(f.path().string()).measured[0](0), placed.measured[0](0)) << name;
    }
    EXPECT_EQ(kept, 5) << "round " << round;
  }
}

// With --force the last writer wins, and its pair is whole: each group is renamed under a lock
// on the directory (before, two writers could interleave their renames: the CSV of one beside
// the sidecar of the other, "does not belong with its sidecar" on read).
TEST(OneWriter, WritersRacingWithForceLeaveOneWholePair) {
  for (int round = 0; round < 10; ++round) {
    const fs::path d = fresh_mech("race-force-" + std::to_string(round));
    const std::string out = (d / "o.csv").string();
    const std::vector<int> status = race_writers(out, true);
    EXPECT_EQ(std::count(status.begin(), status.end(), 0), 6) << "round " << round;
    EXPECT_NO_THROW(read_trace(out)) << "round " << round;
  }
}

// The last step without --force, one case at a time: a file at the name (a link too) is left as
// it is and the result kept and said; a pair whose CSV alone is taken places neither file.
TEST(OneWriter, WithoutForceTheLastStepNeverReplacesAndKeepsTheResultUnderANamedFile) {
  const fs::path d = fresh_mech("noreplace");
  const std::string model = (d / "m.yaml").string();
  std::ofstream(model) << "someone else's\n";
  const std::string e = error_of([&] { write_file_atomically(model, "mine\n", false); });
  const std::string kept = (d / ("m.kept-" + std::to_string(::getpid()) + ".yaml")).string();
  EXPECT_EQ(e, model + ": exists (written meanwhile by another command?) and is not replaced without --force; "
                       "this command's result is kept as " + kept);
  EXPECT_EQ(mech_text(model), "someone else's\n");
  EXPECT_EQ(mech_text(kept), "mine\n");
  fs::create_symlink(d / "target.txt", d / "link.yaml");
  EXPECT_NE(error_of([&] { write_file_atomically((d / "link.yaml").string(), "x", false); }).find("not replaced"),
            std::string::npos);
  EXPECT_TRUE(fs::is_symlink(d / "link.yaml"));
  EXPECT_FALSE(fs::exists(d / "target.txt"));
  // The CSV taken, its sidecar free: neither placed, the pair kept and readable.
  const std::string csv = (d / "t.csv").string();
  std::ofstream(csv) << "not ours\n";
  const std::string e2 = error_of([&] { write_trace(csv, mech_trace(3), false); });
  EXPECT_NE(e2.find("t.csv: exists"), std::string::npos) << e2;
  EXPECT_FALSE(fs::exists(csv + ".meta.json")) << "both or neither";
  const std::string kept_csv = (d / ("t.kept-" + std::to_string(::getpid()) + ".csv")).string();
  EXPECT_NE(e2.find("kept as " + kept_csv + " (and its 1 companion)"), std::string::npos) << e2;
  EXPECT_EQ(read_trace(kept_csv).measured[0](0), 3.0);
  EXPECT_EQ(mech_text(csv), "not ours\n");
  // With --force it replaces, as before.
  write_trace(csv, mech_trace(4), true);
  EXPECT_EQ(read_trace(csv).measured[0](0), 4.0);
}

// An output directory that exists but takes no file (no write permission; a read-only mount
// gives EROFS the same way) was found at the final write, after the work, and said as "No such
// file or directory". The IoPlan check now creates a file there before any work and says the
// system's reason; the writer says it too. Run as another user when root (root writes anyway).
TEST(IoPlan, AnOutputDirectoryThatTakesNoFileIsSaidWithTheSystemsReasonBeforeAnyWork) {
  const fs::path d = fresh_mech("nowrite");
  fs::create_directories(d / "ro");
  fs::permissions(d / "ro", fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(d.parent_path(), fs::perms::all);
  fs::permissions(d, fs::perms::all);
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(report[0]);
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(3);
    std::string said;
    for (const char* name : {"o.csv", "v.json", "r.html"}) {
      said += error_of([&] { IoPlan(false).output_trace((d / "ro" / name).string()).check(); }) + "\n";
      said += error_of([&] { write_file_atomically((d / "ro" / name).string(), "x", false); }) + "\n";
    }
    (void)!::write(report[1], said.data(), said.size());
    ::_exit(0);
  }
  ::close(report[1]);
  std::string said;
  char buf[4096];
  for (ssize_t n; (n = ::read(report[0], buf, sizeof buf)) > 0;) said.append(buf, static_cast<std::size_t>(n));
  ::close(report[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "could not run as another user";
  const std::string ro = (d / "ro").string();
  for (const char* name : {"o.csv", "v.json", "r.html"}) {
    EXPECT_NE(said.find(ro + "/" + name + ": cannot be written: its directory " + ro + " takes no new file (Permission denied)"),
              std::string::npos)
        << said;
    EXPECT_NE(said.find(ro + "/" + name + ": cannot be written (Permission denied); nothing was written"), std::string::npos)
        << said;
  }
  EXPECT_EQ(said.find("No such file"), std::string::npos) << said;
  EXPECT_NO_THROW(IoPlan(false).output_trace((d / "o.csv").string()).check());  // a writable one: passes, leaves nothing
  EXPECT_TRUE(fs::is_empty(d / "ro"));
  EXPECT_FALSE(fs::exists(d / ("o.csv.tmp-" + std::to_string(::getpid()))));
}

// `--plot P.PNG`, `--out R.HTML` were refused: an extension is compared in one place, in any case.
TEST(FileExtension, IsComparedInLowerCaseWhateverTheNameSays) {
  EXPECT_EQ(file_extension("P.PNG"), ".png");
  EXPECT_EQ(file_extension("dir.D/R.Html"), ".html");
  EXPECT_EQ(file_extension("plot.svg"), ".svg");
  EXPECT_EQ(file_extension("noext"), "");
  EXPECT_EQ(file_extension("a.tar.GZ"), ".gz");
}

}  // namespace test_write_mechanisms

namespace test_write_mechanisms {

// Session 23's probe, class C: writing `o.csv` deleted every `o.csv.tmp-<N>` and
// `o.csv.meta.json.tmp-<N>` whose process N was not running, by the name alone — a user's
// backup or notes so named were lost. Now the writer removes only files it made itself: its
// temporary is anonymous (O_TMPFILE) until it is linked to a fresh name and renamed. Files so
// named — with a dead process's number, with this process's own — are left as they are, beside a
// trace and its sidecar, a YAML file, a model and its report.
TEST(OneWriter, AUsersFileNamedLikeATemporaryIsNeverRemoved) {
  const fs::path d = fresh_mech("tmp-names");
  const std::string own = ".tmp-" + std::to_string(::getpid());
  const std::vector<std::string> users = {"o.csv.tmp-999999", "o.csv.meta.json.tmp-999998", "o.csv" + own, "o.csv.meta.json" + own,
                                          "t.yaml.tmp-999999", "t.yaml" + own, "m.yaml.tmp-999997", "m.yaml.report.json.tmp-999999"};
  for (const std::string& name : users) std::ofstream(d / name) << "the user's " << name << "\n";
  write_trace((d / "o.csv").string(), mech_trace(1), false);
  write_trace((d / "o.csv").string(), mech_trace(2), true);  // over an old pair, --force
  write_file_atomically((d / "t.yaml").string(), "a: 1\n", false);
  write_files_atomically({{(d / "m.yaml.report.json").string(), "{}\n"}, {(d / "m.yaml").string(), "b: 2\n"}}, false);
  for (const std::string& name : users) EXPECT_EQ(mech_text(d / name), "the user's " + name + "\n") << name;
  EXPECT_EQ(read_trace((d / "o.csv").string()).measured[0](0), 2.0);
  EXPECT_EQ(mech_text(d / "t.yaml"), "a: 1\n");
  std::size_t files = 0;  // nothing else left beside
  for (const auto& e : fs::directory_iterator(d)) files += e.is_regular_file();
  EXPECT_EQ(files, users.size() + 5);
}

// Where the file system has no O_TMPFILE the temporary is named: a fresh name beside the
// output, passing over every name taken (a user's file, a link), never removing one.
TEST(OneWriter, ANamedTemporaryTakesAFreshNameAndNeverAnExistingOne) {
  const fs::path d = fresh_mech("fresh-name");
  const std::string out = (d / "o.csv").string(), own = out + ".tmp-" + std::to_string(::getpid());
  std::ofstream(own) << "the user's\n";
  fs::create_symlink(d / "elsewhere", own + "-2");
  const NewFile f = create_named_beside(out, 0600);
  ASSERT_GE(f.fd, 0) << f.error;
  ::close(f.fd);
  EXPECT_EQ(f.name, own + "-3");
  EXPECT_EQ(mech_text(own), "the user's\n");
  EXPECT_TRUE(fs::is_symlink(own + "-2"));
  EXPECT_FALSE(fs::exists(d / "elsewhere"));
  fs::remove(f.name);
}

}  // namespace test_write_mechanisms
