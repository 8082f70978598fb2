// The report's diagnostic figures (figures.hpp).
#include "figures.hpp"

#include <cmath>
#include <sstream>

#include "vcloe/report/gnuplot.hpp"
#include "vcloe/core/error.hpp"

namespace vcloe::report {

namespace {
const char* const kLabel[6] = {"x (mm)", "y (mm)", "z (mm)", "alpha (mrad)", "beta (mrad)", "gamma (mrad)"};
}  // namespace

void plot_residuals(const ResidualSeries& r, const std::string& png, const std::string& title) {
  const GnuplotJob job(png);
  const std::string data = "residual.dat";
  {
    std::ostringstream d;
    for (std::size_t i = 0; i < r.time.size(); ++i) {
      d << r.time[i];
      for (int c = 0; c < 6; ++c) d << ' ' << r.residual[i](c) * 1e3;
      d << '\n';
    }
    job.write_data(data, d.str());
  }
  std::ostringstream g;
  g << "set multiplot layout 2,3 title " << gnuplot_quote(title) << "\nset xlabel 't (s)'\n";
  for (int c = 0; c < 6; ++c) {
    const double s = r.sigma(c) * 1e3;
    g << "set ylabel '" << kLabel[c] << "'\nplot " << job.data(data) << " using 1:(" << -s << "):(" << s
      << ") with filledcurves fc rgb '#cfe3f7' title '+-sigma camera', " << job.data(data) << " using 1:" << c + 2
      << " with lines lw 1 lc rgb '#b2182b' title 'measured - twin'\n";
  }
  g << "unset multiplot";
  job.run(g.str());
}

void plot_residual_histogram(const ResidualSeries& r, const std::string& png) {
  const GnuplotJob job(png);
  const double width = 0.25, lo = -6;
  const int bins = 48;
  for (int group = 0; group < 2; ++group) {  // positions, angles
    std::vector<double> count(bins, 0.0);
    double n = 0;
    for (const Vec6d& e : r.residual)
      for (int c = 3 * group; c < 3 * group + 3; ++c) {
        const int b = static_cast<int>(std::floor((e(c) / r.sigma(c) - lo) / width));
        if (b >= 0 && b < bins) count[static_cast<std::size_t>(b)] += 1;
        n += 1;
      }
    std::ostringstream d;
    for (int b = 0; b < bins; ++b) d << lo + (b + 0.5) * width << ' ' << count[static_cast<std::size_t>(b)] / (n * width) << '\n';
    job.write_data("hist" + std::to_string(group) + ".dat", d.str());
  }
  std::ostringstream g;
  g << "set multiplot layout 1,2 title 'residual / declared camera sigma'\nset xrange [-6:6]\nset style fill solid 0.5\n"
       "set xlabel 'residual / sigma'\nset ylabel 'density'\nnormal(x) = exp(-x*x/2) / sqrt(2*pi)\n";
  const char* group_name[2] = {"positions x, y, z", "angles alpha, beta, gamma"};
  for (int group = 0; group < 2; ++group)
    g << "set title '" << group_name[group] << "'\nplot " << job.data("hist" + std::to_string(group) + ".dat")
      << " using 1:2 with boxes lc rgb '#4393c3' title 'residual', normal(x) with lines lw 2 lc rgb 'black' "
         "title 'camera noise N(0,1)'\n";
  g << "unset multiplot";
  job.run(g.str(), "1300,500");
}

void plot_correlation(const std::vector<std::string>& names, const std::vector<std::vector<double>>& matrix,
                      const std::string& png) {
  if (names.empty() || matrix.size() != names.size()) fail(png, "no correlation matrix to plot");
  const GnuplotJob job(png);
  const std::string data = "corr.dat";
  {
    std::ostringstream d;
    for (const auto& row : matrix) {
      for (double v : row) d << (std::isfinite(v) ? v : 0.0) << ' ';
      d << '\n';
    }
    job.write_data(data, d.str());
  }
  std::ostringstream tics;
  for (std::size_t i = 0; i < names.size(); ++i) tics << (i ? ", " : "") << gnuplot_quote(names[i]) << ' ' << i;
  std::ostringstream g;
  const double n = static_cast<double>(names.size());
  g << "set title 'correlation of the fitted parameters'\nunset grid\nset size square\n"
    << "set palette defined (-1 '#2166ac', 0 'white', 1 '#b2182b')\nset cbrange [-1:1]\n"
    << "set xrange [-0.5:" << n - 0.5 << "]\nset yrange [" << n - 0.5 << ":-0.5]\n"
    << "set xtics (" << tics.str() << ") rotate by 90 right\nset ytics (" << tics.str() << ")\n"
    << "plot " << job.data(data) << " matrix with image notitle";
  job.run(g.str(), "900,850");
}

void plot_torques(const TorqueSeries& t, const std::string& png, const std::string& title, const std::string& label) {
  if (t.time.empty()) fail(png, "no torques to plot");
  const bool priors = !t.priors.empty();
  const GnuplotJob job(png);
  const std::string data = "torque.dat";
  {
    std::ostringstream d;  // t, then per drive: the model's, sigma, priors (0 without)
    for (std::size_t n = 0; n < t.time.size(); ++n) {
      d << t.time[n];
      for (int i = 0; i < 6; ++i) d << ' ' << t.identified[n](i) << ' ' << t.sigma[n](i) << ' ' << (priors ? t.priors[n](i) : 0.0);
      d << '\n';
    }
    job.write_data(data, d.str());
  }
  std::ostringstream g;
  g << "set multiplot layout 2,3 title " << gnuplot_quote(title) << "\nset xlabel 't (s)'\n";
  for (int i = 0; i < 6; ++i) {
    const int c = 2 + 3 * i;  // the model's; sigma c + 1; priors c + 2
    g << "set ylabel 'tau" << i + 1 << " (N m)'\nplot " << job.data(data) << " using 1:($" << c << "-$" << c + 1 << "):($" << c
      << "+$" << c + 1 << ") with filledcurves fc rgb '#cfe3f7' title '+-sigma', " << job.data(data) << " using 1:" << c
      << " with lines lw 1.5 lc rgb '#2166ac' title " << gnuplot_quote(label);
    if (priors) g << ", " << job.data(data) << " using 1:" << c + 2 << " with lines dt 2 lw 1 lc rgb '#b2182b' title 'priors'";
    g << "\n";
  }
  g << "unset multiplot";
  job.run(g.str());
}

void plot_singular_values(const std::vector<double>& sv, double rank_tolerance, const std::string& png) {
  if (sv.empty() || !(sv.front() > 0)) fail(png, "no singular values to plot");
  const GnuplotJob job(png);
  const std::string data = "sv.dat";
  {
    std::ostringstream d;
    for (std::size_t i = 0; i < sv.size(); ++i) d << i + 1 << ' ' << std::max(sv[i] / sv.front(), 1e-300) << '\n';
    job.write_data(data, d.str());
  }
  std::ostringstream g;
  g << "set title 'singular values of the weighted Jacobian at the solution'\nset logscale y\nset format y '1e%T'\n"
    << "set xlabel 'index'\nset ylabel 'sigma_i / sigma_1'\nset xrange [0:" << sv.size() + 1 << "]\n"
    << "plot " << job.data(data) << " using 1:2 with linespoints pt 7 lw 1.5 lc rgb '#2166ac' title 'singular values', "
    << rank_tolerance << " with lines dt 2 lw 2 lc rgb '#b2182b' title 'rank cut (rank_tolerance)'";
  job.run(g.str(), "900,500");
}

}  // namespace vcloe::report
