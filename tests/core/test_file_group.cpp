// The one writer's FileGroup (core/output_file.hpp): a set produced one file at a time (render's
// images and their truth) is placed as one, or not at all (probe 26's class D).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <algorithm>
#include <utility>
#include <vector>

#include "../test_support.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/output_file.hpp"

namespace test_file_group {

using namespace vcloe;
using vcloe::test::error_of;
namespace fs = std::filesystem;

fs::path fresh(const std::string& name) { return test::fresh_directory("vcloe-file-group", name); }
void put(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

using vcloe::test::FileSizeLimit;

// Every entry of `d` with its bytes, to compare a folder before and after.
std::vector<std::pair<std::string, std::string>> contents(const fs::path& d) {
  std::vector<std::pair<std::string, std::string>> c;
  for (const auto& f : fs::directory_iterator(d)) c.emplace_back(f.path().filename().string(), test::file_text(f.path()));
  std::sort(c.begin(), c.end());
  return c;
}

// An earlier set of six frames, the one a failed render must leave as it was.
fs::path earlier_set(const std::string& name) {
  const fs::path d = fresh(name);
  for (int k = 0; k < 6; ++k) put(d / ("f" + std::to_string(k) + ".png"), "old " + std::to_string(k));
  put(d / "truth.csv", "old truth\n");
  return d;
}

TEST(FileGroup, AFailureAtTheNthFileLeavesTheFolderAsItWasAndNoTemporary) {
  // Was (render, one file at a time): the files before the failing one stayed under their names,
  // beside the old set's others, and the line said "nothing was written".
  for (const int failing : {0, 3, 6}) {  // the first image, one partway, the truth
    const fs::path d = earlier_set("nth-" + std::to_string(failing));
    const auto before = contents(d);
    std::string e;
    {
      const FileSizeLimit limit(4096);
      e = error_of([&] {
        FileGroup set("the set of " + d.string());
        for (int k = 0; k < 6; ++k)
          set.add((d / ("f" + std::to_string(k) + ".png")).string(), k == failing ? std::string(100000, 'x') : "new");
        set.add((d / "truth.csv").string(), failing == 6 ? std::string(100000, 'x') : "new truth\n");
        set.commit(true);
      });
    }
    EXPECT_NE(e.find(": write failed: File too large"), std::string::npos) << e;
    EXPECT_NE(e.find("; written together, none of the set of " + d.string() + " was"), std::string::npos) << e;
    EXPECT_EQ(contents(d), before) << "failing at file " << failing << ": " << e;  // no new file, no temporary
  }
}

TEST(FileGroup, ACollisionAtCommitPlacesNoneAndAnAbandonedGroupLeavesNothing) {
  const fs::path d = fresh("commit");
  {
    FileGroup set("a and b");
    set.add((d / "a.png").string(), "a");
    set.add((d / "b.png").string(), "b");
    put(d / "b.png", "another writer's");  // appears before the commit
    const std::string e = error_of([&] { set.commit(false); });
    EXPECT_NE(e.find("b.png: exists (written meanwhile by another command?)"), std::string::npos) << e;
  }
  EXPECT_FALSE(fs::exists(d / "a.png"));  // taken back
  EXPECT_EQ(test::file_text(d / "b.png"), "another writer's");
  for (const auto& f : fs::directory_iterator(d))
    EXPECT_EQ(f.path().filename().string().find(".tmp-"), std::string::npos) << f.path();
  // Abandoned (an exception between add and commit): every temporary goes with the group, named
  // ones too (the descriptor bound names the ones after it at once).
  const fs::path e = fresh("abandoned");
  struct rlimit old {};
  ::getrlimit(RLIMIT_NOFILE, &old);
  rlimit few = old;
  few.rlim_cur = 40;  // a bound of 16 anonymous temporaries
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &few), 0);
  bool named_seen = false;
  {
    FileGroup set("the frames");
    for (int k = 0; k < 30; ++k) set.add((e / ("f" + std::to_string(k))).string(), "frame");
    for (const auto& f : fs::directory_iterator(e)) named_seen = true, (void)f;
  }
  ::setrlimit(RLIMIT_NOFILE, &old);
  EXPECT_TRUE(named_seen);  // beyond the bound, temporaries are named at once ...
  EXPECT_TRUE(fs::is_empty(e));  // ... and discarded with the group
}

}  // namespace test_file_group
