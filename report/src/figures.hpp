#pragma once
// The HTML report's diagnostic figures (html.hpp), each a PNG drawn by gnuplot with the look
// of every vcloe plot (vcloe/report/gnuplot.hpp). The pose figures (Li et al. 2019, Figs. 11-12
// form) are pose_plot.hpp's.
#include <string>
#include <vector>

#include "vcloe/core/rotation.hpp"
#include "vcloe/report/html.hpp"

namespace vcloe::report {

// measured - twin over time per pose channel (m, rad), and the declared camera sigma.
struct ResidualSeries {
  std::vector<double> time;
  std::vector<Vec6d> residual;
  Vec6d sigma = Vec6d::Ones();
};

// Six panels (mm, mrad) with the +-sigma band of the declared camera noise (Fig. 13 form).
void plot_residuals(const ResidualSeries& r, const std::string& png, const std::string& title);
// Histograms of residual / sigma, positions and angles, against the standard normal density.
void plot_residual_histogram(const ResidualSeries& r, const std::string& png);
// The correlation matrix as a heat map (-1 blue, 0 white, +1 red), names on both axes.
void plot_correlation(const std::vector<std::string>& names, const std::vector<std::vector<double>>& matrix,
                      const std::string& png);
// Six panels, one per drive (N*m): the model's torque (`label`) with its +-sigma band, the
// priors' dashed when given.
void plot_torques(const TorqueSeries& t, const std::string& png, const std::string& title,
                  const std::string& label = "identified");
// sigma_i / sigma_1 of the weighted Jacobian on a log scale, the rank cut as a dashed line.
void plot_singular_values(const std::vector<double>& singular_values, double rank_tolerance, const std::string& png);

}  // namespace vcloe::report
