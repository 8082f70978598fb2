// The HTML report's inputs computed and the report written (report.hpp).
#include "vcloe/workflow/report.hpp"

#include "vcloe/core/trace.hpp"
#include "vcloe/excitation/optimizer.hpp"
#include "vcloe/report/html.hpp"
#include "vcloe/rig/setup.hpp"

namespace vcloe::workflow {

namespace {

double observability_index(const rig::ExperimentSetup& s) {
  const excitation::ExcitationProblem p;
  Eigen::MatrixXd H;
  if (!excitation::stack_regressor(s.model, s.trajectory, p.regressor_period, H)) return 0;
  return excitation::evaluate_criteria(H, excitation::excited_columns(H, p.qr_eps).kept, p.scale_columns).observability_index;
}

// The first experiment re-run from the files named in the report's inputs.
report::ReportTraces report_traces(const report::ReportInputs& files) {
  const rig::ExperimentSetup setup =
      rig::load_setup(files.robot.path, files.experiment ? files.experiment->path : "", files.reference.path);
  report::ReportTraces t;
  t.measured = read_trace(files.measured.path);
  t.before = rig::twin_trace(setup, setup.lambda);
  t.after = rig::twin_trace(setup, sim::load_robot(files.model.path).lambda);
  t.reference.name = "reference";
  for (double time = 0; time <= setup.trajectory.duration + 1e-9; time += 0.02) {
    t.reference.time.push_back(time);
    t.reference.pose.push_back(setup.trajectory.pose(time));
  }
  t.observability_index = observability_index(setup);
  return t;
}

}  // namespace

void ReportOptions::validate() const { report::check_report_path(out, force, {identification, validation}); }

void write_report(const ReportOptions& o) {
  o.validate();
  report::ReportInput in{o.identification, report::read_identification_report(o.identification), std::nullopt};
  if (!o.validation.empty()) in.validation = report::read_validation(o.validation);
  write_file_atomically(o.out, report::identification_report_html(in, report_traces(in.identification.inputs)), o.force);
}

}  // namespace vcloe::workflow
