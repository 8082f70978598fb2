#include "pose_plot.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe::app {

namespace {

// gnuplot's terminal for the file's extension.
std::string terminal_for(const std::string& file) {
  const std::string ext = std::filesystem::path(file).extension().string();
  if (ext == ".png") return "pngcairo size 1500,850 font 'Sans,10'";
  if (ext == ".svg") return "svg size 1500,850 font 'Sans,10'";
  if (ext == ".pdf") return "pdfcairo size 15in,8.5in font 'Sans,10'";
  fail(file, "unknown plot format '" + ext + "' (expected .png, .svg or .pdf)");
}

}  // namespace

void check_plot_path(const std::string& file, bool force, const std::vector<std::string>& inputs) {
  terminal_for(file);
  check_output_path(file, force, inputs);
}

void plot_pose_series(const std::vector<PoseSeries>& series, const std::string& file, const std::string& title,
                      bool force) {
  namespace fs = std::filesystem;
  if (series.empty()) fail(file, "nothing to plot");
  check_plot_path(file, force);
  const std::string terminal = terminal_for(file);
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    fail(file, "gnuplot not found; install Debian's gnuplot-nox (scripts/install-deps.sh does)");

  const fs::path dir = fs::temp_directory_path() / ("vcloe-plot-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (std::size_t s = 0; s < series.size(); ++s) {
    std::ofstream d(dir / ("series" + std::to_string(s) + ".dat"));
    for (std::size_t i = 0; i < series[s].time.size(); ++i) {
      const Vec6d& p = series[s].pose[i];
      d << series[s].time[i];
      for (int c = 0; c < 6; ++c) d << ' ' << p(c) * 1e3;  // mm, mrad
      d << '\n';
    }
  }
  const char* labels[6] = {"x (mm)", "y (mm)", "z (mm)", "alpha (mrad)", "beta (mrad)", "gamma (mrad)"};
  const fs::path script = dir / "plot.gp";
  {
    std::ofstream g(script);
    g << "set terminal " << terminal << "\nset output '" << fs::absolute(file).string() << "'\n";
    g << "set termoption noenhanced\nset multiplot layout 2,3 title '" << title
      << "'\nset grid\nset key top right opaque box\nset xlabel 't (s)'\n";
    for (int c = 0; c < 6; ++c) {
      g << "set ylabel '" << labels[c] << "'\nplot ";
      for (std::size_t s = 0; s < series.size(); ++s)
        g << (s ? ", " : "") << "'" << (dir / ("series" + std::to_string(s) + ".dat")).string() << "' using 1:" << c + 2
          << " with lines lw 1.5 title '" << series[s].name << "'";
      g << "\n";
    }
    g << "unset multiplot\n";
  }
  const int rc = std::system(("gnuplot '" + script.string() + "' 2>'" + (dir / "err.txt").string() + "'").c_str());
  std::string err;
  {
    std::ifstream e(dir / "err.txt");
    std::getline(e, err);
  }
  fs::remove_all(dir);
  if (rc != 0 || !fs::exists(file)) fail(file, "gnuplot failed: " + err);
}

}  // namespace vcloe::app
