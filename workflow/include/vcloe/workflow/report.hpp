#pragma once
// `vcloe report` (docs/report.md): the identify report and the validation read by their typed
// readers, the twin re-run on the first experiment from the files the report's inputs name (the
// time plots), the HTML report written (vcloe/report/html.hpp).
#include <string>
#include <vector>

namespace vcloe::workflow {

struct ReportOptions {
  std::string identification, validation, out;  // validation optional
  std::string calibration;                      // optional: `vcloe calibrate kinematics --result`
  std::vector<std::string> tracking;            // optional: traces of runs (servo alone, pre-corrected, learnt)
  bool force = false;

  void validate() const;  // out: an .html name, not overwritten without force, not an input
};

// Writes the report to options.out, checked first.
void write_report(const ReportOptions& options);

}  // namespace vcloe::workflow
