// Specification of the command line on session 26's probe, class A (docs/robustness.md,
// "Session 26's probe"): a figure gnuplot drew is kept only whole. gnuplot exits 0 when its own
// write of the image meets a full disk, and a truncated PNG, SVG or PDF was written under the
// plot's name with exit 0; every figure goes through one job (report/gnuplot.hpp), which now
// checks the image's bytes (core/image_bytes.hpp) before the one writer keeps them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;
using cli_test::CommandResult;
using cli_test::run_shell;
using cli_test::run_vcloe;

namespace test_cli_probe26_a {

// A gnuplot on PATH that leaves `bytes` as its image (whatever the extension) and exits 0, as
// the real one does on a full disk.
void fake_gnuplot(const fs::path& bin, const std::string& bytes) {
  fs::create_directories(bin);
  std::ofstream(bin / "image.bytes", std::ios::binary) << bytes;
  const fs::path script = bin / "gnuplot";
  std::ofstream(script) << "#!/bin/sh\nfor f in plot.png plot.svg plot.pdf; do cat '" << (bin / "image.bytes").string()
                        << "' > $f; done\nexit 0\n";
  fs::permissions(script, fs::perms::owner_all);
}

TEST(CliProbe26, AnIncompleteImageGnuplotLeftIsRefusedAndNothingIsWritten) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-probe26", "images");
  const std::string s = d.string() + "/";
  ASSERT_EQ(run_vcloe("trajectory random --seed 2 --duration 0.5 --out " + s + "t.yaml").status, 0);
  ASSERT_EQ(run_vcloe("simulate --reference " + s + "t.yaml --out " + s + "a.csv").status, 0);
  // A whole PNG, drawn by the real gnuplot: kept.
  ASSERT_EQ(run_vcloe("compare " + s + "a.csv " + s + "a.csv --plot " + s + "whole.png").status, 0);
  const std::string png = cli_test::read_file(d / "whole.png");
  ASSERT_GT(png.size(), 1000u);
  struct Case {
    std::string left, plot, expected;
  };
  const std::vector<Case> cases = {
      {"", "e.png", "(an empty file)"},
      {png.substr(0, 8), "sig.png", "(truncated PNG (no IEND chunk))"},
      {png.substr(0, 100), "cut.png", "runs past the end of the file"},
      {png.substr(0, png.size() - 12), "noend.png", "(truncated PNG (no IEND chunk))"},
      {"<svg><g><path d='M0 0", "cut.svg", "(truncated SVG (no closing </svg>))"},
      {"%PDF-1.5\n1 0 obj\n", "cut.pdf", "(truncated PDF (no %%EOF marker at its end))"},
  };
  for (const Case& c : cases) {
    fake_gnuplot(d / "bin", c.left);
    const CommandResult r = run_shell("PATH=" + s + "bin:$PATH " + VCLOE_BINARY + " compare " + s + "a.csv " + s +
                                      "a.csv --plot " + s + c.plot + " 2>&1 >/dev/null");
    EXPECT_EQ(r.status, 2) << c.plot << "\n" << r.out;
    EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << c.plot << "\n" << r.out;
    EXPECT_EQ(r.out.rfind("vcloe: error: " + s + c.plot + ": gnuplot left an incomplete image ", 0), 0u) << r.out;
    EXPECT_NE(r.out.find(c.expected), std::string::npos) << c.plot << "\n" << r.out;
    EXPECT_NE(r.out.find("a full disk? nothing written"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(d / c.plot)) << c.plot;
  }
  // Probe 29: a program named gnuplot that draws nothing and exits 0 is said as such, not as a failure of "exit status 0".
  fs::create_directories(d / "bin0");
  std::ofstream(d / "bin0" / "gnuplot") << "#!/bin/sh\necho not a plotter >&2\nexit 0\n";
  fs::permissions(d / "bin0" / "gnuplot", fs::perms::owner_all);
  const CommandResult r = run_shell("PATH=" + s + "bin0:$PATH " + VCLOE_BINARY + " compare " + s + "a.csv " + s +
                                    "a.csv --plot " + s + "none.png 2>&1 >/dev/null");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(r.out, "vcloe: error: " + s + "none.png: the gnuplot on PATH exited 0 but drew no image (not a plotter): expected "
                   "gnuplot 5 with the .png terminal; nothing written\n");
  EXPECT_FALSE(fs::exists(d / "none.png"));
}

}  // namespace test_cli_probe26_a
