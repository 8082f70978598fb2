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

// A plot file's name: a known extension (.png, .svg, .pdf). Where it may be written is the
// command's IoPlan's to check (core/output_file.hpp), with every other input and output.
void check_plot_name(const std::string& file);

// Writes FILE (.png, .svg or .pdf by extension; its name checked by check_plot_name, where it
// goes by the caller's IoPlan — `force` is kept for the callers and no longer consulted here)
// through the one writer; a clear vcloe::Error if gnuplot is missing or fails.
// `channels`: all six (2 x 3 panels), or one kind, positions or angles (1 x 3 panels).
enum class PoseChannels { all, positions, angles };
void plot_pose_series(const std::vector<PoseSeries>& series, const std::string& file, const std::string& title,
                      bool force, PoseChannels channels = PoseChannels::all);

}  // namespace vcloe::report
