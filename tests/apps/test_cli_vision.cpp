// Specification of the camera-side commands (`vcloe calibrate stereo|base`, `render`, `measure`,
// `filter`; docs/vision.md), run as a user would run them: the built binary, a temporary
// directory.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using cli_test::CommandResult;
using cli_test::run_vcloe;

// This file's helpers and specifications in its own namespace: the test program is compiled as
// one translation unit (tests/CMakeLists.txt).
namespace test_cli_vision {

namespace {

nlohmann::json json_of(const CommandResult& r) { return nlohmann::json::parse(r.out.substr(r.out.find('{'))); }

fs::path temp_dir(const std::string& name) { return cli_test::fresh_dir("vcloe-cli-vision", name); }

const std::string data = std::string(VCLOE_SOURCE_DIR) + "/tests/data";

}  // namespace

TEST(CliVision, CalibrateStereoWritesARigFileAndReportsPerView) {
  const fs::path d = temp_dir("stereo");
  const std::string out = (d / "rig.yaml").string();
  const std::string args =
      "calibrate stereo --images " + data + "/stereo_opencv --board 9x6 --square 0.025 --out " + out + " --json";
  CommandResult r = run_vcloe(args);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = json_of(r);
  for (const char* key : {"rms_px", "epipolar_px", "pairs_used", "per_view"}) EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["per_view"].size(), 13u);
  EXPECT_LE(j["rms_px"].get<double>(), 0.634183);  // OpenCV's stereo_calib sample on these images
  EXPECT_LE(j["epipolar_px"].get<double>(), 0.445411);
  int used = 0;
  for (const auto& v : j["per_view"]) {
    used += v["used"].get<bool>();
    if (!v["used"].get<bool>()) {
      EXPECT_FALSE(v["rejected"].get<std::string>().empty());
    }
  }
  EXPECT_EQ(used, j["pairs_used"].get<int>());
  std::ifstream in(out);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("format: vcloe-rig-1"), std::string::npos);
  EXPECT_NE(text.find("right_from_left"), std::string::npos);
  // Never overwritten without --force; bad input names what was expected.
  r = run_vcloe(args);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--force"), std::string::npos) << r.out;
  r = run_vcloe("calibrate stereo --images " + data + "/stereo_opencv --board 9-6 --square 0.025 --out " +
            (d / "x.yaml").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("COLSxROWS"), std::string::npos) << r.out;
  r = run_vcloe("calibrate stereo --images " + (d / "nothing").string() + " --board 9x6 --square 0.025 --out " +
            (d / "x.yaml").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("nothing"), std::string::npos) << r.out;
}

TEST(CliVision, CalibrateBaseOnTheVirtualRigMeetsTheAcceptanceAndTheCrossCheckAgrees) {
  const CommandResult r = run_vcloe("calibrate base --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = json_of(r);
  EXPECT_LE(j["truth_error"]["from_base_markers_mm"].get<double>(), 0.1);
  EXPECT_LE(j["truth_error"]["from_base_markers_mrad"].get<double>(), 0.1);
  EXPECT_TRUE(j["disagreement"]["within_3_sigma"].get<bool>()) << j.dump(2);
  EXPECT_GE(j["hand_eye"]["poses"].get<int>(), 20);
}

// Probe 23, class E: `--poses 3` printed "sigma 0.0000 mm, 0.0000 mrad" and "DISAGREE within 3
// sigma" against the base markers' sigma alone, exit 0. Now: not measured, and no verdict.
TEST(CliVision, CalibrateBaseGivesNoVerdictOnASigmaNothingMeasured) {
  const auto j = json_of(run_vcloe("calibrate base --json --frames 5 --poses 3"));
  EXPECT_TRUE(j["hand_eye"]["sigma_mm"].is_null()) << j.dump(2);
  EXPECT_TRUE(j["disagreement"]["within_3_sigma"].is_null()) << j.dump(2);
  EXPECT_TRUE(j["disagreement"]["expected_mm"].is_null()) << j.dump(2);
  EXPECT_NE(j["disagreement"]["no_verdict"].get<std::string>().find("--poses 5 or more"), std::string::npos) << j.dump(2);
  // One frame: the base markers' sigma is not measured either (it was 0.0000 mm).
  const CommandResult r = run_vcloe("calibrate base --frames 1 --poses 8");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("(1 frames): sigma not measured"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(no verdict: the base markers' sigma is not measured"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("within 3 sigma"), std::string::npos) << r.out;
}

TEST(CliVision, RenderThenMeasureRecoversTheTruePosesAndFlagsOccludedFrames) {
  const fs::path d = temp_dir("render");
  CommandResult r = run_vcloe("render --out " + (d / "img").string() + " --frames 3");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(fs::exists(d / "img" / "left_0002.png"));
  EXPECT_TRUE(fs::exists(d / "img" / "truth.csv"));
  r = run_vcloe("render --out " + (d / "img").string() + " --frames 3");  // refuses to overwrite
  EXPECT_EQ(r.status, 2);

  const std::string poses = (d / "poses.csv").string();
  r = run_vcloe("measure --images " + (d / "img").string() + " --truth " + (d / "img" / "truth.csv").string() +
            " --out " + poses + " --json");
  ASSERT_EQ(r.status, 0) << r.out;
  auto j = json_of(r);
  EXPECT_EQ(j["valid"].get<int>(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_LT(j["error_rms_mm"][i].get<double>(), 0.05);
    EXPECT_LT(j["error_rms_mrad"][i].get<double>(), 0.1);
  }
  EXPECT_TRUE(fs::exists(poses));
  // The trace it writes compares against the truth with the existing command.
  r = run_vcloe("compare " + poses + " " + (d / "img" / "truth.csv").string() + " --columns-b truth --json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_LT(json_of(r)["rms_mm"][0].get<double>(), 0.05);

  // Camera-to-base from the base markers in the rendered images; the three poses 10 ms apart
  // hardly rotate, so the hand-eye cross-check is skipped with the reason.
  r = run_vcloe("calibrate base --images " + (d / "img").string() + " --commanded " + (d / "img" / "truth.csv").string() +
            " --json");
  ASSERT_EQ(r.status, 0) << r.out;
  j = json_of(r);
  EXPECT_EQ(j["frames_used"].get<int>(), 3);
  EXPECT_NE(j["hand_eye"]["skipped"].get<std::string>().find("two different axes"), std::string::npos) << j.dump(2);
  const auto t = j["from_base_markers"]["camera_from_base"]["translation"];
  EXPECT_NEAR(t[1].get<double>(), 0.07584814550449204, 0.1e-3);  // config/rig.yaml's truth
  EXPECT_NEAR(t[2].get<double>(), 1.0959458687585686, 0.1e-3);

  // Five of seven platform markers hidden: every frame is invalid, with the reason.
  r = run_vcloe("render --out " + (d / "occluded").string() + " --frames 2 --occlude P1 P2 P4 P6 P7");
  ASSERT_EQ(r.status, 0) << r.out;
  r = run_vcloe("measure --images " + (d / "occluded").string() + " --json");
  ASSERT_EQ(r.status, 0) << r.out;
  j = json_of(r);
  EXPECT_EQ(j["valid"].get<int>(), 0);
  EXPECT_NE(j["per_frame"][0]["reason"].get<std::string>().find("fewer than 3 platform markers"), std::string::npos);
  r = run_vcloe("render --out " + (d / "x").string() + " --occlude Q9");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("Q9"), std::string::npos) << r.out;
}

namespace {

// 1 s at 500 Hz of a 2 Hz sine in x and alpha, plus deterministic +-1e-4 uniform noise on every
// axis; gamma near +pi (unwrapped while filtering).
void write_noisy_trace(const fs::path& path) {
  std::ofstream f(path);
  f << "time,x,y,z,alpha,beta,gamma\n";
  std::uint64_t s = 1;
  auto noise = [&] {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (static_cast<double>(s >> 11) / 9007199254740992.0 - 0.5) * 2e-4;
  };
  for (int k = 0; k < 500; ++k) {
    const double t = k / 500.0, v = 0.01 * std::sin(2 * M_PI * 2 * t);
    f << t << "," << v + noise() << "," << noise() << "," << 0.18 + noise() << "," << v + noise() << ","
      << noise() << "," << 3.14159 + noise() << "\n";
  }
}

// Sum of squared x errors from the 2 Hz sine, before (raw) and after (filtered), over the rows.
struct XErrors {
  double before = 0, after = 0;
  int rows = 0;
};

XErrors x_errors(const fs::path& raw_path, const fs::path& filtered_path) {
  XErrors e;
  std::ifstream f(filtered_path), raw(raw_path);
  std::string line, raw_line;
  std::getline(f, line);
  std::getline(raw, raw_line);
  while (std::getline(f, line)) {
    std::stringstream ss(line);
    std::string cell;
    std::vector<double> v;
    while (std::getline(ss, cell, ',')) v.push_back(std::stod(cell));
    std::getline(raw, raw_line);
    const double before = std::stod(raw_line.substr(raw_line.find(',') + 1));
    const double truth = 0.01 * std::sin(2 * M_PI * 2 * v[0]);
    e.after += std::pow(v[1] - truth, 2);
    e.before += std::pow(before - truth, 2);
    ++e.rows;
  }
  return e;
}

}  // namespace

TEST(CliVision, FilterSmoothsTheMeasuredPoses) {
  const fs::path d = temp_dir("filter");
  const fs::path in = d / "noisy.csv", out = d / "filtered.csv";
  write_noisy_trace(in);
  const CommandResult r = run_vcloe("filter " + in.string() + " --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.out;
  const XErrors e = x_errors(in, out);
  EXPECT_EQ(e.rows, 500);
  // White noise keeps about the share of its power below 60 Hz of the 250 Hz band (less: the
  // forward-backward pass squares the gain); the 2 Hz motion passes unshifted.
  EXPECT_LT(std::sqrt(e.after / e.before), 0.55);
  std::ifstream meta(out.string() + ".meta.json");
  const auto j = nlohmann::json::parse(meta);
  EXPECT_EQ(j["filter"]["order"].get<int>(), 8);
  EXPECT_EQ(j["filter"]["cutoff_hz"].get<double>(), 60.0);
  EXPECT_NEAR(j["filter"]["sample_rate_hz"].get<double>(), 500.0, 1e-9);
}

TEST(CliVision, FilterNeverOverwritesWithoutForce) {
  const fs::path d = temp_dir("filter-overwrite");
  const fs::path in = d / "noisy.csv", out = d / "filtered.csv";
  write_noisy_trace(in);
  CommandResult r = run_vcloe("filter " + in.string() + " --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.out;
  r = run_vcloe("filter " + in.string() + " --out " + out.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--force"), std::string::npos) << r.out;
  EXPECT_EQ(run_vcloe("filter " + in.string() + " --out " + out.string() + " --force").status, 0);
}

// The paper's 60 Hz needs more than 120 Hz sampling. On a 100 Hz trace (the default camera
// rate) the default is replaced by 0.6 x Nyquist with a note; asked for explicitly, it is
// refused explaining the bound (it failed with the filter's own message on every default trace).
TEST(CliVision, FilterCutoffIsKeptBelowTheNyquistFrequencyOfASlowTrace) {
  const fs::path d = temp_dir("filter-slow");
  const fs::path slow = d / "slow.csv";
  {
    std::ofstream s(slow);
    s << "time,x,y,z,alpha,beta,gamma\n";
    for (int i = 0; i < 100; ++i) s << i / 100.0 << ",0,0,0.18,0,0,0\n";
  }
  CommandResult r = run_vcloe("filter " + slow.string() + " --out " + (d / "slow_f.csv").string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("note: the default cut-off 60 Hz is not below the Nyquist frequency 50 Hz of " + slow.string() +
                       " (samples at 100 Hz); using 30 Hz (0.6 x Nyquist); choose with --cutoff"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(d / "slow_f.csv.meta.json"))["filter"]["cutoff_hz"].get<double>(), 30.0);
  r = run_vcloe("filter " + slow.string() + " --cutoff 60 --out " + (d / "slow_g.csv").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--cutoff: expected a cut-off below the Nyquist frequency 50 Hz of " + slow.string()),
            std::string::npos)
      << r.out;
  // Below one cycle over the record the filter returns the mean (1e-9 Hz wrote nan rows).
  r = run_vcloe("filter " + slow.string() + " --cutoff 1e-9 --out " + (d / "slow_h.csv").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("below one cycle over the 0.99 s record"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d / "slow_h.csv"));
}

TEST(CliVision, VirtualRobotMeasuredThroughTheStereoPipeline) {
  const fs::path d = temp_dir("run");
  const std::string out = (d / "run.csv").string();
  CommandResult r = run_vcloe("run --backend virtual --reference " + std::string(VCLOE_SOURCE_DIR) +
                          "/config/reference.yaml --out " + out + " --camera stereo --centroid-noise-px 0.05");
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream meta(out + ".meta.json");
  const auto m = nlohmann::json::parse(meta);
  EXPECT_EQ(m["camera"]["model"].get<std::string>(), "stereo");
  EXPECT_EQ(m["camera"]["invalid_frames"].get<int>(), 0);
  EXPECT_FALSE(m.contains("noise_sigma"));
  r = run_vcloe("compare " + out + " " + out + " --columns measured --columns-b truth --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = json_of(r);
  for (int i = 0; i < 3; ++i) {  // the pipeline's accuracy at 0.05 px (docs/vision.md)
    EXPECT_LT(j["rms_mm"][i].get<double>(), 0.05);
    EXPECT_GT(j["rms_mm"][i].get<double>(), 0.001);  // and it is noisy: the camera is really used
    EXPECT_LT(j["rms_mrad"][i].get<double>(), 0.1);
  }
  std::cout << "[ measured ] vcloe run --camera stereo, measured vs truth RMS: " << j["rms_mm"].dump() << " mm, "
            << j["rms_mrad"].dump() << " mrad\n";
}

}  // namespace test_cli_vision
