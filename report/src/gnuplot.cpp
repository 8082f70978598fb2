// gnuplot jobs with one look (gnuplot.hpp).
#include "vcloe/report/gnuplot.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>

#include "vcloe/core/error.hpp"

namespace vcloe::report {

namespace fs = std::filesystem;

std::string gnuplot_terminal(const std::string& file, const std::string& size) {
  const std::string ext = fs::path(file).extension().string();
  if (ext == ".png") return "pngcairo size " + size + " font 'Sans,10'";
  if (ext == ".svg") return "svg size " + size + " font 'Sans,10'";
  if (ext == ".pdf") return "pdfcairo size 15in,8.5in font 'Sans,10'";
  fail(file, "unknown plot format '" + ext + "' (expected .png, .svg or .pdf)");
}

std::string gnuplot_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
  return q + "'";
}

GnuplotJob::GnuplotJob(std::string output) : output_(std::move(output)) {
  gnuplot_terminal(output_, "1,1");
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    fail(output_, "gnuplot not found; install Debian's gnuplot-nox (scripts/install-deps.sh does)");
  static std::atomic<int> counter{0};
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path(ec);
  if (ec) {
    const char* env = std::getenv("TMPDIR");
    fail(output_, "the plot needs a directory for temporary files: TMPDIR=" + std::string(env ? env : "") + ": " +
                      ec.message());
  }
  dir_ = tmp / ("vcloe-plot-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  if (fs::create_directories(dir_, ec); ec) fail(dir_.string(), "cannot create the plot's temporary directory: " + ec.message());
}

GnuplotJob::~GnuplotJob() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string GnuplotJob::data_file(const std::string& name) const { return (dir_ / name).string(); }

void GnuplotJob::run(const std::string& body, const std::string& size) const {
  const fs::path script = dir_ / "plot.gp", err = dir_ / "err.txt";
  {
    std::ofstream g(script);
    g << "set terminal " << gnuplot_terminal(output_, size) << "\nset output " << gnuplot_quote(fs::absolute(output_).string())
      << "\nset termoption noenhanced\nset grid\nset key top right opaque box\nset style line 1 lw 1.5\n"
      << body << "\nunset output\n";
  }
  const int rc = std::system(("gnuplot '" + script.string() + "' 2>'" + err.string() + "'").c_str());
  std::string first;
  {
    std::ifstream e(err);
    std::string line;
    while (std::getline(e, line))
      if (!line.empty() && first.empty()) first = line;
  }
  if (rc != 0 || !fs::exists(output_)) fail(output_, "gnuplot failed: " + first);
}

}  // namespace vcloe::report
