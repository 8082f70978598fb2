#pragma once
// The identification report as ONE self-contained HTML file (docs/report.md): summary, Table 2
// form (every parameter with its 95 % interval and status), Table 3 form (RMS against the
// declared camera noise), the pose traces measured vs twin before and after (Figs. 12-13 form),
// residuals with the camera-noise band and their histogram, the parameters' correlation, the
// Jacobian's singular values with the rank cut, the excitation (Fig. 11 form, observability
// index) and, when given, the validation (Tables 4 and 5 form). Figures are gnuplot PNGs
// embedded as data URIs: no network, no script framework.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace vcloe::app {

struct ReportInput {
  std::string identification_file;  // <model>.report.json written by `vcloe identify`
  nlohmann::json identification;
  std::string validation_file;      // `vcloe validate --out`, optional
  std::optional<nlohmann::json> validation;
};

// Reads and checks both files: missing, unreadable, not JSON, or without the keys the report
// needs is a vcloe::Error naming the file and the key.
ReportInput load_report_input(const std::string& identification_file, const std::string& validation_file);

// The HTML text. Re-runs the twin at the priors and at the identified values on the first
// experiment (the files named in the report's `inputs`) for the time plots.
std::string identification_report_html(const ReportInput& input);

// Writes the report to `out` (checked first: not overwritten without force, not an input).
// An HTML report's path: checked as any output, and named .html or .htm (a report written
// under report.png opened as a broken image).
void check_report_path(const std::string& path, bool force, const std::vector<std::string>& inputs);

void write_identification_report(const std::string& identification_file, const std::string& validation_file,
                                 const std::string& out, bool force);

}  // namespace vcloe::app
