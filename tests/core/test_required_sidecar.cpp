// Specification of the sidecar a CSV kind cannot do without (core/required_sidecar.hpp): a file
// given as a pre-correction, prediction or static-pose trace whose sidecar is not there is said to
// be no such file, naming its writer and the sidecar (probe 31, S008: "r.yaml.meta.json: file not
// found" for a trajectory given as a pre-correction); another kind's sidecar is refused by its
// format; the right one is read.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "vcloe/core/required_sidecar.hpp"
#include "vcloe/core/trace.hpp"  // sha256
#include "../test_support.hpp"

using namespace vcloe;
namespace fs = std::filesystem;

TEST(RequiredSidecar, AFileWithoutItsSidecarIsSaidToBeNoFileOfThatKind) {
  const fs::path dir = fs::temp_directory_path() / "vcloe-required-sidecar";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string csv = (dir / "r.yaml").string();
  const SidecarKind kind = {"vcloe precorrection 1", "a pre-corrected command", "vcloe precorrect"};
  std::ofstream(csv) << "duration: 2\n";
  EXPECT_EQ(test::error_of([&] { read_required_sidecar(csv, kind); }),
            csv + ": is not a pre-corrected command: vcloe precorrect writes one as a CSV with its sidecar " + csv +
                ".meta.json, which is not there");
  std::ofstream(csv + ".meta.json") << R"({"format": "vcloe prediction 1"})";
  EXPECT_NE(test::error_of([&] { read_required_sidecar(csv, kind); })
                .find("is not a pre-corrected command: its sidecar"),
            std::string::npos);
  for (const FileText& f : csv_with_sidecar(csv, "duration: 2\n", {{"format", "vcloe precorrection 1"}, {"x", 1}}))
    std::ofstream(f.path) << f.text;
  EXPECT_EQ(read_required_sidecar(csv, kind).at("x"), 1);
}

// Every sidecar is sealed by its one writer and checked by its one reader (probe 35, B: a twin's
// sidecar relabelled "virtual" was read as a measurement's): the seal covers the CSV's hash, an
// edit is refused even when adopting, and an unsealed sidecar is read only to adopt it — the
// refusal naming `vcloe seal` for a recording, the writer alone for a derived kind.
TEST(RequiredSidecar, EverySidecarIsSealedAndAnEditOrAMissingSealIsRefused) {
  const fs::path dir = fs::temp_directory_path() / "vcloe-sealed-sidecar";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string csv = (dir / "t.csv").string(), side = csv + ".meta.json";
  const std::vector<FileText> files = csv_with_sidecar(csv, "time,x\n0,1\n", {{"format", "f-1"}, {"source", "twin"}});
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, side);  // the sidecar first: renamed before the CSV
  for (const FileText& f : files) std::ofstream(f.path) << f.text;
  const SidecarKind recording = {"f-1", "a pose trace", "vcloe run", true}, derived = {"f-1", "a prediction", "vcloe predict"};
  const nlohmann::json read = read_sidecar(csv, recording);
  EXPECT_EQ(read.at("csv_sha256"), sha256("time,x\n0,1\n"));
  EXPECT_FALSE(read.contains("content_sha256"));
  nlohmann::json edited = nlohmann::json::parse(files[0].text);
  edited["source"] = "virtual";
  std::ofstream(side) << edited.dump(2);
  for (const SidecarSeal seal : {SidecarSeal::Required, SidecarSeal::Adopt})
    EXPECT_NE(test::error_of([&] { read_sidecar(csv, recording, seal); }).find(side + ": key 'content_sha256': the content is not the one sealed"),
              std::string::npos);
  edited.erase("content_sha256");
  std::ofstream(side) << edited.dump(2);
  const std::string unsealed = test::error_of([&] { read_sidecar(csv, recording); });
  EXPECT_NE(unsealed.find(side + ": key 'content_sha256': missing"), std::string::npos) << unsealed;
  EXPECT_NE(unsealed.find("vcloe seal " + csv + " --out"), std::string::npos) << unsealed;
  EXPECT_EQ(test::error_of([&] { read_sidecar(csv, derived); }).find("vcloe seal"), std::string::npos);
  EXPECT_EQ(read_sidecar(csv, recording, SidecarSeal::Adopt).at("source"), "virtual");
}
