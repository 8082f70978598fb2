#pragma once
// `vcloe report` (docs/report.md): the identify report and the validation read by their typed
// readers, the twin re-run on the first experiment from the files the report's inputs name (the
// time plots), the HTML report written (vcloe/report/html.hpp).
#include <string>

namespace vcloe::workflow {

struct ReportOptions {
  std::string identification, validation, out;  // validation optional
  bool force = false;
};

// Writes the report to options.out (checked first: an .html name, not overwritten without
// force, not an input).
void write_identification_report(const std::string& identification_file, const std::string& validation_file,
                                 const std::string& out, bool force);
inline void write_report(const ReportOptions& o) {
  write_identification_report(o.identification, o.validation, o.out, o.force);
}

}  // namespace vcloe::workflow
