#pragma once
// The HTML report's sections (report_html.hpp), each a pure function of the report's inputs.
#include <string>

#include "report_html.hpp"
#include "vcloe/core/rotation.hpp"

namespace vcloe::app {

// The files the identification read, from its report's `inputs` (each {path, sha256}).
struct ReportFiles {
  std::string robot, measured, reference, experiment, model;
  nlohmann::json table;
};
ReportFiles report_files(const ReportInput& in);

// j[key], or a vcloe::Error naming `file` and the key.
const nlohmann::json& need(const nlohmann::json& j, const std::string& key, const std::string& file);

std::string html_escape(const std::string& s);
std::string html_number(double v, int digits = 4);
std::string html_figure(const std::string& png, const std::string& caption);  // the PNG embedded

std::string report_summary(const ReportInput& in, const ReportFiles& files);
std::string report_parameter_table(const ReportInput& in);
std::string report_rms_table(const ReportInput& in, const Vec6d& sigma);
std::string report_validation(const ReportInput& in);  // empty without a validation

}  // namespace vcloe::app
