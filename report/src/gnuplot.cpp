// gnuplot jobs with one look (gnuplot.hpp).
#include "vcloe/report/gnuplot.hpp"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/core/file_extension.hpp"
#include "vcloe/core/image_bytes.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/core/subprocess.hpp"

namespace vcloe::report {

namespace fs = std::filesystem;

std::string gnuplot_terminal(const std::string& file, const std::string& size) {
  const std::string ext = file_extension(file);
  if (ext == ".png") return "pngcairo size " + size + " font 'Sans,10'";
  if (ext == ".svg") return "svg size " + size + " font 'Sans,10'";
  if (ext == ".pdf") return "pdfcairo size 15in,8.5in font 'Sans,10'";
  fail(file, "unknown plot format '" + fs::path(file).extension().string() + "' (expected .png, .svg or .pdf)");
}

constexpr char kInstallGnuplot[] = "install Debian's gnuplot-nox (scripts/install-deps.sh does)";

void plan_figure(IoPlan& plan, const std::string& output, const std::string& role) {
  if (output.empty()) return;
  gnuplot_terminal(output, "1,1");
  plan_gnuplot(plan.output(output, role), output, role);
}

void plan_gnuplot(IoPlan& plan, const std::string& output, const std::string& role) {
  plan.program("gnuplot", output, role, kInstallGnuplot);
}

std::string gnuplot_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\'') q += "''";
    else if (u < 0x20 || u == 0x7f) q += ' ';  // a newline would end the script's line
    else q += c;
  }
  return q + "'";
}

GnuplotJob::GnuplotJob(std::string output) : output_(std::move(output)), dir_(output_, "the plot") {
  gnuplot_terminal(output_, "1,1");
  if (find_program("gnuplot").empty())
    fail(output_, std::string("gnuplot not found; ") + kInstallGnuplot);
}

std::string GnuplotJob::data(const std::string& name) const { return gnuplot_quote(name); }

// A data file the user never named: its failure (a full disk, ulimit -f) is said of the plot.
void GnuplotJob::write_data(const std::string& name, const std::string& text) const {
  try {
    write_file_atomically(dir_.file(name), text, true);
  } catch (const Error& e) {
    std::string why = e.what();
    const std::string ours = dir_.file(name) + ": ";
    if (why.rfind(ours, 0) == 0) why.erase(0, ours.size());
    if (const std::size_t tail = why.rfind("; nothing was written"); tail != std::string::npos) why.erase(tail);
    fail(output_, "not written: gnuplot's data for it could not be written in a temporary directory (" + why + ")");
  }
}

// gnuplot runs in the job's directory on names of our own (plot.gp, the data files, the image):
// no path the user chose, nor TMPDIR, is ever part of the script or of a command line.
void GnuplotJob::run(const std::string& body, const std::string& size) const {
  const std::string image = "plot" + file_extension(output_);
  write_data("plot.gp", "set terminal " + gnuplot_terminal(output_, size) + "\nset output " + gnuplot_quote(image) +
                            "\nset termoption noenhanced\nset grid\nset key top right opaque box\nset style line 1 lw 1.5\n" +
                            body + "\nunset output\n");
  // A plot of a day-long trace draws in seconds: a gnuplot still running after a minute never returns.
  constexpr double kTimeLimit = 60;
  // -d (--default-settings): neither the user's ~/.gnuplot nor the system's gnuplotrc is read —
  // a figure depends on its inputs alone, and no command but our script runs (session 28's probe, A).
  const ChildExit e = run_child({"gnuplot", "-d", "plot.gp"}, {dir_.path(), dir_.file("out.txt"), dir_.file("err.txt")}, 5.0, kTimeLimit);
  if (e.interrupted_by) fail(output_, "interrupted by signal " + std::to_string(e.interrupted_by) + " while gnuplot drew it; nothing written");
  std::string first;
  {
    std::ifstream err(dir_.file("err.txt"));
    for (std::string line; std::getline(err, line);)
      if (!line.empty() && first.empty()) first = line;
  }
  std::error_code ec;
  if (!e.ok()) fail(output_, "gnuplot failed (" + e.describe() + ")" + (first.empty() ? "; nothing written" : ": " + first));
  if (!fs::is_regular_file(dir_.file(image), ec))  // exit 0 and no image: not the gnuplot vcloe needs
    fail(output_, "the gnuplot on PATH exited 0 but drew no image" + (first.empty() ? std::string() : " (" + first + ")") +
                      ": expected gnuplot 5 with the " + file_extension(output_) + " terminal; nothing written");
  std::ifstream in(dir_.file(image), std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in.good() && !in.eof()) fail(output_, "cannot read gnuplot's image back");
  // gnuplot exits 0 when its own write of the image met a full disk (session 26's probe, A):
  // the image is kept only whole.
  if (const auto problem = image_problem(bytes.str(), file_extension(output_)))
    fail(output_, "gnuplot left an incomplete image (" + *problem + ") in its temporary directory under " +
                      fs::path(dir_.path()).parent_path().string() + (first.empty() ? "" : " (" + first + ")") +
                      ": a full disk? nothing written");
  write_file_atomically(output_, bytes.str(), true);  // the caller checked the name (IoPlan) before any work
}

}  // namespace vcloe::report
