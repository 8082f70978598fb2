#pragma once
// The pose plots moved to the report module (vcloe/report/pose_plot.hpp); this name stays for
// cmd_excite.cpp until it includes that header itself.
#include "vcloe/report/pose_plot.hpp"

namespace vcloe::app {
using report::check_plot_path;
using report::plot_pose_series;
using report::PoseSeries;
}  // namespace vcloe::app
