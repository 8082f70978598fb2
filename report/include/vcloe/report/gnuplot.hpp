#pragma once
// Every plot vcloe draws goes through here: a gnuplot script run on data files in a private
// temporary directory, with one look (font, grid, line widths) shared by `compare --plot`,
// `excite --plot` and the HTML report. gnuplot is Debian's gnuplot-nox (scripts/install-deps.sh).
#include <filesystem>
#include <string>

namespace vcloe::report {

class GnuplotJob {
 public:
  // Throws vcloe::Error naming `output` if gnuplot is missing.
  explicit GnuplotJob(std::string output);
  ~GnuplotJob();
  GnuplotJob(const GnuplotJob&) = delete;
  GnuplotJob& operator=(const GnuplotJob&) = delete;

  // Path of a data file in the job's directory (the caller writes it).
  std::string data_file(const std::string& name) const;
  // Runs `body` after the terminal for the output's extension (.png, .svg, .pdf) at `size`
  // (pixels for png/svg) and the shared style; throws vcloe::Error naming the output with
  // gnuplot's first error line if it fails.
  void run(const std::string& body, const std::string& size = "1500,850") const;

 private:
  std::string output_;
  std::filesystem::path dir_;
};

// gnuplot's terminal for a file's extension; throws vcloe::Error for an unknown one.
std::string gnuplot_terminal(const std::string& file, const std::string& size);

// A string as a gnuplot single-quoted literal (quotes doubled).
std::string gnuplot_quote(const std::string& s);

}  // namespace vcloe::report
