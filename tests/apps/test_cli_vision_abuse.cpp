// Specification of the camera-side commands under bad input (docs/robustness.md): counts and
// sizes bounded before any work, a missing image pair never shifting later timestamps, the same
// images given as both cameras refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using cli_test::CommandResult;
using cli_test::vcloe;

namespace {

fs::path temp_dir(const std::string& name) { return cli_test::fresh_dir("vcloe-cli-vision-abuse", name); }
const std::string data = std::string(VCLOE_SOURCE_DIR) + "/tests/data";

}  // namespace

TEST(CliVisionAbuse, AMissingImagePairLeavesAGapAndNeverShiftsLaterTimes) {
  const fs::path d = temp_dir("gap");
  ASSERT_EQ(vcloe("render --out " + (d / "img").string() + " --frames 5").status, 0);
  fs::remove(d / "img" / "left_0002.png");  // frame 2 lost, both images
  fs::remove(d / "img" / "right_0002.png");
  const std::string out = (d / "poses.csv").string();
  const CommandResult r = vcloe("measure --images " + (d / "img").string() + " --truth " +
                                (d / "img" / "truth.csv").string() + " --out " + out + " --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  EXPECT_EQ(j["missing_frames"], nlohmann::json::array({2}));
  for (int i = 0; i < 3; ++i) EXPECT_LT(j["error_rms_mm"][i].get<double>(), 0.05);  // matched to the right truth
  std::ifstream in(out);
  std::string line, times;
  std::getline(in, line);
  while (std::getline(in, line)) times += line.substr(0, line.find(',')) + " ";
  EXPECT_EQ(times, "0 0.01 0.03 0.04 ");  // was 0 0.01 0.02 0.03: every later frame shifted
  // A left image without its right partner is named.
  fs::remove(d / "img" / "right_0004.png");
  const CommandResult unpaired = vcloe("measure --images " + (d / "img").string());
  EXPECT_EQ(unpaired.status, 2) << unpaired.out;
  EXPECT_NE(unpaired.out.find("images without a left/right partner: left_0004.png"), std::string::npos) << unpaired.out;
}

TEST(CliVisionAbuse, TheSameImagesAsBothCamerasAreRefused) {
  // Formerly a rig with a 0 mm baseline was written (and then refused by every reader).
  const fs::path d = temp_dir("same");
  const fs::path list = d / "pairs.txt";
  {
    std::ofstream l(list);
    for (const char* n : {"01", "02", "03", "04", "05", "06", "07", "08", "09", "11", "12", "13", "14"})
      l << data << "/stereo_opencv/left" << n << ".jpg " << data << "/stereo_opencv/left" << n << ".jpg\n";
  }
  const CommandResult r = vcloe("calibrate stereo --images " + list.string() + " --board 9x6 --square 0.025 --out " +
                                (d / "rig.yaml").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("the left and right images of every pair are identical"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d / "rig.yaml"));
}

TEST(CliVisionAbuse, CountsAndSizesAreBoundedBeforeAnyWork) {
  const fs::path d = temp_dir("bounds");
  std::string big_rig;
  {
    std::ifstream in(std::string(VCLOE_SOURCE_DIR) + "/config/rig.yaml");
    big_rig.assign(std::istreambuf_iterator<char>(in), {});
    big_rig.replace(big_rig.find("[4096, 3000]"), 12, "[60000, 60000]");
    std::ofstream(d / "big-rig.yaml") << big_rig;
  }
  std::ofstream(d / "a-file") << "x";
  cli_test::expect_refused({
      {"calibrate base --poses 1000000", "--poses: expected 3 to 10000 poses, got 1000000"},
      {"calibrate base --frames 100000000", "--frames: expected 1 to 100000 frames"},
      {"calibrate base --noise-px -1", "--noise-px: expected a centroid noise sigma in [0, 10] px"},
      {"calibrate base --commanded x.csv", "--commanded: needs --images"},
      {"render --rig " + (d / "big-rig.yaml").string() + " --out " + (d / "img").string(),
       "key 'left.image_size': expected [width, height] in whole pixels, 16 to 20000 each and at most 100 Mpx"},
      {"render --blur-px 1e6 --out " + (d / "img").string(), "--blur-px: expected a blur sigma in (0.1, 50] px"},
      {"render --noise-dn 1e300 --out " + (d / "img").string(), "--noise-dn: expected a noise sigma in [0, 4095] DN"},
      {"render --frames 3000 --out " + (d / "img").string(), "--frames/--rate: 3000 frames at 100 Hz last 29.99 s"},
      {"render --out " + (d / "a-file").string(), "is a file; --out names the directory for the images"},
      {"measure --images " + d.string() + " --rate 0", "--rate: expected a frame rate in [0.001, 100000] Hz"},
      {"measure --images " + d.string() + " --rate 1e-300", "--rate: expected a frame rate in [0.001, 100000] Hz"},
  });  // each refused before work (formerly minutes, or 14 GB)
  EXPECT_FALSE(fs::exists(d / "img"));
}

TEST(CliVisionAbuse, ARigThatCannotSeeTheMarkersRendersNothing) {
  // A focal length of 1e-300, distortion of 1e308, or a camera behind the markers wrote empty
  // images without a word; `measure` then found no pose in any of them.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-vision-abuse", "blind");
  std::ifstream in(cli_test::config_dir + "rig.yaml");
  std::string rig((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string focal = "focal_px: [4640, 4641.5]";
  ASSERT_NE(rig.find(focal), std::string::npos);
  rig.replace(rig.find(focal), focal.size(), "focal_px: [1e-300, 1e-300]");
  std::ofstream(d / "blind.yaml") << rig;
  const CommandResult r = vcloe("render --rig " + (d / "blind.yaml").string() + " --reference " + cli_test::config_dir +
                                "reference.yaml --frames 2 --out " + (d / "img").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("blind.yaml along "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no frame shows 3 markers in both images"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d / "img"));
}
