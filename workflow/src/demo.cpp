// `vcloe demo` (demo.hpp).
#include "vcloe/workflow/demo.hpp"

#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <utility>
#include <vector>

#include "child_step.hpp"
#include "vcloe/core/defaults.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/oe_ident/config.hpp"
#include "vcloe/report/gnuplot.hpp"

namespace vcloe::workflow {

std::optional<SettingProblem> DemoOptions::problem() const {
  if (n < 1 || n > 1000)
    return SettingProblem{"--n", "--n: expected 1 to 1000 validation trajectories, got " + std::to_string(n)};
  return std::nullopt;
}

OutputDirectory DemoOptions::validate(const std::string& where) const {
  throw_if(problem(), where);
  // --dir: the file system, so here and not in problem() (which stays pure).
  return OutputDirectory(dir, force, "--dir", "the demo files");
}

namespace {

using Written = IoPlan::Written;

// One step: its heading, the command a user would type, and the files it writes (the demo's
// one input/output check declares them before any step runs).
struct DemoStep {
  std::string title;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, Written>> writes;
  bool draws = false;  // runs gnuplot for what it writes: checked with the files (report::plan_gnuplot)
};

// The steps in order, each file named once here: in the command line that writes it and in
// what the step is declared to write.
std::vector<DemoStep> demo_steps(const DemoOptions& o, const oe_ident::IdentificationConfig& cfg) {
  const std::string d = o.dir + "/";
  const std::string excitation = d + "excitation.yaml", measured = d + "measured.csv", payload_run = d + "measured-payload.csv",
                    model = d + "identified.yaml", validation = d + "validation.json", precorrection = d + "precorrection.csv",
                    precorrected = d + "precorrected.csv", loads = d + "loads.csv", report = d + "report.html";
  auto with = [&](std::vector<std::string> a) {
    if (o.force) a.push_back("--force");
    return a;
  };
  // The same records either way: the rig in lockstep equals the in-process run (docs/protocol.md).
  const std::vector<std::string> run = o.rig ? std::vector<std::string>{"rig", "run", "--clock", "lockstep"}
                                              : std::vector<std::string>{"run", "--backend", "virtual"};
  auto run_with = [&](std::vector<std::string> a) {
    a.insert(a.begin(), run.begin(), run.end());
    return with(a);
  };
  // What a run writes: the trace with its sidecar, and through the rig the recording it grows in
  // (rig run's <out>.partial).
  auto run_writes = [&](const std::string& trace) {
    std::vector<std::pair<std::string, Written>> w = {{trace, Written::trace}};
    if (o.rig) w.emplace_back(trace + ".partial", Written::file);
    return w;
  };
  std::vector<DemoStep> steps;
  steps.push_back({"1. excitation trajectory (observability index, eq. 39)", with({"excite", "--out", excitation}),
                   {{excitation, Written::file}}});
  steps.push_back({"2. run it on the virtual robot (hidden truth, camera noise)",
                   run_with({"--reference", excitation, "--out", measured}), run_writes(measured)});
  std::vector<std::string> identify = {"identify", "--measured", measured, "--out", model};
  if (cfg.options.anchor.kind == oe_ident::AnchorKind::Payload) {
    const oe_ident::Payload& p = *cfg.payload;
    steps.push_back({"3. again with the known payload bolted on (the scale anchor)",
                     run_with({"--seed", "2", "--reference", excitation, "--payload-mass", exact_number(p.mass),
                               "--payload-inertia", exact_number(p.inertia(0)), exact_number(p.inertia(1)),
                               exact_number(p.inertia(2)), "--out", payload_run}),
                     run_writes(payload_run)});
    identify.insert(identify.end(), {"--payload-trace", payload_run});
  }
  steps.push_back({"4. identify (closed-loop output error)", with(identify), {{model, Written::model}}});
  steps.push_back({"5. validate on fresh trajectories (Table 4 form)",
                   with({"validate", "--model", model, "--n", std::to_string(o.n), "--out", validation}),
                   {{validation, Written::file}}});
  // What the model is for (docs/control.md): the excitation run again, pre-corrected with it, beside the
  // servo alone's run of step 2, and the loads it predicts along it -- the report's tracking and load sections.
  steps.push_back({"6. pre-correct the excitation with the identified model (inverse dynamics through the drives' law)",
                   with({"precorrect", "--model", model, "--reference", excitation, "--out", precorrection}),
                   {{precorrection, Written::trace}}});
  steps.push_back({"7. run it pre-corrected (the same camera noise as step 2)",
                   run_with({"--reference", excitation, "--precorrection", precorrection, "--out", precorrected}),
                   run_writes(precorrected)});
  steps.push_back({"8. the drive torques and joint forces the model predicts along it",
                   with({"predict", "--model", model, "--reference", excitation, "--out", loads}), {{loads, Written::trace}}});
  steps.push_back({"9. the report (one self-contained HTML file)",
                   with({"report", "--identification", model + ".report.json", "--validation", validation, "--servo-alone",
                         measured, "--precorrected", precorrected, "--prediction", loads, "--out", report}),
                   {{report, Written::file}}, true});
  return steps;
}

// The demo's one input/output check: the default config files its steps read (each step is
// given no other) against every file a step writes.
void check_demo_plan(const DemoOptions& o, const std::vector<DemoStep>& steps) {
  const std::string from = " (" + defaults::config_source() + ")";
  IoPlan plan(o.force);
  plan.within(o.dir).input(defaults::robot_file(), "the default robot file" + from)
      .input(defaults::truth_file(), "the default truth" + from)
      .input(defaults::experiment_file(), "the default experiment" + from)
      .input(defaults::excitation_file(), "the default excitation settings" + from)
      .input(o.config, "the identification settings");
  for (const DemoStep& s : steps)
    for (const auto& [path, what] : s.writes) {
      const std::string role = "step " + s.title.substr(0, s.title.find('.'));
      plan.planned(path, "written by " + role, what);
      if (s.draws) report::plan_gnuplot(plan, path, role);
    }
  plan.check();
}

// Runs `vcloe <args>` as a child process under a heading, echoing the command line first.
void step(const DemoStep& s) {
  std::cout << "\n== " << s.title << "\n";
  run_vcloe_step(s.title, s.args, &std::cout);
}

}  // namespace

void demo(const DemoOptions& o) {
  const OutputDirectory dir = o.validate();  // a refusal below removes it if it was made here
  const oe_ident::IdentificationConfig cfg = oe_ident::load_identification_config(o.config);
  const std::vector<DemoStep> steps = demo_steps(o, cfg);
  check_demo_plan(o, steps);  // before any step
  const auto start = std::chrono::steady_clock::now();
  for (const DemoStep& s : steps) step(s);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "\ndemo finished in " << std::fixed << std::setprecision(1) << seconds << " s; files in " << o.dir
            << "/\nthe report: " << std::filesystem::absolute(steps.back().writes.front().first).string() << "\n";
}

}  // namespace vcloe::workflow
