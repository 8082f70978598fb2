#pragma once
// Plots of the six pose components over time (Li et al. 2019, Figs. 11-12 form), drawn by gnuplot:
// x, y, z in mm and alpha, beta, gamma in mrad, one panel each, one line per named series.
#include <string>
#include <vector>

#include "vcloe/core/pose_path.hpp"
#include "vcloe/core/rotation.hpp"

namespace vcloe::report {

struct PoseSeries {
  std::string name;
  std::vector<double> time;  // s
  std::vector<Vec6d> pose;   // m, rad
};

// A pose path sampled every `step` s over [0, duration] as one named series.
PoseSeries sample_series(const std::string& name, const PosePath& path, double step = 0.02);

// Writes FILE (.png, .svg or .pdf by extension; declared in the command's IoPlan by
// plan_figure, gnuplot.hpp, which checks its name, where it goes and gnuplot before any work)
// through the one writer; a clear vcloe::Error if gnuplot is missing or fails.
// `channels`: all six (2 x 3 panels), or one kind, positions or angles (1 x 3 panels).
enum class PoseChannels { all, positions, angles };
void plot_pose_series(const std::vector<PoseSeries>& series, const std::string& file, const std::string& title,
                      PoseChannels channels = PoseChannels::all);

}  // namespace vcloe::report
