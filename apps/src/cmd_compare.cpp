// `vcloe compare`: per-axis RMS and max of the pose difference of two traces (seed 004 Table 3
// form), optionally plotted (Fig. 12 form).
#include <iomanip>
#include <iostream>

#include "commands.hpp"
#include "vcloe/core/trace_compare.hpp"
#include "vcloe/report/pose_plot.hpp"

namespace vcloe::app {

void add_compare_command(CLI::App& app) {
  struct Options {
    std::string a, b, plot, columns = "measured", columns_b;
    bool json = false, force = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Per-axis RMS and max of the pose difference of two traces (mm, mrad; Table 3 form), optional plot");
  cmd->add_option("a", o->a, "trace A (its timestamps are used)")->required();
  cmd->add_option("b", o->b, "trace B (interpolated if its times differ)")->required();
  cmd->add_option("--columns", o->columns, "which poses of A: measured, truth or reference")->capture_default_str();
  cmd->add_option("--columns-b", o->columns_b, "which poses of B (default: as A)");
  cmd->add_option("--plot", o->plot, "plot the six pose components of both (.png, .svg, .pdf)");
  cmd->add_flag("--json", o->json, "print the result as JSON");
  cmd->add_flag("--force", o->force, "overwrite an existing plot");
  cmd->callback([o] {
    if (!o->plot.empty()) report::check_plot_path(o->plot, o->force, {o->a, o->b, sidecar_path(o->a), sidecar_path(o->b)});
    const PoseTrace a = read_trace(o->a), b = read_trace(o->b);
    const TraceColumns wa = trace_columns_from_string(o->columns);
    const TraceColumns wb = o->columns_b.empty() ? wa : trace_columns_from_string(o->columns_b);
    const TraceDifference d = compare_traces(a, b, wa, wb, o->a, o->b);
    if (o->json) {
      const nlohmann::json j = {{"rms_mm", d.rms_mm},     {"max_mm", d.max_mm},     {"rms_mrad", d.rms_mrad},
                                {"max_mrad", d.max_mrad}, {"samples", d.samples}, {"interpolated", d.interpolated}};
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << std::fixed << std::setprecision(4) << "A = " << o->a << "\nB = " << o->b << "\n"
                << d.samples << " samples" << (d.interpolated ? " (B linearly interpolated onto A's times)" : "") << "\n"
                << "          x (mm)    y (mm)    z (mm)   alpha (mrad) beta (mrad) gamma (mrad)\n"
                << "RMS   " << std::setw(9) << d.rms_mm[0] << " " << std::setw(9) << d.rms_mm[1] << " " << std::setw(9)
                << d.rms_mm[2] << "   " << std::setw(9) << d.rms_mrad[0] << "   " << std::setw(9) << d.rms_mrad[1]
                << "   " << std::setw(9) << d.rms_mrad[2] << "\n"
                << "max   " << std::setw(9) << d.max_mm[0] << " " << std::setw(9) << d.max_mm[1] << " " << std::setw(9)
                << d.max_mm[2] << "   " << std::setw(9) << d.max_mrad[0] << "   " << std::setw(9) << d.max_mrad[1]
                << "   " << std::setw(9) << d.max_mrad[2] << "\n";
    }
    if (!o->plot.empty()) {
      report::plot_pose_series({{"A: " + o->a, a.time, columns_of(a, wa, o->a)}, {"B: " + o->b, b.time, columns_of(b, wb, o->b)}},
                       o->plot, "Pose traces", o->force);
    }
  });
}

}  // namespace vcloe::app
