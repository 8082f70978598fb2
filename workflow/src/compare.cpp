// `vcloe compare` (compare.hpp).
#include "vcloe/workflow/compare.hpp"

#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "vcloe/core/provenance.hpp"
#include "vcloe/core/trace_compare.hpp"
#include "vcloe/report/gnuplot.hpp"
#include "vcloe/report/pose_plot.hpp"
#include "vcloe/rig/checked_trace.hpp"

namespace vcloe::workflow {

void CompareOptions::validate() const {
  if (!plot.empty()) {
    IoPlan plan(force);
    report::plan_figure(plan.input_trace(a, "trace A").input_trace(b, "trace B"), plot, "--plot");
    plan.check();
  }
}

void compare(const CompareOptions& o) {
  o.validate();
  const PoseTrace a = rig::read_checked_trace(o.a), b = rig::read_checked_trace(o.b);
  // Allowed (a reference edited and run again), but said: the difference includes the references'.
  if (const auto m = provenance_mismatch(provenance_of(a, o.a), provenance_of(b, o.b), Together::OneReference))
    std::cerr << "vcloe: warning: " << *m << ": the difference includes that of the two references\n";
  const TraceColumns wa = trace_columns_from_string(o.columns);
  const TraceColumns wb = o.columns_b.empty() ? wa : trace_columns_from_string(o.columns_b);
  const TraceDifference d = compare_traces(a, b, wa, wb, o.a, o.b);
  if (d.per_angle_overstated())
    std::cerr << std::setprecision(3) << "vcloe: warning: at t = " << d.overstatement.time_s << " s of A the per-angle "
              << "difference is " << d.overstatement.per_angle_mrad << " mrad for a rotation of "
              << d.overstatement.rotation_mrad << " mrad between the orientations: they are near gimbal lock (beta = "
              << "+-90 deg), where Euler angles are ill-conditioned; read the rotation row, not alpha, beta, gamma\n";
  if (o.json) {
    const nlohmann::json j = {{"rms_mm", d.rms_mm},
                              {"max_mm", d.max_mm},
                              {"rms_mrad", d.rms_mrad},
                              {"max_mrad", d.max_mrad},
                              {"rms_rotation_mrad", d.rms_rotation_mrad},
                              {"max_rotation_mrad", d.max_rotation_mrad},
                              {"per_angle_overstated", d.per_angle_overstated()},
                              {"samples", d.samples},
                              {"left_out", d.left_out},
                              {"interpolated", d.interpolated}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << std::fixed << std::setprecision(4) << "A = " << o.a << "\nB = " << o.b << "\n"
              << d.samples << " samples" << (d.interpolated ? " (B linearly interpolated onto A's times)" : "")
              << (d.left_out ? ", " + std::to_string(d.left_out) + " of A's left out (frames B did not measure)" : "") << "\n"
              << "          x (mm)    y (mm)    z (mm)   alpha (mrad) beta (mrad) gamma (mrad)\n"
              << "RMS   " << std::setw(9) << d.rms_mm[0] << " " << std::setw(9) << d.rms_mm[1] << " " << std::setw(9)
              << d.rms_mm[2] << "   " << std::setw(9) << d.rms_mrad[0] << "   " << std::setw(9) << d.rms_mrad[1]
              << "   " << std::setw(9) << d.rms_mrad[2] << "\n"
              << "max   " << std::setw(9) << d.max_mm[0] << " " << std::setw(9) << d.max_mm[1] << " " << std::setw(9)
              << d.max_mm[2] << "   " << std::setw(9) << d.max_mrad[0] << "   " << std::setw(9) << d.max_mrad[1]
              << "   " << std::setw(9) << d.max_mrad[2] << "\n"
              << "rotation between the orientations (mrad): RMS " << d.rms_rotation_mrad << ", max "
              << d.max_rotation_mrad << "\n";
  }
  if (!o.plot.empty()) {
    report::plot_pose_series({{"A: " + o.a, a.time, columns_of(a, wa, o.a)}, {"B: " + o.b, b.time, columns_of(b, wb, o.b)}},
                     o.plot, "Pose traces");
  }
}

}  // namespace vcloe::workflow
