// The claim of an output directory (core/output_file.hpp: OutputDirectory): of two commands
// given one new directory exactly one has it, and a refusal leaves no directory behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "../test_support.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/output_file.hpp"

namespace test_output_directory {

using namespace vcloe;
using vcloe::test::error_of;
namespace fs = std::filesystem;

fs::path fresh(const std::string& name) { return test::fresh_directory("vcloe-output-directory", name); }

// Two commands given one new directory at once (study --dir s twice): both looked and found none,
// both wrote their tables into it. The claim is the mkdir itself: the second is refused, even
// though the directory is still empty and the first has done nothing in it yet.
TEST(OutputDirectoryClaim, TheSecondClaimOfANewDirectoryIsRefusedEvenWhileItIsEmpty) {
  const fs::path d = fresh("race");
  const std::string s = (d / "s").string();
  const OutputDirectory first(s, false, "--dir", "the study's files");
  EXPECT_TRUE(first.made());
  EXPECT_TRUE(fs::is_empty(s));
  EXPECT_EQ(error_of([&] { OutputDirectory(s, false, "--dir", "the study's files"); }),
            s + ": exists; pass --force to overwrite the study's files in it");
  EXPECT_TRUE(fs::is_directory(s));  // the refused second claim takes nothing from the first
  const OutputDirectory forced(s, true, "--dir", "the study's files");  // --force: used as it is
  EXPECT_FALSE(forced.made());
}

// A command refused after its claim (an input that does not read, a later check) leaves no
// directory it made, its parents made as mkdir -p too; one with files in it is the command's
// result and is kept, as is a directory it did not make.
TEST(OutputDirectoryClaim, ARefusalAfterTheClaimRemovesWhatItMadeIfEmpty) {
  const fs::path d = fresh("refused");
  const fs::path deep = d / "a" / "b" / "s";
  {
    const OutputDirectory claimed(deep.string() + "/", false, "--out", "the joined tables");
    EXPECT_TRUE(fs::is_directory(deep));
  }  // refused later: the claim goes
  EXPECT_FALSE(fs::exists(d / "a"));
  {
    const OutputDirectory claimed(deep.string(), false, "--out", "the joined tables");
    std::ofstream(deep / "study.md") << "written\n";
  }
  EXPECT_TRUE(fs::exists(deep / "study.md"));  // the command's work: kept
  fs::remove(deep / "study.md");
  { const OutputDirectory used(deep.string(), true, "--out", "the joined tables"); }
  EXPECT_TRUE(fs::is_directory(deep));  // not made by this command: kept, empty as it was
  fs::create_directory(d / "f");
  std::ofstream(d / "f" / "x") << "a file where a directory is asked";
  const std::string e = error_of([&] { OutputDirectory((d / "f" / "x" / "s").string(), false, "--out", "t"); });
  EXPECT_NE(e.find("cannot create the directory"), std::string::npos) << e;
}

}  // namespace test_output_directory
