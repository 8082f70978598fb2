// The one input/output check of `vcloe study` (study.hpp: study_plan): every file it reads and
// every file it and its steps will write, named as study_files.hpp names them.
#include <cstdint>
#include <string>
#include <vector>

#include "study_files.hpp"
#include "vcloe/oe_ident/config.hpp"
#include "vcloe/workflow/study.hpp"

namespace vcloe::workflow {

namespace {

using Written = IoPlan::Written;

// What one truth's chain writes (study.cpp: study_truth, TruthChain), in its directory.
void plan_truth(IoPlan& plan, const StudyOptions& o, bool payload, std::uint64_t seed) {
  const TruthFiles f(o.dir, seed);
  const std::string of = " of truth " + std::to_string(seed);
  std::vector<std::string> steps = {kTruthStep, kRunStep};
  plan.planned(f.truth(), "the truth drawn" + of).planned(f.measured(), "the run" + of, Written::trace);
  if (payload) {
    steps.push_back(kRunPayloadStep);
    plan.planned(f.measured_payload(), "the run with the payload" + of, Written::trace);
  }
  std::vector<std::string> fits = {""};
  if (o.departures.realistic) {
    fits.push_back(kCalibrated);
    plan.planned(f.static_poses(), "the static poses measured" + of, Written::trace)
        .planned(f.calibrated(), "the calibrated robot file" + of)
        .planned(f.calibration(), "the calibration's result" + of)
        .planned(f.calibration_log(), "the calibration's text" + of);
  }
  for (const std::string& suffix : fits) {
    plan.planned(f.model(suffix), "the model identified" + of, Written::model);
    steps.push_back(kIdentifyStep + suffix);
    steps.push_back(kValidateStep + suffix);
  }
  for (const std::string& step : steps)
    plan.planned(f.log(step), "the output of step " + step + of).planned(f.errors(step), "the errors of step " + step + of);
}

// A study run in this process: each truth of its shard, then its tables.
void plan_here(IoPlan& plan, const StudyOptions& o, bool payload) {
  for (int k = o.shard - 1; k < o.truths; k += o.shards) plan_truth(plan, o, payload, o.seed + static_cast<std::uint64_t>(k));
  const StudyFiles files{o.dir};
  plan.planned(files.json(), "the study's table").planned(files.table(), "the study's table");
}

// A study on Slurm (study_slurm.cpp): the scripts, sbatch's answers, the jobs' logs, each task's
// study in its shard directory (one truth, on the reference this process gives it), and the
// merge job's tables in DIR.
void plan_on_slurm(IoPlan& plan, const StudyOptions& o, bool payload) {
  const SlurmFiles s{o.dir};
  for (const std::string& script : {s.array(), s.merge()})
    plan.planned(script, "a batch script").planned(SlurmFiles::submitted(script), "sbatch's answer to " + script)
        .planned(SlurmFiles::refused(script), "sbatch's errors on " + script);
  plan.planned(s.merge_log(), "the merge job's log");
  for (int k = 1; k <= o.truths; ++k) {
    plan.planned(s.task_log(k), "the log of task " + std::to_string(k));
    StudyOptions task = o;
    task.dir = s.shard(k), task.shard = k, task.shards = o.truths, task.slurm.enabled = false;
    if (task.reference.empty()) task.reference = StudyFiles{o.dir}.excitation();
    plan_here(plan, task, payload);
  }
  const StudyFiles files{o.dir};
  plan.planned(files.json(), "the merged table").planned(files.table(), "the merged table");
}

}  // namespace

IoPlan study_plan(const StudyOptions& o) {
  const bool payload = !o.config.empty() &&
                       oe_ident::load_identification_config(o.config).options.anchor.kind == oe_ident::AnchorKind::Payload;
  IoPlan plan(o.force);
  plan.within(o.dir).input(o.priors, "--priors").input(o.config, "--config").input(o.experiment, "--experiment").input(o.reference, "--reference");
  if (o.reference.empty()) {  // excite_once
    const StudyFiles files{o.dir};
    plan.planned(files.excitation(), "the excitation optimised once")
        .planned(files.excite_log(), "excite's output")
        .planned(files.excite_errors(), "excite's errors");
  }
  if (o.slurm.enabled) plan_on_slurm(plan, o, payload);
  else plan_here(plan, o, payload);
  return plan;
}

}  // namespace vcloe::workflow
