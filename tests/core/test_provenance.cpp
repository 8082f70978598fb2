// Specification of the one check that recorded inputs belong together (core/provenance.hpp):
// recordings of two virtual robots, of a simulated robot and another source, of two references,
// each said naming both files and what they record; what belongs together, or cannot be told
// (no sidecar, a real rig and images of it), passes.
#include <gtest/gtest.h>

#include "vcloe/core/provenance.hpp"

namespace test_provenance {

using namespace vcloe;

namespace {

Provenance recording(const std::string& file, const std::string& source, const std::string& truth_sha,
                     const std::string& reference_sha) {
  Provenance p;
  p.file = file;
  p.source = source;
  if (!truth_sha.empty()) p.truth = FileRecord{"/t/" + truth_sha + ".yaml", std::string(64, truth_sha[0])};
  if (!reference_sha.empty()) p.reference = FileRecord{"/r/" + reference_sha + ".yaml", std::string(64, reference_sha[0])};
  return p;
}

}  // namespace

TEST(Provenance, RecordingsOfTwoRobotsOrTwoReferencesAreToldNamingBoth) {
  const Provenance a = recording("a.csv", "virtual", "1", "r"), same = recording("b.csv", "virtual", "1", "r");
  EXPECT_FALSE(provenance_mismatch(a, same, Together::OneRobot));
  EXPECT_FALSE(provenance_mismatch(a, same, Together::OneReference));
  // Another virtual robot (truth file with another SHA-256).
  const auto other = provenance_mismatch(a, recording("b.csv", "virtual", "5", "r"), Together::OneRobot);
  ASSERT_TRUE(other);
  EXPECT_EQ(*other, "a.csv was recorded on the virtual robot /t/1.yaml (SHA-256 111111111111…), b.csv on another, "
                    "/t/5.yaml (SHA-256 555555555555…): the recordings of one robot were expected");
  // A twin's trace (no truth) with a virtual robot's; a rig's with a virtual robot's; with a twin's.
  for (const char* source : {"twin", "rig", "measure"}) {
    const auto m = provenance_mismatch(recording("s.csv", source, "", "r"), a, Together::OneRobot);
    ASSERT_TRUE(m) << source;
    EXPECT_NE(m->find("s.csv was recorded on source \"" + std::string(source) + "\", a.csv on the virtual robot /t/1.yaml"),
              std::string::npos)
        << *m;
  }
  EXPECT_TRUE(provenance_mismatch(recording("s.csv", "twin", "", "r"), recording("r.csv", "rig", "", "r"), Together::OneRobot));
  // One real robot may be recorded by the rig and measured from images: not told apart.
  EXPECT_FALSE(provenance_mismatch(recording("s.csv", "rig", "", "r"), recording("m.csv", "measure", "", "r"), Together::OneRobot));
  // Unknown (no sidecar): nothing to compare.
  EXPECT_FALSE(provenance_mismatch(recording("s.csv", "", "", ""), a, Together::OneRobot));
  EXPECT_FALSE(provenance_mismatch(recording("s.csv", "", "", ""), a, Together::OneReference));
  // Another reference.
  const auto ref = provenance_mismatch(a, recording("b.csv", "virtual", "1", "q"), Together::OneReference);
  ASSERT_TRUE(ref);
  EXPECT_EQ(*ref, "a.csv ran the reference /r/r.yaml (SHA-256 rrrrrrrrrrrr…), b.csv another, /r/q.yaml (SHA-256 qqqqqqqqqqqq…)");
}

// Two runs under two experiments are two outer controllers (probe 27, class E); the same content
// under another path is one experiment; the built-in one is said as such; unknown passes.
TEST(Provenance, RunsUnderTwoExperimentsAreToldNamingBoth) {
  auto under = [](const std::string& file, const std::string& path, char sha) {
    Provenance p;
    p.file = file;
    p.experiment = FileRecord{path, path.empty() ? "" : std::string(64, sha)};
    return p;
  };
  const Provenance a = under("a.csv", "/e/a.yaml", 'a');
  EXPECT_FALSE(provenance_mismatch(a, under("b.csv", "/e/copy.yaml", 'a'), Together::OneExperiment));
  const auto other = provenance_mismatch(a, under("b.csv", "/e/b.yaml", 'b'), Together::OneExperiment);
  ASSERT_TRUE(other);
  EXPECT_EQ(*other, "a.csv ran the experiment /e/a.yaml (SHA-256 aaaaaaaaaaaa…), b.csv the experiment /e/b.yaml "
                    "(SHA-256 bbbbbbbbbbbb…): one outer controller was expected");
  const auto builtin = provenance_mismatch(under("d.csv", "", 'x'), a, Together::OneExperiment);
  ASSERT_TRUE(builtin);
  EXPECT_EQ(builtin->rfind("d.csv ran the built-in experiment, a.csv the experiment /e/a.yaml", 0), 0u) << *builtin;
  EXPECT_FALSE(provenance_mismatch(under("d.csv", "", 'x'), under("e.csv", "", 'y'), Together::OneExperiment));
  Provenance unknown;
  unknown.file = "u.csv";
  EXPECT_FALSE(provenance_mismatch(unknown, a, Together::OneExperiment));
  // The other checks do not look at the experiment.
  EXPECT_FALSE(provenance_mismatch(a, under("b.csv", "/e/b.yaml", 'b'), Together::OneReference));
}

}  // namespace test_provenance
