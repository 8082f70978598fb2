#pragma once
// `vcloe report` and `identify --report`: the identify report and the validation read by their
// typed readers, the twin re-run on the first experiment for the time plots, the HTML written
// (vcloe/report/html.hpp).
#include <string>

namespace vcloe::app {

// Writes the report to `out` (checked first: not overwritten without force, not an input).
void write_identification_report(const std::string& identification_file, const std::string& validation_file,
                                 const std::string& out, bool force);

}  // namespace vcloe::app
