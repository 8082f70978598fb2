#pragma once
// Every plot vcloe draws goes through here: a gnuplot script run on data files in a private
// temporary directory (gnuplot started without a shell, in that directory, on names of our own:
// core/subprocess.hpp), the image then written by the one writer (core/output_file.hpp), with
// one look (font, grid, line widths) shared by `compare --plot`, `excite --plot` and the HTML
// report. gnuplot is Debian's gnuplot-nox (scripts/install-deps.sh).
#include <string>

#include "vcloe/core/output_file.hpp"

namespace vcloe::report {

class GnuplotJob {
 public:
  // Throws vcloe::Error naming `output` if gnuplot is missing.
  explicit GnuplotJob(std::string output);
  GnuplotJob(const GnuplotJob&) = delete;
  GnuplotJob& operator=(const GnuplotJob&) = delete;

  // Writes a data file of the job (`name`: letters, digits and dots) and how the script names it.
  void write_data(const std::string& name, const std::string& text) const;
  std::string data(const std::string& name) const;
  // Runs `body` after the terminal for the output's extension (.png, .svg, .pdf) at `size`
  // (pixels for png/svg) and the shared style; throws vcloe::Error naming the output with
  // gnuplot's first error line if it fails.
  void run(const std::string& body, const std::string& size = "1500,850") const;

 private:
  std::string output_;
  TemporaryDirectory dir_;
};

// The figure `output` as a command's IoPlan checks it before any work: a known extension
// (gnuplot_terminal), the file an output named `role`, gnuplot on PATH and a temporary
// directory under TMPDIR (IoPlan::program). Every plotting command declares its plots here.
void plan_figure(IoPlan& plan, const std::string& output, const std::string& role);
// gnuplot and its temporary directory alone, for a file `output` drawn with figures (the HTML report).
void plan_gnuplot(IoPlan& plan, const std::string& output, const std::string& role);

// gnuplot's terminal for a file's extension; throws vcloe::Error for an unknown one.
std::string gnuplot_terminal(const std::string& file, const std::string& size);

// A string as a gnuplot single-quoted literal (quotes doubled, control characters as spaces).
std::string gnuplot_quote(const std::string& s);

}  // namespace vcloe::report
