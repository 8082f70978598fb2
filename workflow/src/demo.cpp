// `vcloe demo` (demo.hpp).
#include "vcloe/workflow/demo.hpp"

#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>

#include "child_step.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/oe_ident/config.hpp"

namespace vcloe::workflow {

std::optional<SettingProblem> DemoOptions::problem() const {
  if (n < 1 || n > 1000)
    return SettingProblem{"--n", "--n: expected 1 to 1000 validation trajectories, got " + std::to_string(n)};
  return std::nullopt;
}

void DemoOptions::validate(const std::string& where) const {
  throw_if(problem(), where);
  // --dir: the file system, so here and not in problem() (which stays pure).
  check_output_directory(dir, force, "--dir", "the demo files");
}

namespace {

// Runs `vcloe <args>` as a child process under a heading, echoing the command line first.
void step(const std::string& title, const std::vector<std::string>& args) {
  std::cout << "\n== " << title << "\n";
  run_vcloe_step(title, args, &std::cout);
}

}  // namespace

void demo(const DemoOptions& o) {
  namespace fs = std::filesystem;
  o.validate();
  create_output_directory(o.dir);
  const auto start = std::chrono::steady_clock::now();
  const std::string d = o.dir + "/";
  std::vector<std::string> force;
  if (o.force) force.push_back("--force");
  auto with = [&](std::vector<std::string> a) {
    a.insert(a.end(), force.begin(), force.end());
    return a;
  };
  const oe_ident::IdentificationConfig cfg =
      oe_ident::load_identification_config(o.config);
  step("1. excitation trajectory (observability index, eq. 39)", with({"excite", "--out", d + "excitation.yaml"}));
  // The same records either way: the rig in lockstep equals the in-process run (docs/protocol.md).
  const std::vector<std::string> run = o.rig ? std::vector<std::string>{"rig", "run", "--clock", "lockstep"}
                                              : std::vector<std::string>{"run", "--backend", "virtual"};
  auto run_with = [&](std::vector<std::string> a) {
    a.insert(a.begin(), run.begin(), run.end());
    return with(a);
  };
  step("2. run it on the virtual robot (hidden truth, camera noise)",
       run_with({"--reference", d + "excitation.yaml", "--out", d + "measured.csv"}));
  std::vector<std::string> identify = {"identify", "--measured", d + "measured.csv", "--out", d + "identified.yaml"};
  if (cfg.options.anchor.kind == oe_ident::AnchorKind::Payload) {
    const oe_ident::Payload& p = *cfg.payload;
    step("3. again with the known payload bolted on (the scale anchor)",
         run_with({"--seed", "2", "--reference", d + "excitation.yaml", "--payload-mass",
               exact_number(p.mass), "--payload-inertia", exact_number(p.inertia(0)), exact_number(p.inertia(1)),
               exact_number(p.inertia(2)), "--out", d + "measured-payload.csv"}));
    identify.insert(identify.end(), {"--payload-trace", d + "measured-payload.csv"});
  }
  step("4. identify (closed-loop output error)", with(identify));
  step("5. validate on fresh trajectories (Table 4 form)",
       with({"validate", "--model", d + "identified.yaml", "--n", std::to_string(o.n), "--out", d + "validation.json"}));
  // What the model is for (docs/control.md): the excitation run again, pre-corrected with it, beside the
  // servo alone's run of step 2, and the loads it predicts along it -- the report's tracking and load sections.
  step("6. pre-correct the excitation with the identified model (inverse dynamics through the drives' law)",
       with({"precorrect", "--model", d + "identified.yaml", "--reference", d + "excitation.yaml", "--out",
             d + "precorrection.csv"}));
  step("7. run it pre-corrected (the same camera noise as step 2)",
       run_with({"--reference", d + "excitation.yaml", "--precorrection", d + "precorrection.csv", "--out", d + "precorrected.csv"}));
  step("8. the drive torques and joint forces the model predicts along it",
       with({"predict", "--model", d + "identified.yaml", "--reference", d + "excitation.yaml", "--out", d + "loads.csv"}));
  step("9. the report (one self-contained HTML file)",
       with({"report", "--identification", d + "identified.yaml.report.json", "--validation", d + "validation.json",
             "--servo-alone", d + "measured.csv", "--precorrected", d + "precorrected.csv", "--prediction", d + "loads.csv",
             "--out", d + "report.html"}));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "\ndemo finished in " << std::fixed << std::setprecision(1) << seconds << " s; files in " << o.dir
            << "/\nthe report: " << std::filesystem::absolute(o.dir + "/report.html").string() << "\n";
}

}  // namespace vcloe::workflow
