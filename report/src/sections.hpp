#pragma once
// The HTML report's sections (html.hpp), each a pure function of the typed report.
#include <optional>
#include <string>

#include "vcloe/core/rotation.hpp"
#include "vcloe/report/html.hpp"
#include "vcloe/report/identification.hpp"
#include "vcloe/report/validation.hpp"

namespace vcloe::report {

std::string html_escape(const std::string& s);
std::string html_number(double v, int digits = 4);
std::string html_figure(const std::string& png, const std::string& caption);  // the PNG embedded

std::string report_summary(const IdentificationReport& r);
std::string report_parameter_table(const IdentificationReport& r);
std::string report_rms_table(const IdentificationReport& r, const Vec6d& sigma);
std::string report_validation(const std::optional<ValidationResult>& v);  // empty without a validation
// sections_more.cpp; each empty without its data. `dir`: where the figures are drawn.
std::string report_calibration(const std::string& file, const std::optional<CalibrationReport>& calibration);
std::string report_torques(const TorqueSeries& torques, const std::string& dir);

}  // namespace vcloe::report
