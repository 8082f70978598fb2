// Specification of the sidecar a CSV kind cannot do without (core/required_sidecar.hpp): a file
// given as a pre-correction, prediction or static-pose trace whose sidecar is not there is said to
// be no such file, naming its writer and the sidecar (probe 31, S008: "r.yaml.meta.json: file not
// found" for a trajectory given as a pre-correction); another kind's sidecar is refused by its
// format; the right one is read.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "vcloe/core/required_sidecar.hpp"
#include "../test_support.hpp"

using namespace vcloe;
namespace fs = std::filesystem;

TEST(RequiredSidecar, AFileWithoutItsSidecarIsSaidToBeNoFileOfThatKind) {
  const fs::path dir = fs::temp_directory_path() / "vcloe-required-sidecar";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string csv = (dir / "r.yaml").string();
  std::ofstream(csv) << "duration: 2\n";
  EXPECT_EQ(test::error_of([&] { read_required_sidecar(csv, "vcloe precorrection 1", "a pre-corrected command", "vcloe precorrect"); }),
            csv + ": is not a pre-corrected command: vcloe precorrect writes one as a CSV with its sidecar " + csv +
                ".meta.json, which is not there");
  std::ofstream(csv + ".meta.json") << R"({"format": "vcloe prediction 1"})";
  EXPECT_NE(test::error_of([&] { read_required_sidecar(csv, "vcloe precorrection 1", "a pre-corrected command", "vcloe precorrect"); })
                .find("is not a pre-corrected command: its sidecar"),
            std::string::npos);
  std::ofstream(csv + ".meta.json") << R"({"format": "vcloe precorrection 1", "x": 1})";
  EXPECT_EQ(read_required_sidecar(csv, "vcloe precorrection 1", "a pre-corrected command", "vcloe precorrect").at("x"), 1);
}
