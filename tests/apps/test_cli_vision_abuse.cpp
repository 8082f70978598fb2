// Specification of the camera-side commands under bad input (docs/robustness.md): counts and
// sizes bounded before any work, a missing image pair never shifting later timestamps, the same
// images given as both cameras refused, image files checked before a decoder sees them, renders
// bounded and never leaving a torn image.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using cli_test::CommandResult;
using cli_test::run_vcloe;

// This file's helpers and specifications in its own namespace: the test program is compiled as
// one translation unit (tests/CMakeLists.txt).
namespace test_cli_vision_abuse {

namespace {

fs::path temp_dir(const std::string& name) { return cli_test::fresh_dir("vcloe-cli-vision-abuse", name); }
const std::string data = std::string(VCLOE_SOURCE_DIR) + "/tests/data";

// Refused with exit status 2 and exactly one line, `vcloe: error: …` containing `expected`.
void expect_one_line_refusal(const CommandResult& r, const std::string& expected, const std::string& what) {
  EXPECT_EQ(r.status, 2) << what << "\n" << r.out;
  EXPECT_EQ(r.out.rfind("vcloe: error: ", 0), 0u) << what << "\n" << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << what << "\n" << r.out;
  EXPECT_NE(r.out.find(expected), std::string::npos) << what << "\n" << r.out;
}

// A grayscale PNG of w x h zero pixels, 8- or 16-bit, written by hand (this test links no image
// library): zlib "stored" blocks, CRC-32 per chunk. A header of more than 10^6 px gets a token
// IDAT (such a file is only ever refused, never decoded).
std::string png(std::uint32_t w, std::uint32_t h, int bits = 8) {
  auto be32 = [](std::uint32_t v) {
    return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
  };
  auto chunk = [&](const std::string& type, const std::string& body) {
    std::uint32_t crc = 0xffffffffu;
    for (unsigned char c : type + body) {
      crc ^= c;
      for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return be32(static_cast<std::uint32_t>(body.size())) + type + body + be32(~crc);
  };
  const std::string raw = static_cast<double>(w) * h > 1e6 ? std::string(8, '\0')
                                                             : std::string(h * (1 + w * (bits / 8)), '\0');
  std::string z = "\x78\x01";
  std::uint32_t a = 1, b = 0;
  for (std::size_t at = 0; at < raw.size() || at == 0; at += 65535) {
    const std::size_t n = std::min<std::size_t>(65535, raw.size() - at);
    z += static_cast<char>(at + n >= raw.size());
    z += {static_cast<char>(n), static_cast<char>(n >> 8), static_cast<char>(~n), static_cast<char>(~n >> 8)};
    z += raw.substr(at, n);
  }
  for (unsigned char c : raw) a = (a + c) % 65521, b = (b + a) % 65521;
  z += be32((b << 16) | a);
  const std::string ihdr = be32(w) + be32(h) + std::string{static_cast<char>(bits), 0, 0, 0, 0};
  return "\x89PNG\r\n\x1a\n" + chunk("IHDR", ihdr) + chunk("IDAT", z) + chunk("IEND", "");
}

void write_bytes(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

}  // namespace

TEST(CliVisionAbuse, AMissingImagePairLeavesAGapAndNeverShiftsLaterTimes) {
  const fs::path d = temp_dir("gap");
  ASSERT_EQ(run_vcloe("render --out " + (d / "img").string() + " --frames 5").status, 0);
  fs::remove(d / "img" / "left_0002.png");  // frame 2 lost, both images
  fs::remove(d / "img" / "right_0002.png");
  const std::string out = (d / "poses.csv").string();
  const CommandResult r = run_vcloe("measure --images " + (d / "img").string() + " --truth " +
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
  const CommandResult unpaired = run_vcloe("measure --images " + (d / "img").string());
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
  const CommandResult r = run_vcloe("calibrate stereo --images " + list.string() + " --board 9x6 --square 0.025 --out " +
                                (d / "rig.yaml").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("are the same file; a stereo pair needs the images of two cameras"), std::string::npos) << r.out;
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
  std::string reference = cli_test::read_file(cli_test::config_dir + "reference.yaml");
  reference.replace(reference.find("duration: 20"), 12, "duration: 60");
  std::ofstream(d / "long.yaml") << reference;  // 6000 frames at 100 Hz: 60 GB of PNG in 27 min
  cli_test::expect_refused({
      {"calibrate base --poses 1000000", "--poses: expected 3 to 10000 poses, got 1000000"},
      {"calibrate base --frames 100000000", "--frames: expected 1 to 100000 frames"},
      {"calibrate base --noise-px -1", "--noise-px: expected a centroid noise sigma in [0, 10] px"},
      {"calibrate base --commanded x.csv", "--commanded requires --images"},
      {"render --rig " + (d / "big-rig.yaml").string() + " --out " + (d / "img").string(),
       "key 'left.image_size': expected [width, height] in whole pixels, 16 to 20000 each and at most 100 Mpx"},
      {"render --blur-px 1e6 --out " + (d / "img").string(), "--blur-px: expected a blur sigma in (0.1, 50] px"},
      {"render --noise-dn 1e300 --out " + (d / "img").string(), "--noise-dn: expected a noise sigma in [0, 4095] DN"},
      {"render --frames 3000 --out " + (d / "img").string(), "--frames/--rate: 3000 frames at 100 Hz last 29.99 s"},
      {"render --out " + (d / "a-file").string(), "is a file; --out names the directory for the images"},
      {"measure --images " + d.string() + " --rate 0", "--rate: expected a frame rate in [0.001, 100000] Hz"},
      {"measure --images " + d.string() + " --rate 1e-300", "--rate: expected a frame rate in [0.001, 100000] Hz"},
      {"render --reference " + (d / "long.yaml").string() + " --frames 6000 --out " + (d / "img").string(),
       "--frames: 6000 stereo frames of 4096x3000 px would be 147.5 Gpx (up to 296 GB of 16-bit PNG); at most 10 Gpx"},
  });  // each refused before work (formerly minutes, or 14 GB)
  EXPECT_FALSE(fs::exists(d / "img"));
}

TEST(CliVisionAbuse, ARigThatCannotSeeTheMarkersRendersNothing) {
  // A focal length of 1e-300, distortion of 1e308, or a camera behind the markers wrote empty
  // images without a word; `measure` then found no pose in any of them. The focal length is
  // bounded at its key since session 23; distortion of 1e308 is still a rig that sees nothing.
  const fs::path d = cli_test::fresh_dir("vcloe-cli-vision-abuse", "blind");
  std::ifstream in(cli_test::config_dir + "rig.yaml");
  const std::string rig((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto with = [&](const std::string& from, const std::string& to, const fs::path& file) {
    std::string text = rig;
    EXPECT_NE(text.find(from), std::string::npos) << from;
    if (text.find(from) != std::string::npos) text.replace(text.find(from), from.size(), to);
    std::ofstream(file) << text;
    return run_vcloe("render --rig " + file.string() + " --reference " + cli_test::config_dir +
                     "reference.yaml --frames 2 --out " + (d / "img").string());
  };
  const CommandResult f = with("focal_px: [4640, 4641.5]", "focal_px: [1e-300, 1e-300]", d / "focal.yaml");
  EXPECT_EQ(f.status, 2) << f.out;
  EXPECT_NE(f.out.find("focal.yaml:11: key 'left.focal_px': expected two focal lengths [fx, fy] in [1, 1e+06] px"),
            std::string::npos)
      << f.out;
  const CommandResult r = with("distortion: [-0.08, 0.06, 0.0002, -0.0001, 0]", "distortion: [1e308, 0.06, 0.0002, -0.0001, 0]",
                               d / "blind.yaml");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("blind.yaml along "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no frame shows 3 markers in both images"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d / "img"));
}

TEST(CliVisionAbuse, AnImageFileIsCheckedBeforeADecoderSeesIt) {
  // Was: OpenCV's assertion `pixels <= CV_IO_MAX_IMAGE_PIXELS` (exit 3) for a header claiming
  // 10^10 px; `libpng error: Read Error` above our line for a truncated file; "no left*/right*
  // image pairs found" for a device or a pipe under an image's name.
  const fs::path d = temp_dir("files");
  const std::string good = png(640, 480, 16);
  fs::create_directories(d / "big");
  for (const char* side : {"left", "right"}) write_bytes(d / "big" / (std::string(side) + "_0000.png"), png(100000, 100000));
  fs::create_directories(d / "cut");
  write_bytes(d / "cut" / "left_0000.png", good);
  write_bytes(d / "cut" / "right_0000.png", good.substr(0, 1000));
  fs::create_directories(d / "dev");
  write_bytes(d / "dev" / "right_0000.png", good);
  fs::create_symlink("/dev/zero", d / "dev" / "left_0000.png");
  fs::create_directories(d / "fifo");
  write_bytes(d / "fifo" / "right_0000.png", good);
  ASSERT_EQ(::mkfifo((d / "fifo" / "left_0000.png").c_str(), 0600), 0);
  const std::string calibrate = " --board 9x6 --square 0.02 --out " + (d / "rig.yaml").string();
  const std::pair<std::string, std::string> cases[] = {
      {"big", "big/left_0000.png: image of 100000x100000 px; at most 100 Mpx"},
      {"cut", "cut/right_0000.png: truncated PNG (no IEND chunk)"},
      {"dev", "dev/left_0000.png: is a device, pipe or socket, expected a regular file"},
      {"fifo", "fifo/left_0000.png: is a device, pipe or socket, expected a regular file"}};
  for (const auto& [dir, expected] : cases) {
    const std::string images = (d / dir).string();
    expect_one_line_refusal(run_vcloe("measure --images " + images), expected, "measure " + dir);
    expect_one_line_refusal(run_vcloe("calibrate stereo --images " + images + calibrate), expected, "calibrate " + dir);
  }
  EXPECT_FALSE(fs::exists(d / "rig.yaml"));
}

TEST(CliVisionAbuse, AnImageWhoseSizeDiffersFromTheRigIsRefusedNamingBothSizes) {
  // Was: "0 of 1 frames valid" (exit 0), or "no valid pose: nothing to write".
  const fs::path d = temp_dir("size");
  for (const char* side : {"left", "right"}) {
    write_bytes(d / (std::string(side) + "_0000.png"), png(640, 480, 16));
    fs::create_directories(d / "tiny");
    write_bytes(d / "tiny" / (std::string(side) + "_0000.png"), png(1, 1));
  }
  const std::string rig = cli_test::config_dir + "rig.yaml";
  expect_one_line_refusal(run_vcloe("measure --images " + d.string() + " --out " + (d / "p.csv").string()),
                          "size/left_0000.png: 640x480 px, but " + rig + " gives the left camera 4096x3000", "measure");
  expect_one_line_refusal(run_vcloe("measure --images " + (d / "tiny").string()),
                          "tiny/left_0000.png: 1x1 px, but " + rig + " gives the left camera 4096x3000", "1x1");
  expect_one_line_refusal(run_vcloe("calibrate base --images " + d.string()), "size/left_0000.png: 640x480 px, but ",
                          "calibrate base");
  EXPECT_FALSE(fs::exists(d / "p.csv"));
}

TEST(CliVisionAbuse, LargeFrameNumbersKeepTheirTimesAndTooLargeOnesAreRefused) {
  // Was: a number of more than 9 digits was "not a frame counter": name order, the second pair
  // at 0.01 s, no frame missing.
  const fs::path d = temp_dir("numbers");
  ASSERT_EQ(run_vcloe("render --out " + (d / "img").string() + " --frames 1").status, 0);
  for (const char* side : {"left", "right"})
    fs::copy_file(d / "img" / (std::string(side) + "_0000.png"), d / "img" / (std::string(side) + "_0003000000.png"));
  const CommandResult r = run_vcloe("measure --images " + (d / "img").string() + " --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  ASSERT_EQ(j["per_frame"].size(), 2u);
  EXPECT_EQ(j["per_frame"][1]["frame"], 3000000);
  EXPECT_DOUBLE_EQ(j["per_frame"][1]["time_s"].get<double>(), 30000.0);
  ASSERT_FALSE(j["missing_frames"].empty());  // (listed up to 1000)
  EXPECT_EQ(j["missing_frames"].front(), 1);
  for (const char* side : {"left", "right"})
    fs::rename(d / "img" / (std::string(side) + "_0003000000.png"),
               d / "img" / (std::string(side) + "_99999999999999999999.png"));
  expect_one_line_refusal(run_vcloe("measure --images " + (d / "img").string()),
                          "img/left_99999999999999999999.png: frame number 99999999999999999999 (the last number in the "
                          "name) is above 10^7",
                          "20 digits");
}

TEST(CliVisionAbuse, ARenderPutsNoImageInPlaceBeforeItsWholeSetAndAnInterruptedOneLeavesNothing) {
  // Was: cv::imwrite straight to left_NNNN.png: a render interrupted (SIGINT) left a torn PNG
  // under its final name. Then (probe 26's class D) each image was put in place as it was made:
  // an interrupted or failed render left part of a set, or a mix of two under --force. The set
  // is one group now: no image under its name while the render runs, none after an interrupt.
  const fs::path d = temp_dir("torn");
  const fs::path img = d / "img";
  cli_test::write_small_rig(d / "rig.yaml");  // about 100 frames a second
  const std::string rig = (d / "rig.yaml").string();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    ::execl(VCLOE_BINARY, VCLOE_BINARY, "render", "--rig", rig.c_str(), "--frames", "1900", "--out", img.c_str(), nullptr);
    ::_exit(127);
  }
  std::vector<std::string> seen;
  auto look = [&] {
    std::error_code ec;
    for (fs::directory_iterator it(img, ec), end; !ec && it != end; it.increment(ec))  // a final name, not a temporary
      if (it->path().filename().string().find(".tmp-") == std::string::npos) seen.push_back(it->path().filename().string());
  };
  const auto t0 = std::chrono::steady_clock::now();
  while (seen.empty() && std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(1200)) {
    look();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the render ended before the interrupt";
  look();
  EXPECT_TRUE(seen.empty()) << seen.size() << " files seen in " << img << ", e.g. " << seen.front();
}

}  // namespace test_cli_vision_abuse
