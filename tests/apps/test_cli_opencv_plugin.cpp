// Specification of OpenCV's codecs and cameras as a plugin loaded on first use
// (vcloe/vision/opencv_io.hpp, docs/architecture.md): the `vcloe` binary does not link them (each
// start would resolve their 205 libraries again), and a plugin that cannot be loaded is one line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using cli_test::CommandResult;

namespace test_cli_opencv_plugin {

TEST(CliOpenCvPlugin, TheBinaryLinksNoneOfOpenCvsCodecsAndCamerasNorWhatTheyPullIn) {
  // Every library the binary loads at start, its own NEEDED entries and theirs (ldd).
  const CommandResult r = cli_test::run_shell("ldd " + std::string(VCLOE_BINARY));
  ASSERT_EQ(r.status, 0) << r.out;
  ASSERT_NE(r.out.find("libopencv_core"), std::string::npos) << r.out;  // the listing is of the binary
  for (const char* lib : {"libopencv_imgcodecs", "libopencv_videoio", "libgdal", "libavcodec", "libgstreamer"})
    EXPECT_EQ(r.out.find(lib), std::string::npos) << lib << " is loaded at every start of vcloe:\n" << r.out;
}

// The default rig at an eighth of its size (512x375 px): images rendered and measured in 0.3 s.
std::string small_rig() {
  std::string rig = cli_test::read_file(cli_test::config_dir + "rig.yaml");
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"[4096, 3000]", "[512, 375]"}, {"[4096, 3000]", "[512, 375]"},
                                 {"[4640, 4641.5]", "[580, 580]"}, {"[4636.2, 4637]", "[580, 580]"},
                                 {"[2051.3, 1494.8]", "[256, 187.5]"}, {"[2041.7, 1503.1]", "[256, 187.5]"}}) {
    const std::size_t at = rig.find(from);
    if (at == std::string::npos) ADD_FAILURE() << "config/rig.yaml has no " << from;
    else rig.replace(at, from.size(), to);
  }
  return rig;
}

// An installation (bin/vcloe and the plugin at its place relative to bin/) whose plugin is not a
// loadable library: the installed place is looked at first, so the build tree's is never reached.
TEST(CliOpenCvPlugin, APluginThatCannotBeLoadedIsOneLineNamingTheImageAndThePlugin) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-opencv-plugin", "install");
  fs::create_directories(d / "bin");
  const fs::path vcloe = d / "bin" / "vcloe", plugin = (d / "bin" / VCLOE_OPENCV_IO_FROM_BINDIR).lexically_normal();
  fs::copy_file(VCLOE_BINARY, vcloe);
  fs::create_directories(plugin.parent_path());
  std::ofstream(d / "rig.yaml") << small_rig();
  const std::string rig = " --rig " + (d / "rig.yaml").string();
  // First the real plugin, installed: images are written and read through it.
  fs::copy_file(VCLOE_OPENCV_IO_BUILT, plugin);
  CommandResult r = cli_test::run_shell(vcloe.string() + " render --frames 1 --out " + (d / "img").string() + rig + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  r = cli_test::run_shell(vcloe.string() + " measure --images " + (d / "img").string() + rig + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;

  std::ofstream(plugin, std::ios::trunc) << "not a shared library\n";
  const std::string left = (d / "img" / "left_0000.png").string();
  for (const auto& [args, file] : {std::pair<std::string, std::string>{"measure --images " + (d / "img").string(), left},
                                   {"render --frames 1 --out " + (d / "img2").string(), (d / "img2").string()}}) {
    r = cli_test::run_shell(vcloe.string() + " " + args + rig + " 2>&1");
    EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
    EXPECT_EQ(r.out.rfind("vcloe: error: " + file, 0), 0u) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("plugin " + plugin.string() + " cannot be loaded ("), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line:\n" << r.out;
  }
}

}  // namespace test_cli_opencv_plugin
