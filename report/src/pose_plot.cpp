#include "vcloe/report/pose_plot.hpp"

#include <sstream>

#include "vcloe/report/gnuplot.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe::report {

PoseSeries sample_series(const std::string& name, const PosePath& path, double step) {
  PoseSeries s{name, {}, {}};
  for (double t = 0; t <= path.duration + 1e-9; t += step) {
    s.time.push_back(t);
    s.pose.push_back(path.pose(t));
  }
  return s;
}

void plot_pose_series(const std::vector<PoseSeries>& series, const std::string& file, const std::string& title,
                      PoseChannels channels) {
  if (series.empty()) fail(file, "nothing to plot");
  const GnuplotJob job(file);
  for (std::size_t s = 0; s < series.size(); ++s) {
    std::ostringstream d;
    for (std::size_t i = 0; i < series[s].time.size(); ++i) {
      const Vec6d& p = series[s].pose[i];
      d << series[s].time[i];
      for (int c = 0; c < 6; ++c) d << ' ' << p(c) * 1e3;  // mm, mrad
      d << '\n';
    }
    job.write_data("series" + std::to_string(s) + ".dat", d.str());
  }
  const char* labels[6] = {"x (mm)", "y (mm)", "z (mm)", "alpha (mrad)", "beta (mrad)", "gamma (mrad)"};
  std::ostringstream g;
  const int first = channels == PoseChannels::angles ? 3 : 0, last = channels == PoseChannels::positions ? 3 : 6;
  g << "set multiplot layout " << (last - first == 6 ? "2" : "1") << ",3 title " << gnuplot_quote(title) << "\nset xlabel 't (s)'\n";
  for (int c = first; c < last; ++c) {
    g << "set ylabel '" << labels[c] << "'\nplot ";
    for (std::size_t s = 0; s < series.size(); ++s)
      g << (s ? ", " : "") << job.data("series" + std::to_string(s) + ".dat") << " using 1:" << c + 2
        << " with lines lw 1.5 title " << gnuplot_quote(series[s].name);
    g << "\n";
  }
  g << "unset multiplot";
  job.run(g.str(), last - first == 6 ? "1500,850" : "1500,470");
}

}  // namespace vcloe::report
